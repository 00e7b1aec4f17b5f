"""The library is typed (issue 25): it ships ``py.typed``, its public API passes
``mypy --strict``, a program using it as docs/API.md shows type-checks (tests/
typing_consumer.py), and a program misusing it is told so by the checker.  Plus the fixes
the annotations brought: a folder given to ``show(rev=...)``, a ``repo`` of a wrong type,
``Session`` as a context manager."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import typing
from pathlib import Path

import pytest

import git_aiapply
from git_aiapply import api_types
from git_aiapply.doors import api
from conftest import LOUDER_BETA, GitRepo

ROOT = Path(__file__).resolve().parent.parent
# the public API's modules, checked strictly; the rest of the package is read, not reported
STRICT_FILES = ["git_aiapply/__init__.py", "git_aiapply/doors/api.py", "git_aiapply/errors.py",
                "git_aiapply/api_types.py", "git_aiapply/doors/batch.py",
                "tests/typing_consumer.py"]

# A program misusing the library: each line marked `# E: CODE` must be an error of that
# code, and no other line may be one (the checker really sees the types: no `Any` leak).
MISUSE = '''\
import git_aiapply

git_aiapply.apply("x", chek=True)  # E: call-arg
git_aiapply.apply("x", check="yes")  # E: arg-type
git_aiapply.apply(42)  # E: arg-type
git_aiapply.apply("x", repo=3)  # E: arg-type
git_aiapply.apply("x").comit  # E: attr-defined
git_aiapply.aply("x")  # E: attr-defined
git_aiapply.parse("x", branch="b")  # E: call-arg
shown: int = git_aiapply.show("a.txt")  # E: assignment
git_aiapply.Session(".").check("x", max_bytes="10")  # E: arg-type
git_aiapply.Result.from_json({}).files[0].added + "x"  # E: operator
git_aiapply.apply("x").status = "applied"  # E: misc
git_aiapply.apply("x").status == "refuse"  # E: comparison-overlap
ok: bool = git_aiapply.apply(b"x", ".", include=["a", "b"], sign=None).ok
git_aiapply.batch([{"id": 1, "response": "x"}], workers="2")  # E: arg-type
diffs: list[str] = [r.diff for r in git_aiapply.batch("jobs.jsonl", repo=".")]
from git_aiapply import *
starred: Result = apply("x", repo=session("."))
'''


def _mypy(*files: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--python-version", "3.11", "--cache-dir", str(cache), "--no-color-output",
         "--show-error-codes", "--no-error-summary", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=120)


def _errors(output: str) -> list[tuple[str, int, str]]:
    """(file, line, code) of each `file:line: error: ... [code]` line."""
    return [(m[1], int(m[2]), m[3]) for m in
            re.finditer(r"^(.+?):(\d+): error: .*\[([a-z-]+)\]$", output, re.M)]


def test_mypy_strict_passes_on_the_public_api_and_flags_misuse(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install '.[test]')")
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    expected = {(n, m[1]) for n, line in enumerate(MISUSE.splitlines(), 1)
                if (m := re.search(r"# E: ([a-z-]+)$", line))}
    r = _mypy(*STRICT_FILES, str(misuse), cache=tmp_path / "cache")
    found = _errors(r.stdout)
    assert [e for e in found if e[0] != str(misuse)] == [], r.stdout  # the package's own
    assert {(line, code) for _, line, code in found if _ == str(misuse)} == expected, r.stdout
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr


def test_py_typed_is_shipped_and_mypy_is_a_test_dependency():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "git_aiapply" in config["tool"]["setuptools"]["packages"]
    # a regular install ships only the package data listed here (tests/test_packaging.py)
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["git_aiapply"]
    assert (ROOT / "git_aiapply" / "py.typed").is_file()
    assert any(re.match(r"mypy\b", req) for req in config["project"]["optional-dependencies"]["test"])


def test_a_regular_build_ships_py_typed(tmp_path):
    # what `pip install .` copies: setuptools' build_py on a copy of the source (it writes
    # an egg-info beside pyproject.toml); an editable install would hide an omission
    pytest.importorskip("setuptools", reason="setuptools is not installed")
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("git_aiapply", "hooks"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "docs/git-ai-apply.1"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, src / name)
    out = tmp_path / "build"
    r = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                        "build_py", "--build-lib", str(out)], cwd=src, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (out / "git_aiapply" / "py.typed").is_file()
    assert (out / "git_aiapply" / "api_types.py").is_file()


def test_all_names_every_lazy_export():
    assert git_aiapply.__all__ == sorted(git_aiapply._EXPORTS)
    assert all(getattr(git_aiapply, name) is not None for name in git_aiapply.__all__)


def test_the_status_and_fault_types_hold_every_value():
    from git_aiapply.errors import ErrorKind, fault_of
    from git_aiapply.run.pipeline import Status

    assert set(typing.get_args(api_types.Status)) == {s.value for s in Status}
    faults = {fault_of(kind) for kind in ErrorKind} | {fault_of("a kind added later")}
    assert faults == set(typing.get_args(api_types.Fault))


def test_the_option_types_are_the_options_the_library_checks():
    hints = typing.get_type_hints(api_types.ApplyOptions)
    assert set(hints) == set(api.OPTION_NAMES)
    assert set(typing.get_type_hints(api_types.PathOptions)) == set(api.PATH_OPTIONS)
    for name, (kind, _flag) in api._OPTION_TYPES.items():
        if isinstance(kind, type):  # the patterns are a str or a list of them, not a type
            assert hints[name] == kind | None, name
    for name in ("include", "exclude"):
        assert set(typing.get_args(hints[name])) == {str, list[str], tuple[str, ...], type(None)}


def test_the_typed_modules_do_not_import_typing_at_run_time():
    # `import git_aiapply` and the serve path's api/errors stay off `typing` (start-up time)
    code = ("import sys, git_aiapply, git_aiapply.errors, git_aiapply.doors.api\n"
            "print('typing' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- what the types found


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def test_show_at_a_revision_refuses_a_folder_as_a_usage_error(base: GitRepo):
    # a tree entry that is no blob (a folder, a submodule) was an AttributeError
    with pytest.raises(git_aiapply.UsageError, match=r"^src is not a file in HEAD$"):
        git_aiapply.show("src", repo=base.root, rev="HEAD")
    r = base.run("show", "--rev", "HEAD", "src")
    assert r.returncode == 2 and "src is not a file in HEAD" in r.err
    assert "internal error" not in r.err


@pytest.mark.parametrize("repo", [42, None, ["."]])
def test_a_repo_of_another_type_is_a_bad_call(repo):
    with pytest.raises(git_aiapply.InvalidOptions, match="repo must be a folder"):
        git_aiapply.apply("text", repo=repo)


def test_a_session_is_a_context_manager_and_usable_after_close(base: GitRepo):
    with git_aiapply.Session(base.root) as session:
        assert session.check(LOUDER_BETA).status == "would-apply"
    assert session.repo.index_cache is not None and session.repo.index_cache.peek(
        str(base.root / ".git" / "index")) is None  # the warm index was dropped
    result = session.apply(LOUDER_BETA)
    assert result.status == "applied" and result.commit == base.head()
