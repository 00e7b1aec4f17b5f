"""A `recover` killed while it puts a file back leaves that file's temporary behind; the
next `recover` finds and removes it (its name follows the interrupted run's rule, the
run's pid, as the transaction's temporaries do), and the repository ends as before."""
from __future__ import annotations

import glob
import shutil
import signal

from conftest import GitRepo
from test_crash_safety import RESPONSE, assert_fsck_clean, setup_repo, state, stray_files


def test_a_recover_killed_while_restoring_leaves_a_temporary_the_next_one_removes(
        repo: GitRepo):
    setup_repo(repo)
    before = state(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:3")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    # no backups (a file system without hard links): recover writes each old file back
    for d in glob.glob(str(repo.root / ".git" / "ai-apply-backup-*")):
        shutil.rmtree(d)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:restore-temp")
    assert repo.run("recover", env=env).returncode == -signal.SIGKILL
    assert any(n.endswith(".restore") for n in stray_files(repo))
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    assert state(repo) == before
    assert_fsck_clean(repo)
