"""The package's shape: no import circles, not even through imports inside functions;
pygit2 imported only by the git layer (git_aiapply/git/) and the start-up shim; no module
of the git layer or of the commands driving it over 700 lines.  Read from the source
with ast, nothing imported."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "git_aiapply"
# modules outside git/ allowed to import pygit2: the start-up shim imports it early on
# purpose (startup.py's docstring)
PYGIT2_OUTSIDE_GIT = {"git_aiapply.startup"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imports(name: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], bool]:
    """(modules of the package that ``name`` imports anywhere, whether it imports pygit2)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    pkg = _package_of(name, path)
    out: set[str] = set()
    pygit2 = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "pygit2":
                    pygit2 = True
                if a.name in modules:
                    out.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
                if base.split(".")[0] == "pygit2":
                    pygit2 = True
            else:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)])
                if node.module:
                    base = f"{base}.{node.module}"
            if base in modules:
                out.add(base)
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in modules:
                    out.add(sub)
    out.discard(name)
    return out, pygit2


def _graph():
    modules = _modules()
    graph, uses_pygit2 = {}, set()
    for name, path in modules.items():
        deps, pg = _imports(name, path, modules)
        graph[name] = deps
        if pg:
            uses_pygit2.add(name)
    return modules, graph, uses_pygit2


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_checker_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_reads_imports_inside_functions():
    modules, graph, _ = _graph()
    # undo.undo imports the transaction inside the function
    assert "git_aiapply.git.transaction" in graph["git_aiapply.undo"]


def test_no_import_circles():
    _modules, graph, _ = _graph()
    assert _cycles(graph) == []


def test_pygit2_only_in_the_git_layer():
    _modules, _graph_, uses = _graph()
    outside = sorted(m for m in uses if not m.startswith("git_aiapply.git.")
                     and m not in PYGIT2_OUTSIDE_GIT)
    assert outside == []


# the git layer and the commands that drive its transaction; the pure core's modules
# (locate, message) are their owners' to split
SIZE_CHECKED = ("git_aiapply.git", "git_aiapply.apply", "git_aiapply.undo",
                "git_aiapply.recover", "git_aiapply.attempts", "git_aiapply.commands")


def test_no_module_over_700_lines():
    long = {name: n for name, path in _modules().items()
            if name.startswith(SIZE_CHECKED)
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > 700}
    assert long == {}
