"""The package's shape (issues 11, 23, 29), read from the source with ast, nothing imported:

- no import circles, not even through an import inside a function (moving an import into
  a function to dodge a circle leaves the circle there, only hidden until it runs);
- no module over 700 lines, anywhere in the package;
- the stages (issue 29): every module lives in a stage package or is a shared base at the
  root (at most 10 modules there); imports point down the order of the stages in
  ``STAGES``; a stage imports from another only the modules that stage's ``__init__.py``
  names in ``OPEN_MODULES``; the core stages import neither git/ nor run/, doors/ or cli/;
- pygit2 imported only by git/ (and the start-up shim, cli/startup.py); click only in cli/;
- no module reaching into another module's private ``_names``;
- no module named like a library function (``git_aiapply.apply`` is the function);
- no module outside git/ reaches a pygit2 object through the ``Repo.repo`` attribute.
  Imports made only for type checkers (``if TYPE_CHECKING:``) do not count for the stages."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "git_aiapply"
MAX_LINES = 700
# modules outside git/ allowed to import pygit2: the start-up shim imports it early on
# purpose (startup.py's docstring)
PYGIT2_OUTSIDE_GIT = {"git_aiapply.cli.startup"}

# The stages (issue 29; README "Layout"), from the top: a module may import its own stage
# and the stages below it, never one above.  The shared bases at the package's root come
# below every stage; the package's face (``__init__``, ``__main__``) above them all.
STAGES = ["cli", "doors", "workflows", "run", "answer", "threeway", "git", "plan", "verify",
          "formats", "locate", "grammar", "message"]
BASES = {"errors", "ops", "text", "record", "dates", "paths", "lazy_re",
         "api_types"}  # the library's argument types: the face's, documented at the root
FACE = {"git_aiapply", "git_aiapply.__main__"}
DATA = {"git_aiapply.examples"}  # the demo's example responses: files, no code
# the core: pure functions of text and trees, no repository, no front door
CORE_STAGES = ["plan", "verify", "formats", "locate", "grammar", "message"]
MAX_ROOT_MODULES = 10


def stage_of(module: str) -> str | None:
    """The stage a dotted module name belongs to ("base" for a shared base, None for the
    face and the data)."""
    parts = module.split(".")
    if module in FACE or module in DATA:
        return None
    if len(parts) >= 2 and parts[1] in STAGES:
        return parts[1]
    if len(parts) == 2 and parts[1] in BASES:
        return "base"
    raise AssertionError(f"{module} is in no stage (add it to a stage package or BASES)")


def rank(stage: str) -> int:
    """Height in the order: 0 for the bases, higher up the stages."""
    return 0 if stage == "base" else len(STAGES) - STAGES.index(stage)


def open_modules(stage: str, package: Path = PACKAGE) -> set[str]:
    """The modules of a stage that other stages may import: the literal ``OPEN_MODULES``
    of its ``__init__.py`` (the package itself is always open)."""
    tree = ast.parse((package / stage / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "OPEN_MODULES":
            return {f"{package.name}.{stage}.{e.value}" for e in node.value.elts} | {
                f"{package.name}.{stage}"}
    raise AssertionError(f"{stage}/__init__.py names no OPEN_MODULES")


def in_layer(module: str, layer: set[str]) -> bool:
    """Whether ``module`` is one of ``layer``'s names or inside one of its packages."""
    return module in layer or any(p.endswith(".") and module.startswith(p) for p in layer)


def layer_breaches(imports: dict, lower: set[str], upper: set[str],
                   allowed: set[tuple[str, str]] = frozenset()) -> list[tuple[str, str]]:
    """(module, what it imports) where a module of ``lower`` imports one of ``upper``
    for running (type checkers' imports excepted)."""
    return sorted((n, m) for n, i in imports.items() if in_layer(n, lower)
                  for m in i.runtime if in_layer(m, upper) and (n, m) not in allowed)


def repo_attribute_uses(path: Path) -> list[int]:
    """Lines reaching a pygit2 object through the git layer's wrapper: ``repo.repo``,
    ``self.repo.repo``, ``base.repo`` (a snapshot's repository)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "repo":
            inner = node.value
            if (isinstance(inner, ast.Name) and inner.id in ("repo", "base")) or \
                    (isinstance(inner, ast.Attribute) and inner.attr == "repo"):
                out.append(node.lineno)
    return out


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


class Imports:
    """What one module imports: the package's modules (-> whether some import of it is at
    the top level), whether it imports pygit2, and the private names it takes from
    other modules of the package (``from .x import _y``, ``x._y``)."""

    def __init__(self, name: str, path: Path, modules: dict[str, Path]):
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top_level = {id(n) for n in tree.body}
        typing_only = _type_checking_nodes(tree)
        self.modules: dict[str, bool] = {}
        # the package's modules and the outside packages (top-level names: click) imported
        # for running, not only for type checkers (``if TYPE_CHECKING:``)
        self.runtime: set[str] = set()
        self.outside: set[str] = set()
        self.pygit2 = False
        self.private: list[str] = []
        aliases: dict[str, str] = {}  # local name -> module of the package
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.pygit2 |= a.name.split(".")[0] == "pygit2"
                    targets.append(a.name)
                    if a.asname and a.name in modules:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    module = f"{base}.{node.module}" if node.module else base
                else:
                    module = node.module or ""
                    self.pygit2 |= module.split(".")[0] == "pygit2"
                for a in node.names:
                    sub = f"{module}.{a.name}"
                    if sub in modules:  # `from . import x`: the submodule itself
                        targets.append(sub)
                        aliases[a.asname or a.name] = sub
                    else:
                        targets.append(module)
                        if module in modules and module != name and _is_private(a.name):
                            self.private.append(f"from {module} import {a.name}")
            runs = id(node) not in typing_only
            for target in targets:
                if runs and not target.startswith(f"{name.split('.')[0]}."):
                    self.outside.add(target.split(".")[0])
                while target and target not in modules:
                    target = target.rpartition(".")[0]  # `import pkg.x.y` -> known parent
                if runs and target and target != name:
                    self.runtime.add(target)
                # importing pkg.sub runs pkg/__init__.py first, unless this module is
                # inside pkg (then pkg is already being imported)
                parent = target.rpartition(".")[0]
                while parent in modules and not f"{name}.".startswith(f"{parent}."):
                    self._add(parent, name, id(node) in top_level)
                    parent = parent.rpartition(".")[0]
                self._add(target, name, id(node) in top_level)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and aliases.get(node.value.id, name) != name and _is_private(node.attr):
                self.private.append(f"{aliases[node.value.id]}.{node.attr}")


    def _add(self, target: str, name: str, at_top: bool) -> None:
        if target and target != name:
            self.modules[target] = self.modules.get(target, False) or at_top


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (imports for type checkers)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return out


def _is_private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def read_imports(package: Path = PACKAGE) -> dict[str, Imports]:
    modules = module_files(package)
    return {name: Imports(name, path, modules) for name, path in modules.items()}


@functools.cache
def package_imports() -> dict[str, Imports]:
    """read_imports() of the package, read once for the tests below (none changes it)."""
    return read_imports()


def import_circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        circles.append(group)
    return circles


def _write_package(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "pkg"
    pkg.mkdir()
    for name, text in {"__init__.py": "", **files}.items():
        (pkg / name).parent.mkdir(exist_ok=True)
        (pkg / name).write_text(text)
    return pkg


def test_the_checker_finds_a_circle_through_a_function_level_import(tmp_path):
    pkg = _write_package(tmp_path, {
        "a.py": "from .b import f\n",
        "b.py": "import os\n\ndef f():\n    from . import c\n",
        "c.py": "from pkg.a import f\n",
        "d.py": "from . import a\n",
        "sub/__init__.py": "from . import x\n",
        "sub/x.py": "def f():\n    pass\n",
        "e.py": "from .sub.x import f\n",  # runs sub/__init__.py too
    })
    found = read_imports(pkg)
    assert import_circles({n: set(i.modules) for n, i in found.items()}) == [
        {"pkg.a", "pkg.b", "pkg.c"}]
    top = {n: {m for m, at_top in i.modules.items() if at_top} for n, i in found.items()}
    assert import_circles(top) == []
    assert set(found["pkg.e"].modules) == {"pkg.sub", "pkg.sub.x"}
    assert set(found["pkg.sub.x"].modules) == set()  # inside sub: no edge to its own package


def test_the_checker_sees_pygit2_and_private_reach_ins(tmp_path):
    pkg = _write_package(tmp_path, {
        "a.py": "def _own():\n    pass\n\ndef public():\n    _own()\n",
        "b.py": "from .a import _own, public\n",
        "c.py": "from . import a as m\n\ndef f():\n    return m._own, m.public\n",
        "d.py": "def f():\n    from pygit2 import Oid\n",
        "e.py": "import pygit2.enums\nfrom .a import public\n",
    })
    found = read_imports(pkg)
    assert {n: i.private for n, i in found.items() if i.private} == {
        "pkg.b": ["from pkg.a import _own"], "pkg.c": ["pkg.a._own"]}
    assert sorted(n for n, i in found.items() if i.pygit2) == ["pkg.d", "pkg.e"]


def test_no_import_circles():
    graph = {n: set(i.modules) for n, i in package_imports().items()}
    assert import_circles(graph) == [], "import circles (an import inside a function counts)"


def test_the_real_graph_holds_imports_inside_functions():
    # the checker is not blind to the package's own lazy imports (undo's write)
    assert package_imports()["git_aiapply.workflows.undo_last"].modules["git_aiapply.git.take_back"] is False


def test_no_module_over_700_lines():
    too_long = {name: n for name, path in module_files().items()
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert too_long == {}, f"modules over {MAX_LINES} lines (split them by concept)"


def test_pygit2_only_in_the_git_layer():
    outside = sorted(n for n, i in package_imports().items() if i.pygit2
                     and not n.startswith("git_aiapply.git.") and n not in PYGIT2_OUTSIDE_GIT)
    assert outside == []


def test_no_reach_into_another_modules_private_names():
    reach_ins = {n: i.private for n, i in package_imports().items() if i.private}
    assert reach_ins == {}


def test_no_module_is_named_like_a_library_function():
    import git_aiapply

    # only the package's own submodules bind a name on it when imported
    children = {n.split(".")[1] for n in module_files() if n.count(".") >= 1}
    shadowed = sorted(set(git_aiapply.__all__) & children)
    assert shadowed == []


def test_every_error_kind_written_is_declared():
    """``kind=`` / ``error_kind=`` literals (ApplyError, FatalError, Outcome) name members
    of errors.ErrorKind, the one list docs/JSON.md documents."""
    from git_aiapply.errors import ErrorKind

    declared = {k.value for k in ErrorKind}
    used = {}
    for name, path in module_files().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = getattr(node.func, "id", getattr(node.func, "attr", ""))
            values = [k.value for k in node.keywords
                      if (k.arg == "error_kind" or (k.arg == "kind" and func in (
                          "ApplyError", "FatalError"))) and isinstance(k.value, ast.Constant)]
            if func in ("ApplyError", "FatalError") and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant):
                values.append(node.args[1])
            for v in values:
                used.setdefault(v.value, name)
    assert set(used) - declared == set()
    json_doc = (PACKAGE.parent / "docs" / "JSON.md").read_text(encoding="utf-8")
    assert [k for k in declared if f"`{k}`" not in json_doc] == []


def test_a_cut_off_answer_is_the_responses_fault():
    from git_aiapply.errors import ErrorKind, fault_of

    assert fault_of(ErrorKind.TRUNCATED) == fault_of("parse") == "response"
    assert fault_of("config") == fault_of("lock") == "repository"
    assert fault_of("message") == "usage" and fault_of(None) is None


# --------------------------------------------------------------------------- layers


def test_the_checker_sees_layer_breaches_but_not_type_checking_imports(tmp_path):
    pkg = _write_package(tmp_path, {
        "core.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .reader import R\n",
        "core2.py": "def f():\n    from . import reader\n",
        "reader.py": "import click\nfrom .core import f\n",
        "cmd/__init__.py": "", "cmd/x.py": "import click.testing\n",
    })
    found = read_imports(pkg)
    assert layer_breaches(found, {"pkg.core", "pkg.core2"}, {"pkg.reader"}) == [
        ("pkg.core2", "pkg.reader")]
    assert "pkg.reader" in found["pkg.core"].modules  # still seen by the circle check
    assert sorted(n for n, i in found.items() if "click" in i.outside) == ["pkg.cmd.x",
                                                                          "pkg.reader"]
    assert in_layer("pkg.cmd.x", {"pkg.cmd."}) and not in_layer("pkg.cmdx", {"pkg.cmd."})
    (pkg / "w.py").write_text("def f(repo, self):\n    return repo.repo, self.repo.repo.x\n"
                              "def g(self):\n    return self.repo.workdir\n")
    assert repo_attribute_uses(pkg / "w.py") == [2, 2]


def test_the_stages_are_the_packages_on_disk():
    # a stage is a package; a new stage package gets its place in STAGES (and a line in the
    # README's layout section, and tests/<stage>/)
    on_disk = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert on_disk - {"examples"} == set(STAGES)
    assert [m for m in BASES if not (PACKAGE / f"{m}.py").is_file()] == []


def test_every_module_lives_in_a_stage_or_is_a_shared_base():
    for name in module_files():
        stage_of(name)  # raises for a module in no stage
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_the_checker_ranks_stages_and_reads_open_modules(tmp_path):
    assert rank("cli") > rank("doors") > rank("run") > rank("plan") > rank("message") > 0
    assert stage_of("git_aiapply.locate.matching") == "locate"
    assert stage_of("git_aiapply.text") == "base" and stage_of("git_aiapply") is None
    pkg = _write_package(tmp_path, {"s/__init__.py": '"""A stage."""\n\nOPEN_MODULES = ("a",)\n'})
    assert open_modules("s", pkg) == {"pkg.s.a", "pkg.s"}


def upward_imports(imports: dict) -> list[tuple[str, str]]:
    """(module, what it imports) where the import points up the order of the stages."""
    out = []
    for name, i in imports.items():
        here = stage_of(name)
        if here is None:
            continue
        for target in i.runtime:
            there = stage_of(target)
            if there is None or rank(there) > rank(here):
                out.append((name, target))
    return sorted(out)


def test_imports_point_down_the_stages():
    assert upward_imports(package_imports()) == []


def test_a_stage_imports_only_the_open_modules_of_another():
    opened = {s: open_modules(s) for s in STAGES}
    closed = sorted((name, target) for name, i in package_imports().items()
                    for target in i.runtime
                    if (there := stage_of(target)) not in (None, "base", stage_of(name))
                    and target not in opened[there])
    assert closed == [], "name the module in its stage's OPEN_MODULES, or keep it inside"


def test_every_stage_says_what_it_does():
    for stage in STAGES:
        doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text()))
        assert doc and len(doc.split(".")[0]) > 30, stage


def test_the_core_imports_neither_git_nor_the_run_nor_a_front_door():
    core = {f"git_aiapply.{s}." for s in CORE_STAGES} | {f"git_aiapply.{s}" for s in CORE_STAGES}
    above = {f"git_aiapply.{s}." for s in ("git", "run", "doors", "cli")}
    assert layer_breaches(package_imports(), core, above) == []


# modules of the stages above the core that are pure all the same (plain functions of text
# and trees, tested without a repository): they keep the core's rule
PURE_ABOVE_THE_CORE = {"git_aiapply.run.diffstat", "git_aiapply.run.limits",
                       "git_aiapply.run.options", "git_aiapply.run.term",
                       "git_aiapply.threeway.drift"}


def test_the_pure_modules_above_the_core_stay_pure():
    imports = package_imports()
    assert [m for m in PURE_ABOVE_THE_CORE if m not in imports] == []
    above = {f"git_aiapply.{s}." for s in ("git", "answer", "workflows", "doors", "cli")} | {
        "git_aiapply.run.pipeline", "git_aiapply.run.prepare", "git_aiapply.run.inputs",
        "git_aiapply.threeway.repo"}
    assert layer_breaches(imports, PURE_ABOVE_THE_CORE, above) == []


def test_click_only_in_the_command_line():
    """Click code lives in cli/ (app.py and commands/, one module per subcommand); the
    stages below hold plain functions those commands call (main.py and startup.py parse
    without it, for start-up time)."""
    assert sorted(n for n, i in package_imports().items()
                  if "click" in i.outside and not n.startswith("git_aiapply.cli.")) == []


# --------------------------------------------------------------------------- tests mirror

TESTS = Path(__file__).resolve().parent
# at tests/ itself: what crosses every layer (tests/README.md), besides the bases' own tests
CROSSING = {"test_architecture", "test_bench_smoke", "test_cases", "test_complexity",
            "test_crash_safety", "test_e2e_apply", "test_front_doors", "test_hostile_content",
            "test_hostile_paths", "test_like_git", "test_packaging", "test_properties",
            "test_races", "test_signals", "test_typing", "test_git_conventions"}


def mirror_of(module: str) -> tuple[Path, str]:
    """Where the tests of a dotted module name live, and the name they start with."""
    parts = module.split(".")[1:]
    if parts[:2] == ["cli", "commands"]:
        return TESTS / "cli" / "commands", f"test_{parts[-1]}_command"
    return TESTS.joinpath(*parts[:-1]), f"test_{parts[-1]}"


def test_every_stage_has_its_test_folder_and_every_module_its_test_file():
    assert [s for s in STAGES if not (TESTS / s).is_dir()] == []
    untested = []
    for name, path in module_files().items():
        if path.name in ("__init__.py", "__main__.py") or stage_of(name) is None:
            continue
        folder, stem = mirror_of(name)
        if not (folder / f"{stem}.py").is_file() and not list(folder.glob(f"{stem}_*.py")):
            untested.append(f"{name} -> {folder.relative_to(TESTS.parent)}/{stem}.py")
    assert untested == []


def test_every_test_file_in_a_stage_folder_names_a_module_of_that_stage():
    # test_<module>.py or test_<module>_<topic>.py (test_<stage>_... for the package's own
    # __init__), so that a module's tests are found in one guess
    stray = []
    for path in sorted(TESTS.glob("*/**/test_*.py")):
        folder = path.parent.relative_to(TESTS)
        package = PACKAGE.joinpath(*folder.parts)
        if folder.parts[:2] == ("cli", "commands"):
            stems = {f"test_{m.stem}_command" for m in package.glob("*.py")}
        else:
            stems = {f"test_{m.stem}" for m in package.glob("*.py") if m.stem != "__init__"}
            stems.add(f"test_{folder.parts[-1]}")
        if not package.is_dir() or not any(
                path.stem == s or path.stem.startswith(f"{s}_") for s in stems):
            stray.append(str(path.relative_to(TESTS)))
    assert stray == [], "name it test_<module>[_<topic>].py after the module it tests"


def test_only_crossing_tests_and_the_bases_tests_sit_at_the_top_of_tests():
    stray = sorted(p.stem for p in TESTS.glob("test_*.py") if p.stem not in CROSSING
                   and not any(p.stem == f"test_{b}" or p.stem.startswith(f"test_{b}_")
                               for b in BASES))
    assert stray == [], "move it to tests/<stage>/ (tests/README.md)"


def test_no_module_outside_git_takes_the_pygit2_repository_from_repo():
    users = {n for n, path in module_files().items()
             if not n.startswith("git_aiapply.git.") and repo_attribute_uses(path)}
    assert users == set(), \
        "call a function of git/ that returns plain values instead"


def unused_functions(files: dict[str, Path]) -> list[str]:
    """Top-level functions and classes no module of the package names besides their own
    definition (decorated ones register themselves: click commands, records)."""
    import re
    from collections import Counter

    texts = {n: p.read_text(encoding="utf-8") for n, p in files.items()}
    # every word of every module counted once, in one pass (a search per name over the
    # whole package took most of the suite's time)
    words = Counter(re.findall(r"\w+", "\n".join(texts.values())))
    out = []
    for name, text in texts.items():
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.decorator_list \
                    and not node.name.startswith("__") and words[node.name] <= 1:
                out.append(f"{name}.{node.name}")
    return sorted(out)


def test_the_checker_finds_a_function_nothing_uses(tmp_path):
    pkg = _write_package(tmp_path, {"a.py": "def used():\n    pass\n\ndef only_tests():\n    pass\n",
                                    "b.py": "from .a import used\n"})
    assert unused_functions(module_files(pkg)) == ["pkg.a.only_tests"]


def test_no_function_of_the_package_is_there_only_for_the_tests():
    assert unused_functions(module_files()) == [], "move it to the tests, or remove it"
