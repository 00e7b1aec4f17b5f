"""Issue 24, item 4: a kill while the --branch --verify temporary worktree exists leaves
nothing that `recover`, or the next --verify run, does not remove and unregister.  The
temporary worktree lives in the git dir (``ai-apply-verify-PID``), never outside the
repository."""
from __future__ import annotations

import os
import signal

import pytest

from test_crash_safety import stray_files

RESPONSE = ("Edit.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-alpha\n+ALPHA\n"
            "</FILE_PATCH>\n</FILE_CHANGES>\n")


def _setup(repo, log) -> None:
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    repo.write(".git/hooks/pre-commit", f"#!/bin/sh\npwd >> {log}\nexit 0\n", mode=0o755)


def _worktrees(repo) -> list[str]:
    return [l for l in repo.git("worktree", "list", "--porcelain").splitlines()
            if l.startswith("worktree ")]


def _kill_during_verify(repo, log) -> str:
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:verify-worktree")
    r = repo.run("--branch", "try", "--verify", response=RESPONSE, env=env)
    assert r.returncode == -signal.SIGKILL, r.err
    ours = [w.removeprefix("worktree ") for w in _worktrees(repo) if "ai-apply-verify-" in w]
    assert len(ours) == 1  # the temporary one is left registered
    leftover = ours[0]
    assert os.path.isdir(leftover)
    # inside the repository's git dir, nothing written outside it
    assert os.path.realpath(leftover).startswith(os.path.realpath(repo.root / ".git") + os.sep)
    return leftover


def test_recover_removes_a_killed_verify_worktree(repo, tmp_path):
    _setup(repo, tmp_path / "log")
    before = repo.snapshot()
    leftover = _kill_during_verify(repo, tmp_path / "log")
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert "ai-apply-verify-" in rec.out
    assert len(_worktrees(repo)) == 1
    assert not os.path.exists(leftover)
    assert not (repo.root / ".git" / "worktrees").exists() or \
        os.listdir(repo.root / ".git" / "worktrees") == []
    assert repo.snapshot() == before
    assert stray_files(repo) == []
    assert repo.run("recover").out.startswith("nothing to recover")


def test_next_verify_run_removes_a_killed_verify_worktree(repo, tmp_path):
    _setup(repo, tmp_path / "log")
    leftover = _kill_during_verify(repo, tmp_path / "log")
    r = repo.run("--branch", "again", "--verify", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert len(_worktrees(repo)) == 1
    assert not os.path.exists(leftover)
    assert repo.git("show", "again:a.txt") == "ALPHA\n"
    assert stray_files(repo) == []


def test_verify_cleanup_leaves_other_worktrees_alone(repo, tmp_path):
    """Only the tool's own temporary worktree is removed: a user's worktree whose folder
    is gone for now (an unmounted drive) stays registered (no `git worktree prune`)."""
    _setup(repo, tmp_path / "log")
    other = tmp_path / "elsewhere"
    repo.git("worktree", "add", "-q", "--detach", str(other))
    os.rename(other, tmp_path / "unplugged")
    _kill_during_verify(repo, tmp_path / "log")
    assert repo.run("recover").returncode == 0
    assert [w for w in _worktrees(repo) if w.endswith("elsewhere")]
    r = repo.run("--branch", "again", "--verify", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert [w for w in _worktrees(repo) if w.endswith("elsewhere")]
