"""A file replaced by a folder (x -> x/y, BEHAVIOR.md §5) under the transaction's
failures: an injected error at each worktree step leaves everything as it was (the
rollback removes the folder it made before putting x back), and a kill there is
recoverable to wholly before or wholly after."""
from __future__ import annotations

import signal

import pytest

from conftest import GitRepo
from test_crash_safety import FIXED_DATES, state, stray_files

RESPONSE = """Move x into a folder and touch a.

<FILE_CHANGES>
<FILE_RENAME from_path="x" to_path="x/y" />
<FILE_PATCH file_path="a.txt">
@@
-one
+ONE
</FILE_PATCH>
</FILE_CHANGES>
"""
FAULTS = ["worktree-delete:1", "worktree-write:1", "worktree-write:2", "index-stage:1", "commit:1"]


def setup_repo(repo: GitRepo) -> None:
    repo.env.update(FIXED_DATES)
    repo.write("x", "the file\n")
    repo.write("a.txt", "one\n")
    repo.commit_all()


@pytest.mark.parametrize("fault", FAULTS)
def test_failure_puts_the_file_back(repo, fault):
    setup_repo(repo)
    before = repo.snapshot()
    r = repo.run(response=RESPONSE, env=dict(repo.env, GIT_AI_APPLY_FAULT=f"fail:{fault}"))
    assert r.returncode == 128, r.out + r.err
    assert repo.snapshot() == before
    assert repo.read("x") == b"the file\n"
    assert stray_files(repo) == []


@pytest.mark.parametrize("fault", ["worktree-write:1", "worktree-write:2", "commit:1"])
def test_kill_is_recoverable(repo, fault):
    setup_repo(repo)
    before = state(repo)
    r = repo.run(response=RESPONSE, env=dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}"))
    assert r.returncode == -signal.SIGKILL, r.err
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    now = state(repo)
    if now != before:  # wholly after: the commit holds x/y, the worktree agrees
        assert repo.read("x/y") == b"the file\n"
        assert repo.git("status", "--porcelain").strip() == ""
    else:
        assert repo.read("x") == b"the file\n"


def test_success_moves_the_file_into_the_folder(repo):
    setup_repo(repo)
    r = repo.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert repo.read("x/y") == b"the file\n"
    assert repo.git("ls-files").split() == ["a.txt", "x/y"]
    assert "x => x/y" in repo.git("show", "-M", "--stat", "--format=", "HEAD") or \
        "{x => x/y}" in repo.git("show", "-M", "--stat", "--format=", "HEAD") or \
        "x/y" in repo.git("show", "-M", "--name-status", "--format=", "HEAD")


FOLDER_TO_FILE = """Replace the folder d by a file.

<FILE_CHANGES>
<FILE_DELETE file_path="d/y" />
<FILE_DELETE file_path="d/z" />
<FILE_NEW file_path="d">
D
</FILE_NEW>
</FILE_CHANGES>
"""


def setup_folder(repo: GitRepo) -> None:
    repo.env.update(FIXED_DATES)
    repo.write("d/y", "Y\n")
    repo.write("d/z", "Z\n")
    repo.write("a.txt", "one\n")
    repo.commit_all()


@pytest.mark.parametrize("fault", ["worktree-delete:2", "worktree-write:1", "commit:1"])
def test_folder_to_file_failure_puts_the_folder_back(repo, fault):
    setup_folder(repo)
    before = repo.snapshot()
    r = repo.run(response=FOLDER_TO_FILE, env=dict(repo.env, GIT_AI_APPLY_FAULT=f"fail:{fault}"))
    assert r.returncode == 128, r.out + r.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []


@pytest.mark.parametrize("fault", ["worktree-write:1", "commit:1"])
def test_folder_to_file_kill_is_recoverable(repo, fault):
    setup_folder(repo)
    before = state(repo)
    r = repo.run(response=FOLDER_TO_FILE, env=dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}"))
    assert r.returncode == -signal.SIGKILL, r.err
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    if state(repo) == before:
        assert repo.read("d/y") == b"Y\n" and repo.read("d/z") == b"Z\n"
    else:
        assert repo.read("d") == b"D\n"
        assert repo.git("status", "--porcelain").strip() == ""


def test_folder_to_file_with_untracked_work_inside_is_refused_unchanged(repo):
    setup_folder(repo)
    repo.write("d/notes.txt", "mine\n")  # untracked: the folder cannot go
    before = repo.snapshot()
    r = repo.run(response=FOLDER_TO_FILE)
    assert r.returncode == 1 and "does not track" in r.err
    assert repo.snapshot() == before
    assert repo.read("d/notes.txt") == b"mine\n"
