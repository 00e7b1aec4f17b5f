"""cli/commands/recover.py: what `git ai-apply recover` prints with nothing to do, that
-n/--dry-run says line for line what the real run then does, a recovery that fails midway
(exit 128, `fatal: recovery failed`) and is finished by the next one, and its usage errors.
Runs are killed as in test_crash_safety.py (GIT_AI_APPLY_FAULT)."""
from __future__ import annotations

import glob
import shutil
import signal

import pytest

from conftest import GitRepo
from test_crash_safety import RESPONSE, setup_repo, state, stray_files

NOTHING = "nothing to recover: no interrupted git ai-apply left anything behind\n"


@pytest.fixture
def interrupted(repo: GitRepo) -> GitRepo:
    """A run killed while it wrote the worktree (no commit made), and the state before it."""
    setup_repo(repo)
    repo.before = state(repo)  # type: ignore[attr-defined]
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:3")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    return repo


def test_nothing_to_recover(repo: GitRepo):
    repo.write("a.txt", "a\n")
    repo.commit_all()
    for args in ([], ["-n"], ["--dry-run"]):
        r = repo.run("recover", *args)
        assert (r.returncode, r.out, r.err) == (0, NOTHING, ""), args
    r = repo.run("recover", "now")
    assert r.returncode == 2 and "Got unexpected extra argument (now)" in r.err


def test_dry_run_says_what_the_run_then_does(interrupted: GitRepo):
    repo = interrupted
    snap = repo.snapshot()
    dry = repo.run("recover", "-n")
    assert (dry.returncode, dry.err) == (0, ""), dry.err
    assert repo.snapshot() == snap
    done = repo.run("recover")
    assert (done.returncode, done.err) == (0, ""), done.err
    *steps, verdict = done.out.splitlines()
    assert steps and dry.out.splitlines() == [f"would {s}" for s in steps] + [verdict]
    assert verdict == "the interrupted run made no commit; the repository is as it was before it"
    assert state(repo) == repo.before and stray_files(repo) == []
    assert repo.run("recover").out == NOTHING


def test_a_recovery_that_fails_is_fatal_and_the_next_one_finishes(interrupted: GitRepo):
    repo = interrupted
    # no backups (as on a file system without hard links): recover writes each file back
    for d in glob.glob(str(repo.root / ".git" / "ai-apply-backup-*")):
        shutil.rmtree(d)
    r = repo.run("recover", env=dict(repo.env, GIT_AI_APPLY_FAULT="fail:restore-temp"))
    assert r.returncode == 128 and r.out == ""
    assert r.err == "fatal: recovery failed: [Errno 5] injected fault at restore-temp\n"
    r = repo.run("recover")
    assert r.returncode == 0, r.err
    assert state(repo) == repo.before and stray_files(repo) == []
