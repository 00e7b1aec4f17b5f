"""Crash safety: every step of the transaction is made to fail (an injected I/O error) and,
in a separate run, to die by SIGKILL (GIT_AI_APPLY_FAULT, see git.py ``_fault``).

After a failure the repository must be byte-for-byte as before.  After a kill it must be
wholly before or wholly after, directly or once `git ai-apply recover` has run; in every
case `git fsck` is clean, no temporary file is left, and the user's staged, unstaged and
untracked work in other files is intact.
"""
from __future__ import annotations

import os
import signal
import subprocess

import pytest

from conftest import GitRepo, init_repo, make_env

RESPONSE = """Rework the sample files.

<FILE_CHANGES>
<FILE_PATCH file_path="src/a.txt">
@@
 one
-two
+TWO
 three
</FILE_PATCH>
<FILE_NEW file_path="new/deep/n.txt">
brand new
</FILE_NEW>
<FILE_DELETE file_path="old/del.txt" />
<FILE_RENAME from_path="ren.txt" to_path="moved/ren.txt" />
</FILE_CHANGES>
"""

# (step, how many times the transaction passes through it for RESPONSE)
STEPS = [
    ("blob-write", 3),  # src/a.txt, new/deep/n.txt, moved/ren.txt
    ("tree-write", 1),
    ("journal", 1),
    ("worktree-delete", 2),  # old/del.txt, ren.txt
    ("worktree-write", 3),
    ("index-stage", 1),
    ("hooks", 1),
    ("commit", 1),
    ("ref-update", 1),
    ("index-install", 1),
]
FAULTS = [f"{step}:{n}" for step, count in STEPS for n in range(1, count + 1)]

FIXED_DATES = {"GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}


def setup_repo(repo: GitRepo) -> None:
    repo.env.update(FIXED_DATES)
    repo.write("src/a.txt", "one\ntwo\nthree\n")
    repo.write("old/del.txt", "to be deleted\n")
    repo.write("ren.txt", "to be moved\n")
    repo.write("staged.txt", "staged base\n")
    repo.write("unstaged.txt", "unstaged base\n")
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n", mode=0o755)
    repo.commit_all()
    # the user's own work in progress, which no outcome may touch
    repo.write("staged.txt", "staged change\n")
    repo.git("add", "staged.txt")
    repo.write("unstaged.txt", "unstaged change\n")
    repo.write("untracked.txt", "untracked\n")


def state(repo: GitRepo) -> dict:
    """The snapshot without raw index bytes (stat data differs between two runs), plus
    the index's entries."""
    snap = repo.snapshot()
    snap.pop("index")
    snap["ls_files"] = repo.git("ls-files", "-s")
    return snap


def stray_files(repo: GitRepo) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(repo.root):
        for n in filenames + dirnames:
            if "ai-apply" in n or n.endswith(".lock") or n == "AI_APPLY_JOURNAL":
                out.append(os.path.relpath(os.path.join(dirpath, n), repo.root))
    return sorted(out)


def assert_fsck_clean(repo: GitRepo) -> None:
    full = subprocess.run(["git", "fsck", "--strict", "--no-progress"],
                          cwd=repo.root, env=repo.env, capture_output=True)
    text = (full.stdout + full.stderr).decode()
    assert full.returncode == 0, text
    bad = [l for l in text.splitlines() if not l.startswith("dangling ")]
    assert not bad, text


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The state before and after a clean run, from a twin repository (fixed dates make
    the commit ids equal), made once for the module."""
    twin = init_repo(tmp_path_factory.mktemp("twin") / "repo",
                     make_env(tmp_path_factory.mktemp("home")))
    setup_repo(twin)
    before = state(twin)
    r = twin.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    after = state(twin)
    assert after["head"] != before["head"]
    return before, after


@pytest.mark.parametrize("fault", FAULTS)
def test_injected_failure_leaves_everything_as_it_was(repo, fault):
    setup_repo(repo)
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"fail:{fault}")
    r = repo.run(response=RESPONSE, env=env)
    # a disk error is the environment's fault, not the response's: fatal, as git
    assert r.returncode == 128, r.out + r.err
    assert "injected fault" in r.err and "nothing was changed" in r.err
    assert repo.snapshot() == before  # index bytes included
    assert stray_files(repo) == []
    assert_fsck_clean(repo)
    # and the response still applies afterwards
    assert repo.run(response=RESPONSE).returncode == 0


@pytest.mark.parametrize("fault", FAULTS)
def test_sigkill_at_each_step_is_recoverable(repo, fault, expected):
    setup_repo(repo)
    want_before, want_after = expected
    assert state(repo) == want_before
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}")
    r = repo.run(response=RESPONSE, env=env)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.err)

    leftover = stray_files(repo)
    if leftover:
        # a normal run refuses, pointing at recover, and changes nothing
        snap = repo.snapshot()
        again = repo.run(response=RESPONSE)
        assert again.returncode in (1, 128)  # the journal (1) or the lock left behind (128)
        assert "git ai-apply recover" in again.err
        assert repo.snapshot() == snap
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    now = state(repo)
    assert now in (want_before, want_after), fault
    assert_fsck_clean(repo)
    assert repo.git("diff", "--cached", "--name-only").strip() == "staged.txt"
    assert repo.read("unstaged.txt") == b"unstaged change\n"
    assert repo.read("untracked.txt") == b"untracked\n"
    # recover a second time: nothing left to do
    again = repo.run("recover")
    assert again.returncode == 0 and "nothing to recover" in again.out
    # the response can be applied (or is already) afterwards
    last = repo.run(response=RESPONSE)
    assert last.returncode == 0, last.err
    assert state(repo) == want_after


@pytest.mark.real_command  # the installed script killed, not a warm child
def test_kill_before_the_ref_moves_goes_back_to_before(repo, expected):
    setup_repo(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:commit")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    # half written: the journal explains it
    assert (repo.root / ".git" / "AI_APPLY_JOURNAL").exists()
    assert repo.read("src/a.txt") == b"one\nTWO\nthree\n"
    rec = repo.run("recover")
    assert "made no commit" in rec.out
    assert state(repo) == expected[0]


@pytest.mark.real_command  # the installed script killed, not a warm child
def test_kill_after_the_ref_moved_completes_the_commit(repo, expected):
    setup_repo(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:ref-update")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    rec = repo.run("recover")
    assert "committed" in rec.out and "install the new index" in rec.out
    assert state(repo) == expected[1]


def test_recover_dry_run_changes_nothing(repo):
    setup_repo(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:2")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    snap = repo.snapshot()
    r = repo.run("recover", "--dry-run")
    assert r.returncode == 0
    assert "would restore moved/ren.txt" in r.out  # written first (sorted order)
    assert repo.snapshot() == snap


def test_recover_keeps_a_file_changed_after_the_crash(repo):
    """A file holding neither the run's state nor the one before it is the user's: kept
    as it is and named; the rest is undone and recover finishes (issue 33 item 4)."""
    setup_repo(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:3")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    repo.write("src/a.txt", "edited by hand after the crash\n")
    r = repo.run("recover")
    assert r.returncode == 0, r.out + r.err
    assert "kept src/a.txt as it is" in r.out
    assert repo.read("src/a.txt") == b"edited by hand after the crash\n"
    assert repo.read("ren.txt") == b"to be moved\n"  # the rest put back
    assert stray_files(repo) == []


@pytest.mark.real_command  # the installed script killed, not a warm child
def test_stale_lock_of_a_killed_run_points_to_recover(repo):
    setup_repo(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:blob-write")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    assert not (repo.root / ".git" / "AI_APPLY_JOURNAL").exists()
    snap = repo.snapshot()
    r = repo.run(response=RESPONSE)
    assert r.returncode == 128  # a lock left behind: the repository's state
    assert "interrupted git ai-apply" in r.err and "git ai-apply recover" in r.err
    assert repo.snapshot() == snap
    rec = repo.run("recover")
    assert "index.lock" in rec.out
    assert stray_files(repo) == []


def test_recover_with_nothing_to_do(repo):
    setup_repo(repo)
    snap = repo.snapshot()
    r = repo.run("recover")
    assert r.returncode == 0 and "nothing to recover" in r.out
    assert repo.snapshot() == snap


def test_recover_leaves_a_foreign_index_lock_alone(repo):
    """index.lock of another git process (no ai-apply marker) is never removed."""
    setup_repo(repo)
    (repo.root / ".git" / "index.lock").write_bytes(b"")
    r = repo.run("recover")
    assert r.returncode == 0 and "nothing to recover" in r.out
    assert (repo.root / ".git" / "index.lock").exists()


def test_failure_after_the_ref_moved_puts_the_branch_back(repo):
    """Regression: a failure after the branch moved (index install) rolled back the
    worktree but left the branch on the new commit."""
    setup_repo(repo)
    for step in ("ref-update", "index-install"):
        before = repo.snapshot()
        r = repo.run(response=RESPONSE, env=dict(repo.env, GIT_AI_APPLY_FAULT=f"fail:{step}"))
        assert r.returncode == 128, r.err  # a disk error: fatal
        assert repo.snapshot() == before
        assert "rolled back" in repo.git("reflog", "-1", "main")


def test_failing_hook_leaves_no_temporary_index(repo):
    """Regression: with other staged work the hooks get a temporary index
    (next-index-ai-apply-PID.lock), which a failing hook left behind."""
    setup_repo(repo)
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\necho no >&2\nexit 1\n", mode=0o755)
    before = repo.snapshot()
    r = repo.run(response=RESPONSE)
    assert r.returncode == 1 and "pre-commit" in r.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []


def test_disk_errors_are_refusals_not_internal_errors(repo):
    setup_repo(repo)
    r = repo.run(response=RESPONSE, env=dict(repo.env, GIT_AI_APPLY_FAULT="fail:blob-write"))
    assert r.returncode == 128 and r.err.startswith("fatal: ")
    assert "internal error" not in r.err
    assert "cannot write the commit" in r.err


def test_branch_mode_kill_leaves_nothing_to_recover(repo):
    setup_repo(repo)
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:blob-write:2")
    assert repo.run("--branch", "attempt", response=RESPONSE, env=env).returncode == -signal.SIGKILL
    assert repo.snapshot() == before  # no branch, no lock, worktree and index untouched
    assert_fsck_clean(repo)
