"""`recover` after the user moved on (issue 24, item 11): a run was killed, then the user
committed other files before running `recover`.  The files the run touched are still
put back (or completed) when the user's commits did not touch them; recover refuses,
changing nothing, only when it cannot tell.
"""
from __future__ import annotations

import os
import signal

import pytest

from test_crash_safety import RESPONSE, assert_fsck_clean, setup_repo, stray_files

LOCK = os.path.join(".git", "index.lock")
TOUCHED = ("src/a.txt", "new/deep/n.txt", "old/del.txt", "ren.txt", "moved/ren.txt")


def _kill(repo, fault: str) -> None:
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL


def _user_commits_another_file(repo) -> str:
    """What a user does after the crash: git refuses (index.lock), they remove the lock
    by hand and commit something else."""
    lock = repo.root / LOCK
    if lock.exists():
        lock.unlink()
    repo.write("later.txt", "later work\n")
    repo.git("add", "later.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "later work")
    return repo.head()


def _files(repo) -> dict:
    return {p: (repo.root / p).read_bytes() if (repo.root / p).exists() else None for p in TOUCHED}


@pytest.mark.parametrize("fault", ["journal", "worktree-write:2", "commit"])
def test_kill_before_the_commit_then_user_commits_is_put_back(repo, fault):
    setup_repo(repo)
    before = _files(repo)
    _kill(repo, fault)
    tip = _user_commits_another_file(repo)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert "moved on" in rec.out
    assert _files(repo) == before
    assert repo.head() == tip  # the user's commit stays
    assert repo.read("later.txt") == b"later work\n"
    # the index of the touched files is the branch's, the user's work is intact
    assert repo.git("diff", "--name-only", "HEAD", "--", *TOUCHED) == ""
    assert repo.git("diff", "--cached", "--name-only").strip() == ""
    assert repo.read("unstaged.txt") == b"unstaged change\n"
    assert repo.read("untracked.txt") == b"untracked\n"
    assert stray_files(repo) == []
    assert_fsck_clean(repo)
    assert repo.run("recover").out.startswith("nothing to recover")
    assert repo.run(response=RESPONSE).returncode == 0


def test_kill_after_the_commit_then_more_commits_is_completed(repo):
    """The run's commit is in the branch's history and later commits (made without the
    index, here by commit-tree) left its files alone: the run happened; the index
    gets its result."""
    setup_repo(repo)
    _kill(repo, "ref-update")
    run_commit = repo.head()
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    later = repo.git("commit-tree", "-p", run_commit, "-m", "later", tree).strip()
    repo.git("update-ref", "refs/heads/main", later)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert repo.git("diff", "--name-only", "HEAD", "--", *TOUCHED) == ""
    assert repo.git("diff", "--cached", "--name-only", "HEAD", "--", *TOUCHED) == ""
    assert repo.read("src/a.txt") == b"one\nTWO\nthree\n"
    assert stray_files(repo) == []


def test_user_commit_touching_a_run_file_is_refused(repo):
    setup_repo(repo)
    _kill(repo, "worktree-write:2")
    (repo.root / LOCK).unlink()
    repo.write("ren.txt", "the user's own version\n")
    repo.git("add", "ren.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "mine")
    snap = repo.snapshot()
    rec = repo.run("recover")
    assert rec.returncode == 128
    assert rec.err.startswith("fatal: ") and "ren.txt" in rec.err
    assert repo.snapshot() == snap


def test_branch_rewound_elsewhere_is_refused(repo):
    setup_repo(repo)
    base = repo.head()
    repo.write("side.txt", "x\n")
    repo.git("add", "side.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "side")
    _kill(repo, "worktree-write:1")
    (repo.root / LOCK).unlink()
    repo.git("reset", "-q", "--soft", base)  # the run's head is no longer in the history
    snap = repo.snapshot()
    rec = repo.run("recover")
    assert rec.returncode == 128 and "cannot tell" in rec.err
    assert repo.snapshot() == snap


def test_staged_change_to_a_run_file_since_is_refused(repo):
    setup_repo(repo)
    _kill(repo, "worktree-write:3")
    _user_commits_another_file(repo)
    repo.git("add", "src/a.txt")  # the half-run's bytes, staged by the user
    snap = repo.snapshot()
    rec = repo.run("recover")
    assert rec.returncode == 128 and "src/a.txt" in rec.err
    assert repo.snapshot() == snap


def test_killed_undo_then_user_commits_is_put_back(repo):
    """undo (moves_to: the parent) killed before the branch moved; the user's commit sits
    on the commit undo was taking back: the files go back to that commit's content."""
    setup_repo(repo)
    repo.git("commit", "-q", "--no-verify", "-m", "the user's staged work")
    assert repo.run(response=RESPONSE).returncode == 0
    applied = _files(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:1")
    assert repo.run("undo", env=env).returncode == -signal.SIGKILL
    tip = _user_commits_another_file(repo)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert repo.head() == tip and _files(repo) == applied
    assert repo.git("diff", "--name-only", "HEAD", "--", *TOUCHED) == ""
    assert stray_files(repo) == []


def test_killed_undo_after_the_branch_moved_then_git_commit_is_refused(repo):
    """undo killed after the branch moved to the parent, before the index was installed:
    a `git commit` from the old index puts the undone files back into the history while
    the worktree holds the parent's: recover cannot tell which the user wants."""
    setup_repo(repo)
    repo.git("commit", "-q", "--no-verify", "-m", "the user's staged work")
    assert repo.run(response=RESPONSE).returncode == 0
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:ref-update")
    assert repo.run("undo", env=env).returncode == -signal.SIGKILL
    _user_commits_another_file(repo)
    snap = repo.snapshot()
    rec = repo.run("recover")
    assert rec.returncode == 128 and "changed the files" in rec.err, rec.err
    assert repo.snapshot() == snap
