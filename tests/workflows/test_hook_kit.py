"""The hook kit (`git ai-apply install-hooks`, hooks/, .pre-commit-hooks.yaml): installed
into real repositories and run by real `git commit` and by `git ai-apply`."""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import AI_APPLY, GitRepo, LOUDER_BETA
from git_aiapply.workflows.hook_kit import render_findings, scan_line

ROOT = Path(__file__).resolve().parents[2]

RESPONSE = LOUDER_BETA


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    return repo


def git_commit(repo: GitRepo, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    r = subprocess.run(["git", "commit", "-q", *args], cwd=repo.root, env=env or repo.env,
                       capture_output=True, text=True)
    return r


def install(repo: GitRepo, *args: str) -> subprocess.CompletedProcess:
    r = repo.run("install-hooks", *args)
    assert "Traceback" not in r.err
    return r


# --------------------------------------------------------------------------- install


def test_install_writes_executable_kit_hooks(based: GitRepo):
    r = install(based)
    assert r.returncode == 0, r.err
    hooks = based.root / ".git" / "hooks"
    for name in ("pre-commit", "commit-msg"):
        p = hooks / name
        assert p.stat().st_mode & stat.S_IXUSR
        text = p.read_text()
        assert "git-ai-apply hook kit" in text
        # the hook finds this installation even when git-ai-apply is not on PATH
        m = re.search(r"^AI_APPLY_PYTHON=(.+)$", text, re.M)
        assert m and m.group(1).strip("'") == os.path.join(os.path.dirname(AI_APPLY[0]), "python") \
            or m.group(1).strip("'").startswith(os.path.dirname(AI_APPLY[0]))
        assert f"installed .git/hooks/{name}" in r.out


def test_installed_hooks_work_without_the_tool_on_path(based: GitRepo):
    assert install(based).returncode == 0
    env = dict(based.env, PATH="/usr/bin:/bin")
    based.write("src/c.txt", "<<<<<<< SEARCH\n")
    based.git("add", "src/c.txt")
    r = git_commit(based, "-m", "c", env=env)
    assert r.returncode == 1
    assert "src/c.txt:1: <<<<<<< SEARCH" in r.stderr


def test_existing_hook_is_chained_and_restored(based: GitRepo, tmp_path: Path):
    hooks = based.root / ".git" / "hooks"
    mark = tmp_path / "mark"
    old = "#!/bin/sh\necho old >> \"$MARK\"\nexit \"${OLD_EXIT:-0}\"\n"
    (hooks / "pre-commit").write_text(old)
    os.chmod(hooks / "pre-commit", 0o750)
    r = install(based)
    assert r.returncode == 0, r.err
    assert "kept as pre-commit.before-ai-apply" in r.out
    assert (hooks / "pre-commit.before-ai-apply").read_text() == old
    env = dict(based.env, MARK=str(mark))
    based.write("src/c.txt", "fine\n")
    based.git("add", "src/c.txt")
    assert git_commit(based, "-m", "c", env=env).returncode == 0
    assert mark.read_text() == "old\n"
    # the chained hook still decides
    based.write("src/d.txt", "fine\n")
    based.git("add", "src/d.txt")
    assert git_commit(based, "-m", "d", env=dict(env, OLD_EXIT="1")).returncode == 1
    # a second install updates the kit's hook and keeps the chained one
    r = install(based)
    assert "updated .git/hooks/pre-commit; pre-commit.before-ai-apply still runs first" in r.out
    assert (hooks / "pre-commit.before-ai-apply").read_text() == old
    r = install(based, "--uninstall")
    assert r.returncode == 0, r.err
    assert (hooks / "pre-commit").read_text() == old
    assert stat.S_IMODE((hooks / "pre-commit").stat().st_mode) == 0o750
    assert not (hooks / "pre-commit.before-ai-apply").exists()
    assert not (hooks / "commit-msg").exists()


def test_install_refuses_to_lose_a_hook(based: GitRepo):
    hooks = based.root / ".git" / "hooks"
    (hooks / "commit-msg").write_text("#!/bin/sh\n# mine\n")
    (hooks / "commit-msg.before-ai-apply").write_text("#!/bin/sh\n# older\n")
    r = install(based)
    assert r.returncode == 2
    assert "commit-msg.before-ai-apply is taken" in r.err
    assert (hooks / "commit-msg").read_text() == "#!/bin/sh\n# mine\n"
    assert not (hooks / "pre-commit").exists()  # all or nothing


def test_uninstall_leaves_foreign_hooks(based: GitRepo):
    hooks = based.root / ".git" / "hooks"
    (hooks / "pre-commit").write_text("#!/bin/sh\n# someone else's\n")
    r = install(based, "--uninstall", "--hook", "pre-commit")
    assert r.returncode == 0
    assert "not the kit's hook; left as it is" in r.out
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\n# someone else's\n"


def test_install_into_core_hooks_path(based: GitRepo):
    based.git("config", "core.hooksPath", "tools/hooks")
    r = based.run("install-hooks", "--hook", "commit-msg", cwd=based.root / "src")
    assert r.returncode == 0, r.err
    assert (based.root / "tools" / "hooks" / "commit-msg").exists()
    assert not (based.root / "tools" / "hooks" / "pre-commit").exists()
    assert not (based.root / ".git" / "hooks" / "commit-msg").exists()


# --------------------------------------------------------------------------- the guard


MARKUP = [
    ("<<<<<<< SEARCH", "SEARCH/REPLACE marker"),
    ("  >>>>>>> REPLACE", "SEARCH/REPLACE marker"),
    ("*** Begin Patch", "apply-patch envelope"),
    ("*** Update File: src/b.txt", "apply-patch envelope"),
    ("<FILE_CHANGES>", "<FILE_CHANGES> directive"),
    ('<FILE_PATCH file_path="x.py">', "<FILE_CHANGES> directive"),
    ("</FILE_NEW>", "<FILE_CHANGES> directive"),
    ('<CodeChange filePath="a.py">', "<CodeChange> tag"),
    ("12#ab:    return x", "hashline LINE#ID prefix"),
    ("3#ZP:x = 1", "hashline LINE#ID prefix"),
    (">+4#0f y = 2", "hashline insert"),
]

INNOCENT = [
    "x = a <<<< b",
    "==========",
    "=======",
    "# 12 items: done",
    "color = '#ab:'",
    "*** bold ***",
    "<FILE_CHANGES_ARE_GOOD>",
    "see issue #12: fixed",
    "a CodeChange object",
]


@pytest.mark.parametrize("line,what", MARKUP)
def test_guard_names_each_kind_of_markup(line: str, what: str):
    """The guard's reading of one line (the hook runs it on every added line; the test
    below commits the whole table through the installed hook)."""
    found = scan_line(line)
    assert found and what in found
    assert render_findings([("src/b.txt", 2, line, found)], staged=True).splitlines()[1] \
        == f"  src/b.txt:2: {line.strip()}    <- {found}"


def test_guard_refuses_each_kind_of_markup(based: GitRepo):
    """Every line of the table, added in one commit: the installed pre-commit hook
    refuses it and names each line, where it is, and what it is."""
    assert install(based).returncode == 0
    lines = [line for line, _what in MARKUP]
    based.write("src/b.txt", "alpha\n" + "\n".join(f"{line}\nplain {n}" for n, line
                                                   in enumerate(lines)) + "\nbeta\n")
    based.git("add", "src/b.txt")
    r = git_commit(based, "-m", "leftover")
    assert r.returncode == 1
    shown = r.stderr.splitlines()
    for n, (line, what) in enumerate(MARKUP):
        named = [s for s in shown if s.startswith(f"  src/b.txt:{2 + 2 * n}: {line.strip()}    <- ")]
        assert len(named) == 1 and what in named[0], (line, r.stderr)
    assert "plain" not in r.stderr
    assert based.git("log", "-1", "--format=%s").strip() == "base"


def test_guard_passes_ordinary_text(based: GitRepo):
    assert install(based).returncode == 0
    based.write("src/b.txt", "alpha\n" + "\n".join(INNOCENT) + "\nbeta\n")
    based.git("add", "src/b.txt")
    r = git_commit(based, "-m", "innocent")
    assert r.returncode == 0, r.stderr


def test_guard_checks_only_added_lines(based: GitRepo):
    based.write("docs/formats.md", "Example:\n<<<<<<< SEARCH\n")
    based.commit_all("documented before the kit")
    assert install(based).returncode == 0
    with open(based.root / "docs" / "formats.md", "a") as f:
        f.write("more prose\n")
    based.git("add", "docs/formats.md")
    assert git_commit(based, "-m", "prose").returncode == 0


def test_guard_exemption_by_gitattribute_and_no_verify(based: GitRepo):
    assert install(based).returncode == 0
    based.write("docs/formats.md", "*** Begin Patch\n")
    based.write("src/leak.py", "*** Begin Patch\n")
    based.write(".gitattributes", "docs/** -ai-apply-guard\n")
    based.git("add", "-A")
    r = git_commit(based, "-m", "docs")
    assert r.returncode == 1
    assert "src/leak.py:1" in r.stderr and "docs/formats.md" not in r.stderr
    based.git("rm", "-q", "--cached", "src/leak.py")
    assert git_commit(based, "-m", "docs").returncode == 0
    based.git("add", "src/leak.py")
    assert git_commit(based, "--no-verify", "-m", "forced").returncode == 0


def test_guard_on_the_first_commit_and_odd_file_names(repo: GitRepo):
    assert install(repo).returncode == 0
    repo.write("dir with space/naïve\tname.py", "ok\n<FILE_CHANGES>\n")
    repo.git("add", "-A")
    r = git_commit(repo, "-m", "root")
    assert r.returncode == 1
    assert "dir with space/naïve\tname.py:2: <FILE_CHANGES>" in r.stderr


def test_guard_refuses_an_ai_apply_response_that_leaves_markup(based: GitRepo):
    assert install(based).returncode == 0
    response = """Add notes.

<FILE_CHANGES>
<FILE_NEW file_path="notes.txt">
first
<<<<<<< SEARCH
</FILE_NEW>
</FILE_CHANGES>
"""
    before = based.snapshot()
    r = based.run(response=response)
    assert r.returncode == 1
    assert "pre-commit hook failed" in r.err
    assert "notes.txt:2: <<<<<<< SEARCH" in r.err
    assert based.snapshot() == before


def test_guard_for_the_pre_commit_framework(based: GitRepo):
    based.write("a.py", "x = 1\n")
    based.write("b.py", "ok\n*** End Patch\n")
    r = based.run("hook", "guard", "a.py")
    assert r.returncode == 0, r.err
    r = based.run("hook", "guard", "a.py", "b.py")
    assert r.returncode == 1
    assert "b.py:2: *** End Patch" in r.err
    based.write(".gitattributes", "b.py -ai-apply-guard\n")
    assert based.run("hook", "guard", "a.py", "b.py").returncode == 0


def test_pre_commit_hooks_yaml_names_the_guard():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert re.search(r"^- id: ai-apply-guard$", text, re.M)
    assert re.search(r"^  entry: git-ai-apply hook guard$", text, re.M)
    assert re.search(r"^  language: python$", text, re.M)


# --------------------------------------------------------------------------- commit-msg


def test_commit_msg_requires_trailers_on_ai_apply_commits(based: GitRepo):
    assert install(based).returncode == 0
    r = based.run("--no-trailers", response=RESPONSE)
    assert r.returncode == 1
    assert "commit-msg hook failed" in r.err
    assert "the AI-Response trailer is missing" in r.err
    assert based.git("log", "-1", "--format=%s").strip() == "base"
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err


def test_commit_msg_with_a_user_message_keeps_trailers(based: GitRepo):
    assert install(based).returncode == 0
    r = based.run("-m", "My own words", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.message().startswith("My own words\n")


def test_commit_msg_for_people(based: GitRepo):
    assert install(based).returncode == 0
    based.write("src/c.txt", "c\n")
    based.git("add", "src/c.txt")
    assert git_commit(based, "-m", "by hand").returncode == 0
    based.write("src/d.txt", "d\n")
    based.git("add", "src/d.txt")
    r = git_commit(based, "-m", "by hand\n\nAI-Response: not-an-id\nAI-Format: diff")
    assert r.returncode == 1
    assert "'not-an-id' is not 16 lowercase hex digits" in r.stderr
    assert "'diff' names no known format" in r.stderr
    r = git_commit(based, "-m", "amended\n\nAI-Format: unified-diff\nAI-Response: 0123456789abcdef")
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------- the test gate


def test_gate_runs_the_test_command_for_ai_apply_only(based: GitRepo, tmp_path: Path):
    assert install(based).returncode == 0
    # the tests must see the applied worktree, and none of the hook's git variables
    based.git("config", "aiapply.testCommand",
              'test -z "$GIT_INDEX_FILE" && grep -q BETA src/b.txt && echo "tests ran" && '
              'test ! -e "$HOME/fail"')
    (Path(based.env["HOME"]) / "fail").write_text("")
    before = based.snapshot()
    r = based.run(response=RESPONSE)
    assert r.returncode == 1
    assert "tests ran" in r.err
    assert "ai-apply test gate:" in r.err and "failed (exit 1)" in r.err
    assert based.snapshot() == before
    (Path(based.env["HOME"]) / "fail").unlink()
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "test gate:" in r.err and "passed" in r.err
    # people's commits are not gated
    based.git("config", "aiapply.testCommand", "false")
    based.write("src/c.txt", "c\n")
    based.git("add", "src/c.txt")
    assert git_commit(based, "-m", "by hand").returncode == 0


def test_gate_without_a_command_does_nothing(based: GitRepo):
    assert install(based).returncode == 0
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "test gate" not in r.err


# --------------------------------------------------------------------------- packaging


def test_hooks_folder_is_the_shipped_kit():
    """hooks/ is packaged as git_aiapply.kit; the kit's scripts are valid sh."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    st = conf["tool"]["setuptools"]
    assert "git_aiapply.kit" in st["packages"]
    assert st["package-dir"]["git_aiapply.kit"] == "hooks"
    for name in ("pre-commit", "commit-msg"):
        assert name in st["package-data"]["git_aiapply.kit"]
        path = ROOT / "hooks" / name
        assert path.read_text().startswith("#!/bin/sh\n# git-ai-apply hook kit")
        assert "AI_APPLY_PYTHON=''" in path.read_text()
        assert subprocess.run(["sh", "-n", str(path)]).returncode == 0


@pytest.mark.skipif(not os.environ.get("AI_APPLY_INSTALL_TESTS"),
                    reason="builds a virtualenv; set AI_APPLY_INSTALL_TESTS=1")
def test_kit_from_a_regular_install(based: GitRepo, tmp_path: Path):
    """`pip install .` (not editable) into a fresh venv, then the installed kit, run by
    real git commit."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    tool = str(venv / "bin" / "git-ai-apply")
    env = dict(based.env, PATH="/usr/bin:/bin")
    r = subprocess.run([tool, "install-hooks"], cwd=based.root, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    based.write("src/c.txt", "*** Begin Patch\n")
    based.git("add", "src/c.txt")
    r = git_commit(based, "-m", "c", env=env)
    assert r.returncode == 1 and "src/c.txt:1: *** Begin Patch" in r.stderr
    r = git_commit(based, "-m", "c", env=dict(env, GIT_AI_APPLY="1"))
    assert r.returncode == 1
