"""`git ai-apply recover` repairs the index git uses: with GIT_INDEX_FILE set (issue 24),
a run killed while it held that index's lock is repaired there, and the repository's
default index (`.git/index`) is never written instead."""
from __future__ import annotations

import shutil
import signal
import subprocess

import pytest

from conftest import GitRepo
from test_crash_safety import RESPONSE, setup_repo


def _status(repo: GitRepo, env: dict) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=repo.root, env=env,
                          capture_output=True, text=True).stdout


@pytest.mark.parametrize("fault, recover_env", [
    ("worktree-temp:2", "same"), ("index-stage:1", "same"), ("ref-update:1", "same"),
    # recover run without GIT_INDEX_FILE: the journal names the run's index (issue 33)
    ("index-stage:1", "plain"), ("ref-update:1", "plain")])  # before / after
def test_recover_follows_git_index_file(repo: GitRepo, fault, recover_env):
    setup_repo(repo)
    alt = repo.root.parent / "alt-index"
    shutil.copy(repo.root / ".git" / "index", alt)
    default_before = (repo.root / ".git" / "index").read_bytes()
    env = {**repo.env, "GIT_INDEX_FILE": str(alt)}
    before = _status(repo, env)
    base = repo.git("log", "-1", "--format=%s")
    r = repo.run(response=RESPONSE, env={**env, "GIT_AI_APPLY_FAULT": f"kill:{fault}"})
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.err)
    assert (repo.root.parent / "alt-index.lock").exists()  # the run held that index's lock
    rec = repo.run("recover", env=env if recover_env == "same" else repo.env)
    assert rec.returncode == 0, rec.out + rec.err
    assert not list(repo.root.parent.glob("alt-index.*")), "the lock was left behind"
    assert (repo.root / ".git" / "index").read_bytes() == default_before
    # wholly before or wholly after: either way only the user's own work shows, in the
    # index git uses (after, the run's files are committed, staged and written alike)
    assert _status(repo, env) == before
    assert repo.git("log", "-1", "--format=%s").startswith(
        "Rework" if fault == "ref-update:1" else base)
    again = repo.run("recover", env=env)
    assert again.returncode == 0 and "nothing to recover" in again.out


def test_a_hook_is_written_through_a_short_temporary_name(tmp_path):
    """The hook kit's temporary file is named by a short hash (issue 24): a 250-byte
    name, whose name plus a suffix would pass the file system's 255-byte limit, is
    written and leaves nothing behind."""
    from git_aiapply.workflows.hook_kit import _write_hook

    path = tmp_path / ("h" * 250)
    _write_hook(str(path), "#!/bin/sh\nexit 0\n")
    assert path.read_text() == "#!/bin/sh\nexit 0\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
