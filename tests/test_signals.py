"""Signals and closed pipes (issue 24 item 10): Ctrl-C at any moment of a run, start-up
included, ends it without a traceback and without leaving the early read's link or a
lock behind; a command whose output pipe is closed exits with the status of what it
did; Ctrl-C during the post-commit hook names the commit made, in --json too.  These
run the real executable (signals and pipes are the process's own)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo

pytestmark = [pytest.mark.real_command,
              pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all()
    return repo


def _start(repo: GitRepo, *args: str, stdin=subprocess.PIPE, **kw) -> subprocess.Popen:
    """The command in its own process group, with Ctrl-C delivered as a terminal does
    (SIGINT not ignored, whatever the test runner's own disposition)."""
    return subprocess.Popen([*AI_APPLY, *args], cwd=repo.root, env=repo.env, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            **kw)


def _leftovers(repo: GitRepo) -> list[str]:
    return sorted(n for n in os.listdir(repo.root / ".git")
                  if "ai-apply" in n.lower() or n.endswith(".lock"))


def _wait_for(path, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 60
    while not os.path.exists(path):
        assert proc.poll() is None, (what, proc.communicate())
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.005)


def _our_frames(err: str) -> bool:
    """Whether a traceback shows a frame of the project's code past its first lines.
    Python's own start, the console script pip generates (its ``import re`` and ``from
    git_aiapply.cli.main import run``) and the first statements of the package's
    ``__init__`` and of main.py, until main.py installs its handler, run before anything
    can guard them; past that, a traceback would have a frame in another module."""
    if "Traceback" not in err:
        return False
    files = [line.split('"')[1] for line in err.splitlines()
             if line.startswith('  File "') and line.count('"') >= 2]
    ours = [f for f in files if "/git_aiapply/" in f]
    return any(not f.endswith(("/git_aiapply/__init__.py", "/git_aiapply/cli/main.py"))
               for f in ours)


# --------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_while_the_early_read_is_held_removes_its_link(base):
    before = base.snapshot()
    proc = _start(base, "-")  # waits for the response on stdin, the early read done
    _wait_for(base.root / ".git" / f"index.ai-apply-{proc.pid}", proc, "the early read")
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err.decode() and "nothing was changed" in err.decode()
    assert _leftovers(base) == []
    assert base.snapshot() == before


@pytest.mark.parametrize("delay_ms", range(0, 240, 20))
def test_ctrl_c_at_any_moment_of_the_start_leaves_nothing(base, delay_ms):
    """A sweep over the start-up and the run: each run ends applied (0) or untouched
    (130, or killed before Python could handle the signal), never with a traceback of
    ours, a lock, a link, or half a change."""
    before = _content(base)
    proc = _start(base, str(_response_file(base)), stdin=subprocess.DEVNULL)
    time.sleep(delay_ms / 1000)
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    err = err.decode("utf-8", "replace")
    assert not _our_frames(err), err
    assert _leftovers(base) == [], err
    assert proc.returncode in (0, 130, -signal.SIGINT, 1), err
    if proc.returncode == 0 or "interrupted after the commit was made" in err:
        # done (a Ctrl-C after the commit, before the run ended, says so and exits 130)
        assert base.read("src/b.txt") == b"alpha\nBETA\n"
        assert base.git("status", "--porcelain") == ""
    elif proc.returncode == 1:
        assert "Traceback" in err  # only Python's own start-up, before any code of ours
        assert _content(base) == before
    else:
        assert _content(base) == before


def _content(repo: GitRepo) -> tuple:
    """What the user sees: HEAD, the refs, the index's entries, the files, a clean status.
    (Not the index file's bytes: a run interrupted after it wrote and rolled back a file
    leaves the file as it was but with a new mtime, and `git status` then refreshes the
    index's stat data, as after any `touch`.)"""
    return (repo.git("for-each-ref"), repo.git("rev-parse", "HEAD"),
            repo.git("ls-files", "-s"), repo.read("src/b.txt"),
            repo.git("status", "--porcelain"))


def _response_file(repo: GitRepo):
    path = repo.root.parent / "louder.md"
    path.write_text(LOUDER_BETA)
    return path


def test_ctrl_c_in_the_post_commit_hook_names_the_commit_in_json(base):
    hook = base.root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\ntouch .git/post-commit-ran\nsleep 30\n")
    hook.chmod(0o755)
    proc = _start(base, "--json", str(_response_file(base)), stdin=subprocess.DEVNULL)
    _wait_for(base.root / ".git" / "post-commit-ran", proc, "the post-commit hook")
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    made = base.git("rev-parse", "HEAD").strip()
    assert base.git("log", "-1", "--format=%s") == "Make beta louder\n"
    outcome = json.loads(out)
    assert outcome["commit"] == made and outcome["status"] == "applied"
    assert outcome["exit_code"] == 130 and "interrupted" in outcome["note"]
    assert outcome["response_id"] and f"AI-Response: {outcome['response_id']}" in base.message()
    assert made[:7] in err.decode() and "nothing was changed" not in err.decode()


# --------------------------------------------------------------------------- closed pipes


def _with_stdout_closed(repo: GitRepo, *args: str, stdin: bytes | None = None):
    """Run with a standard output whose reader has gone away before anything is written."""
    proc = subprocess.Popen([*AI_APPLY, *args], cwd=repo.root, env=repo.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    _out, err = proc.communicate(stdin)
    return proc.returncode, err.decode("utf-8", "replace")


@pytest.mark.parametrize("as_json", [False, True])
def test_undo_into_a_closed_pipe_exits_with_what_it_did(base, as_json):
    applied = base.run("-q", response=LOUDER_BETA)
    assert applied.returncode == 0, applied.err
    made = base.head()
    code, err = _with_stdout_closed(base, "undo", *(["--json"] if as_json else []))
    assert code == 0, err  # it undid the commit: success, whatever the reader did
    assert base.head() != made and base.read("src/b.txt") == b"alpha\nbeta\n"
    assert "Traceback" not in err
    code, err = _with_stdout_closed(base, "undo", *(["--json"] if as_json else []))
    assert code == 1, err  # nothing to undo now: refused, even unheard


def test_apply_into_a_closed_pipe_exits_with_what_it_did(base):
    code, err = _with_stdout_closed(base, "--json", "-", stdin=LOUDER_BETA.encode())
    assert code == 0, err
    assert base.read("src/b.txt") == b"alpha\nBETA\n"
    code, err = _with_stdout_closed(base, "--json", "-", stdin=b"no change blocks here\n")
    assert code == 1, err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args, stdin", [
    (["--json", "-"], LOUDER_BETA),  # the quick path: its output flushed at the end
    (["prompt"], ""),  # click's command line
    (["batch", "-j", "1", "-"], json.dumps({"id": 1, "repo": ".", "response": LOUDER_BETA})),
    (["serve"], json.dumps({"response": LOUDER_BETA})),
])
def test_a_standard_output_that_cannot_be_written_is_fatal(base, args, stdin):
    """A full disk (/dev/full) under standard output: git's `fatal:`, exit 128, said once,
    with no Python noise ("Exception ignored", exit 120, an internal error)."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([*AI_APPLY, *args], cwd=base.root, env=base.env,
                              input=(stdin + "\n").encode(), stdout=full, stderr=subprocess.PIPE)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 128, err
    assert err.count("fatal: cannot write the standard output: No space left on device") == 1
    assert "Exception" not in err and "Traceback" not in err and "internal error" not in err


# --------------------------------------------------------------------------- windows of the transaction

# Run in a process of its own (pytest-xdist runs tests where a signal may reach another
# thread): ``TARGET`` delivers a real SIGINT to the process as soon as it returns, the
# window between doing a thing and recording it that the sweep above found.
_INTERRUPTED_RUN = """
import os, signal, sys
from git_aiapply.doors.api import Session
from git_aiapply.git import index, transaction
owner = {"update_ref": transaction, "install": index.IndexLock}[sys.argv[1]]
original = getattr(owner, sys.argv[1])
def then_interrupt(*args, **kwargs):
    result = original(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGINT)
    return result
setattr(owner, sys.argv[1], then_interrupt)
try:
    Session(".").apply(sys.stdin.read())
except KeyboardInterrupt:
    sys.exit(130)
sys.exit(0)
"""


def _interrupted_right_after(repo: GitRepo, target: str) -> int:
    import sys

    r = subprocess.run([sys.executable, "-c", _INTERRUPTED_RUN, target], cwd=repo.root,
                       env=repo.env, input=LOUDER_BETA.encode(), capture_output=True,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert b"Traceback" not in r.stderr, r.stderr.decode()
    return r.returncode


def test_ctrl_c_just_after_the_branch_moved_puts_everything_back(base):
    before = _content(base)
    assert _interrupted_right_after(base, "update_ref") == 130
    assert _content(base) == before  # the branch too, not only the files and the index


def test_ctrl_c_just_after_the_index_was_installed_keeps_the_whole_commit(base):
    head = base.head()
    assert _interrupted_right_after(base, "install") == 130
    assert base.head() != head and base.read("src/b.txt") == b"alpha\nBETA\n"
    assert base.git("status", "--porcelain") == ""  # not the new index over old files
