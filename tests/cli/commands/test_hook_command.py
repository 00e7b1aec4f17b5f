"""cli/commands/hook.py: `git ai-apply hook guard` (the staged changes, or FILES, each with
its own attributes and wording) and `hook commit-msg FILE` (git's comment character, the
wording for the tool's commits and for people's, an unreadable file), run directly and as
`python -m git_aiapply.cli.commands.hook`."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import GitRepo

TRAILERS = "AI-Format: unified-diff\nAI-Response: 0123456789abcdef\n"


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.py", "x = 1\n")
    repo.commit_all("base")
    return repo


def test_guard_staged_changes_or_files_each_with_its_attributes(based: GitRepo):
    based.write("leak.py", "ok\n>>>>>>> REPLACE\n")
    based.git("add", "leak.py")
    r = based.run("hook", "guard")
    assert r.returncode == 1 and r.out == ""
    assert r.err.startswith("ai-apply guard: the staged changes add leftover edit markup")
    assert "leak.py:2: >>>>>>> REPLACE" in r.err
    r = based.run("hook", "guard", "leak.py")
    assert r.returncode == 1 and r.out == ""
    assert "these files hold leftover edit markup" in r.err.splitlines()[0]
    assert "leak.py:2: >>>>>>> REPLACE" in r.err
    # an exemption in the worktree's .gitattributes: FILES are judged by the worktree, the
    # staged changes by what is staged (as git commits them)
    based.write(".gitattributes", "leak.py -ai-apply-guard\n")
    assert based.run("hook", "guard", "leak.py").returncode == 0
    assert based.run("hook", "guard").returncode == 1
    based.git("add", ".gitattributes")
    r = based.run("hook", "guard")
    assert (r.returncode, r.out, r.err) == (0, "", "")


def test_guard_of_files_says_these_files_hold(based: GitRepo):
    based.write("leak.py", "*** End Patch\n")
    r = based.run("hook", "guard", "leak.py")
    assert r.returncode == 1
    assert r.err.startswith("ai-apply guard: these files hold leftover edit markup")


def test_commit_msg_reads_past_gits_comment_lines(based: GitRepo, tmp_path):
    """The message file of a commit-msg hook still holds git's comments, in
    core.commentChar."""
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(f"Fix it\n\n{TRAILERS}; Please enter the commit message.\n; Lines starting "
                   "with ';' will be ignored.\n")
    env = dict(based.env, GIT_AI_APPLY="1")
    based.git("config", "core.commentChar", ";")
    r = based.run("hook", "commit-msg", str(msg), env=env)
    assert (r.returncode, r.out, r.err) == (0, "", "")
    for char in ("#", "auto"):  # '#': the ';' lines are the message's own
        based.git("config", "core.commentChar", char)
        r = based.run("hook", "commit-msg", str(msg), env=env)
        assert r.returncode == 1, char
        assert "the AI-Response trailer is missing" in r.err


def test_commit_msg_words_for_the_tools_commits_and_for_peoples(based: GitRepo, tmp_path):
    msg = tmp_path / "msg"
    msg.write_text("By hand\n\nAI-Response: nothex\n")
    r = based.run("hook", "commit-msg", str(msg))
    assert r.returncode == 1 and r.out == ""
    first, second = r.err.splitlines()[:2]
    assert first == ("ai-apply commit-msg check: AI-Response: 'nothex' is not 16 lowercase "
                     "hex digits.")
    assert second.startswith("The commit message must end with the trailers git ai-apply writes")
    r = based.run("hook", "commit-msg", str(msg), env=dict(based.env, GIT_AI_APPLY="1"))
    assert r.returncode == 1
    assert r.err.splitlines()[0] == ("ai-apply commit-msg check: the AI-Format trailer is "
                                     "missing; AI-Response: 'nothex' is not 16 lowercase hex "
                                     "digits.")
    assert "This commit is made by git ai-apply, so its message must end" in r.err
    msg.write_text("By hand, no trailers\n")
    assert based.run("hook", "commit-msg", str(msg)).returncode == 0  # people need none


def test_commit_msg_of_an_unreadable_file_is_a_usage_error(based: GitRepo, tmp_path):
    missing = tmp_path / "gone"
    r = based.run("hook", "commit-msg", str(missing))
    assert r.returncode == 2 and r.out == ""
    assert r.err == f"usage error: cannot read {missing}: No such file or directory\n"
    r = based.run("hook", "commit-msg")
    assert r.returncode == 2 and "Missing argument 'MESSAGE_FILE'" in r.err


def _as_module(repo: GitRepo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "git_aiapply.cli.commands.hook", *args],
                          cwd=repo.root, env=repo.env, capture_output=True, text=True)


def test_run_as_a_module_the_guard_checks_the_staged_changes(based: GitRepo):
    assert _as_module(based, "guard").returncode == 0
    based.write("leak.py", "<<<<<<< SEARCH\n")
    based.git("add", "leak.py")
    r = _as_module(based, "guard")
    assert r.returncode == 1 and "leak.py:1: <<<<<<< SEARCH" in r.stderr


def test_run_as_a_module_an_unreadable_file_is_a_usage_error(based: GitRepo, tmp_path):
    r = _as_module(based, "commit-msg", str(tmp_path / "gone"))
    assert "Traceback" not in r.stderr
    assert r.returncode == 2 and r.stderr.startswith("usage error: cannot read ")
