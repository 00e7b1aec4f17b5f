"""`recover` can always finish (issue 33 item 4): a file someone changed after the crash
holds neither the run's state nor the state before it, so it is the user's: kept as it is
(never overwritten), named in the report, and the rest undone (index lock released,
journal removed); `--keep-files` finishes where recover cannot tell what the run did; a
journal removed by hand leaves no lock (recover knows the dead run's staged index by the
hooks' index it left)."""
from __future__ import annotations

import signal

from test_crash_safety import RESPONSE, setup_repo, state, stray_files
from test_recover_restaged import KILLING_HOOK, setup

EDIT = b"my own edit, after the crash\n"


def _killed_by_the_hook(repo) -> dict:
    """The run killed by its pre-commit hook once that re-staged src/a.txt; the state
    before the run."""
    setup(repo, staged=True, hook=KILLING_HOOK)
    before = state(repo)
    assert repo.run(response=RESPONSE).returncode == -signal.SIGKILL
    return before


def _git_works(repo) -> None:
    repo.git("add", "src/a.txt")  # index.lock released: git works again
    repo.git("commit", "-q", "--no-verify", "-m", "mine")
    assert repo.git("show", "HEAD:src/a.txt").encode() == repo.read("src/a.txt")


def test_a_file_edited_after_the_crash_is_kept_and_the_rest_undone(repo):
    before = _killed_by_the_hook(repo)
    repo.write("src/a.txt", EDIT)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert "kept src/a.txt as it is" in rec.out and "git cat-file -p" in rec.out
    assert repo.read("src/a.txt") == EDIT
    now = state(repo)
    assert now["files"] == {**before["files"], "src/a.txt": (now["files"]["src/a.txt"][0], EDIT)}
    assert now["ls_files"] == before["ls_files"] and now["head"] == before["head"]
    assert stray_files(repo) == []
    again = repo.run("recover")
    assert again.returncode == 0 and "nothing to recover" in again.out
    _git_works(repo)


def test_a_journal_removed_by_hand_leaves_no_lock(repo):
    """No journal, but the dead run's staged index.lock (no owner line: staging replaced
    it): recover knows it by the hooks' index the run left, and drops it."""
    before = _killed_by_the_hook(repo)
    (repo.root / ".git" / "AI_APPLY_JOURNAL").unlink()
    assert (repo.root / ".git" / "index.lock").exists()
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert "drop the unfinished index" in rec.out
    assert stray_files(repo) == []
    assert state(repo)["ls_files"] == before["ls_files"]
    _git_works(repo)


def test_keep_files_finishes_where_recover_cannot_tell(repo):
    """The branch rewound under the run's head: recover cannot tell whether the run
    happened and refuses, naming --keep-files, which keeps every file and finishes."""
    setup_repo(repo)
    base = repo.head()
    repo.write("side.txt", "x\n")
    repo.git("add", "side.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "side")
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:1")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    repo.git("reset", "-q", "--soft", base)
    refused = repo.run("recover")
    assert refused.returncode == 128 and "recover --keep-files" in refused.err
    files = state(repo)["files"]
    rec = repo.run("recover", "--keep-files")
    assert rec.returncode == 0, rec.out + rec.err
    assert state(repo)["files"] == files  # not one file written
    assert stray_files(repo) == []
    assert repo.run("recover").out.startswith("nothing to recover")
