"""The entry point: the click-free parser of `git ai-apply [OPTIONS] RESPONSE...` and the
click command line are built from one option table and must agree; the package has no
import circles; click stays off the plain-apply path."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

from git_aiapply.cli import app as cli
from git_aiapply.run import options
from git_aiapply.cli.commands import SUBCOMMANDS
from git_aiapply.run.options import APPLY_DEFAULTS, APPLY_OPTIONS, parse_apply_args

WORDS = set(SUBCOMMANDS) | {"apply"}
PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "git_aiapply")


def parse(argv):
    return parse_apply_args(argv, WORDS)


def test_click_command_is_built_from_the_table():
    params = {p.name for p in cli.apply_cmd.params}
    table = {o.dest for o in APPLY_OPTIONS} | {"responses"}
    assert params == table
    click_names = {}
    for p in cli.apply_cmd.params:
        if p.name == "responses":
            continue
        for opt in p.opts + p.secondary_opts:
            click_names[opt] = p.name
    assert click_names == {name: o.dest for o in APPLY_OPTIONS for name in o.names}


def test_every_subcommand_is_registered_and_loads():
    ctx = cli.main.make_context("git ai-apply", ["x"], resilient_parsing=True)
    listed = set(cli.main.list_commands(ctx))
    assert listed == WORDS
    for name in SUBCOMMANDS:
        assert cli.main.get_command(ctx, name).name == name


@pytest.mark.parametrize("argv,expected", [
    ([], {}),
    (["r.md"], {"responses": ("r.md",)}),
    (["-"], {"responses": ("-",)}),
    (["--check", "--json", "a.md", "b.md"], {"check": True, "as_json": True, "responses": ("a.md", "b.md")}),
    (["-m", "one", "--message=two", "r.md"], {"messages": ("one", "two"), "responses": ("r.md",)}),
    (["-mone", "r.md"], {"messages": ("one",), "responses": ("r.md",)}),
    (["--format", "hashline", "r.md"], {"fmt": "hashline", "responses": ("r.md",)}),
    (["--branch=try/{n}", "--base", "HEAD~1"], {"branch": "try/{n}", "base": "HEAD~1"}),
    (["-S"], {"gpg_sign": True}),
    (["--no-gpg-sign"], {"gpg_sign": False}),
    (["--max-bytes", "100"], {"max_bytes": 100}),
    (["-q", "-s", "-n", "-e"], {"quiet": True, "signoff": True, "no_verify": True, "edit": True}),
    (["-p1", "--directory", "sub"], {"strip": 1, "directory": "sub"}),
    (["-p", "2"], {"strip": 2}),
    (["--stat", "--numstat", "--summary"], {"stat": True, "numstat": True, "summary": True}),
    (["--author", "A <a@x>", "--date=2005-04-07T22:13:13"], {"author": "A <a@x>", "date": "2005-04-07T22:13:13"}),
    (["--include", "a*", "--exclude=b*", "--include", "c*"],
     {"include": ("a*", "c*"), "exclude": ("b*",),
      "limits": (("include", "a*"), ("exclude", "b*"), ("include", "c*"))}),
    (["--", "--check"], {"responses": ("--check",)}),
])
def test_fast_parse_and_click_agree(argv, expected):
    want = dict(APPLY_DEFAULTS)
    want.update(expected)
    assert parse(argv) == want
    # click, given the same words, hands the apply command the same parameters
    ctx = cli.apply_cmd.make_context("apply", list(argv))
    got = dict(ctx.params)
    got.update(options.ordered_values(got, ctx.meta.get("aiapply.order", [])))
    assert got == want


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--version"], ["show", "x"], ["apply", "r.md"], ["demo"],
    ["--bogus"], ["-qs", "r.md"], ["--max-bytes", "ten"], ["--check=yes"], ["-m"], ["-pX"],
])
def test_fast_parse_defers_to_click(argv):
    assert parse(argv) is None


def test_apply_path_does_not_import_click(tmp_path):
    # -X importtime names every module imported, up to the run's very end (the run ends
    # with os._exit: no atexit hook would be called)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "r.md").write_text("```diff\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n```\n")
    code = ("import sys; sys.argv = ['git-ai-apply', '--check', 'r.md'];"
            "from git_aiapply.cli import main; main.run()")
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=tmp_path,
                       capture_output=True, text=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()
                if line.startswith("import time:")]
    assert r.returncode == 0, r.stderr[-2000:]
    assert "git_aiapply.cli.commands.apply" in imported and "git_aiapply.plan.plan" in imported
    assert "click" not in imported
    # what a plain --check never uses stays unloaded (a top-level import added for a
    # helper moved dates.py onto this path once): the pager, date parsing, the click
    # command line, the workflows and the front doors for programs
    off_path = ("git_aiapply.cli.pager", "git_aiapply.dates", "git_aiapply.cli.app",
                "git_aiapply.workflows", "git_aiapply.doors")
    assert [m for m in imported if m.startswith(off_path)] == []


@pytest.mark.parametrize("count, enabled", [(1, False), (2, True)])
def test_collector_off_for_one_response_on_for_a_batch(tmp_path, count, enabled):
    """One response: the cyclic collector is off (the process ends after it); several:
    on, so a long batch frees each run's cycles."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    names = []
    for k in range(count):
        (tmp_path / f"r{k}.md").write_text(f"```diff\n--- /dev/null\n+++ b/new{k}.txt\n"
                                           f"@@ -0,0 +1 @@\n+new\n```\n")
        names.append(f"r{k}.md")
    code = ("import gc, sys; sys.argv = ['git-ai-apply', '--check'] + sys.argv[1:];"
            "import git_aiapply.cli.commands.apply as A; real = A._apply_each\n"
            "def spy(*a, **k):\n    sys.stderr.write(f'GC={gc.isenabled()}\\n'); return real(*a, **k)\n"
            "A._apply_each = spy\nfrom git_aiapply.cli import main; main.run()")
    r = subprocess.run([sys.executable, "-c", code, *names], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"GC={enabled}" in r.stderr


def test_bare_serve_does_not_import_click_and_serve_help_does(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    request = json.dumps({"response": "```diff\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n"
                                      "+new\n```\n", "options": {"check": True}}) + "\n"
    code = ("import sys; sys.argv = ['git-ai-apply'] + sys.argv[1:];"
            "from git_aiapply.cli import main; main.run()")
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code, "serve"], cwd=tmp_path,
                       input=request, capture_output=True, text=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()
                if line.startswith("import time:")]
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["status"] == "would-apply"
    assert "git_aiapply.doors.serve" in imported and "click" not in imported
    r = subprocess.run([sys.executable, "-c", code, "serve", "--help"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0 and "JSON lines" in r.stdout
    # outside a repository: git's fatal and exit 128, before any request is read
    outside = tmp_path / "outside"
    outside.mkdir()
    r = subprocess.run([sys.executable, "-c", code, "serve"], cwd=outside, input=request,
                       capture_output=True, text=True,
                       env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert r.returncode == 128 and r.stderr.startswith("fatal: not a git repository")
    assert r.stdout == ""


def _imports(path: str, package: str) -> set[str]:
    """The package modules ``path`` imports, at module level or inside functions."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")
            if node.level > 1:
                base = base[:-(node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
            if node.module:
                out.add(mod)
            else:  # `from . import x`: the module x; its package is already initialised
                out.update(mod + "." + a.name for a in node.names)
    return out


def test_entry_point_and_commands_have_no_import_circle():
    """main -> cli -> commands, never back (issue: cli.py <-> main.py)."""
    root = os.path.abspath(PACKAGE)
    graph = {}
    for folder, _dirs, files in os.walk(root):
        for f in files:
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(root))
            mod = rel[:-3].replace(os.sep, ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
                package = mod
            else:
                package = mod.rsplit(".", 1)[0]
            graph[mod] = _imports(os.path.join(folder, f), package)
    mine = ["git_aiapply.cli.main", "git_aiapply.cli.app", "git_aiapply.run.options", "git_aiapply.run.term",
            "git_aiapply.run.inputs", "git_aiapply.run.diffstat", "git_aiapply.run.limits",
            "git_aiapply.plan.overlay"] + [m for m in graph if m.startswith("git_aiapply.cli.commands")]

    def reaches(start, target, seen):
        for dep in graph.get(start, ()):
            if dep == target:
                return True
            if dep in graph and dep not in seen:
                seen.add(dep)
                if reaches(dep, target, seen):
                    return True
        return False

    for m in mine:
        assert not reaches(m, m, set()), f"{m} imports itself through a circle"
    assert not reaches("git_aiapply.cli.app", "git_aiapply.cli.main", set())


def test_ctrl_c_while_the_early_index_module_is_still_importing_says_nothing_was_changed():
    # SIGINT can land while git/early_index.py runs: the module is in sys.modules without
    # its functions yet (test_signals found it as a traceback, by chance of timing)
    code = ("import sys, types; sys.modules['git_aiapply.git.early_index'] = types.ModuleType('m')\n"
            "from git_aiapply.cli.main import _interrupted_at_start; _interrupted_at_start()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (130, "interrupted; nothing was changed\n")
