"""Crash safety when a pre-commit hook re-stages (issue 33 item 4): a formatter hook
rewrites a file of the run and `git add`s it, and the run is killed (SIGKILL) at each step
from the hook on, or by the hook itself once its `git add` is done.  `recover` then always
succeeds: the journal names the run's index, every index the lock has been (the hooks'
index is noted before it replaces the lock, so no `git add` of a hook makes the note
stale), and the file the hook rewrote is told as the run's own (the hooks' index stages
it).  The result is wholly before or wholly after, as in test_crash_safety.py, with no
temporary file left."""
from __future__ import annotations

import signal
import time

import pytest

from conftest import init_repo, make_env
from test_crash_safety import RESPONSE, assert_fsck_clean, setup_repo, state, stray_files

# the formatter: the run's TWO becomes Two, staged again
FORMAT = "printf 'one\\nTwo\\nthree\\n' > src/a.txt && git add src/a.txt"
HOOK = f"#!/bin/sh\n{FORMAT}\n"
# the same hook, killing the run once its `git add` is done (the run is its parent)
KILLING_HOOK = f"#!/bin/sh\n{FORMAT} && kill -9 $PPID\n"

STEPS = ["hooks", "hook-index", "ref-update", "journal-end"]  # commit, index-install: as hooks, ref-update


def setup(repo, staged: bool, hook: str = HOOK) -> None:
    setup_repo(repo)
    if not staged:  # the index holds exactly the commit: the hooks' index is a link to it
        repo.git("reset", "-q", "--", "staged.txt")
    repo.write(".git/hooks/pre-commit", hook, mode=0o755)


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """(before, after) of a clean run with the formatter hook, with and without the
    user's staged change, from twin repositories."""
    out = {}
    for staged in (True, False):
        twin = init_repo(tmp_path_factory.mktemp("twin") / "repo",
                         make_env(tmp_path_factory.mktemp("home")))
        setup(twin, staged)
        before = state(twin)
        r = twin.run(response=RESPONSE)
        assert r.returncode == 0, r.err
        assert twin.read("src/a.txt") == b"one\nTwo\nthree\n"
        assert twin.git("show", "HEAD:src/a.txt") == "one\nTwo\nthree\n"
        out[staged] = (before, state(twin))
    return out


def killed_then_recovered(repo, want: tuple, env: dict) -> None:
    r = repo.run(response=RESPONSE, env=env)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.err)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    now = state(repo)
    assert now in want, rec.out
    assert_fsck_clean(repo)
    assert repo.read("unstaged.txt") == b"unstaged change\n"
    assert repo.read("untracked.txt") == b"untracked\n"
    again = repo.run("recover")
    assert again.returncode == 0 and "nothing to recover" in again.out


@pytest.mark.parametrize("step", STEPS)
def test_kill_after_the_hook_restaged_is_recoverable(repo, expected, step):
    setup(repo, staged=True)
    killed_then_recovered(repo, expected[True], dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{step}"))


@pytest.mark.parametrize("step", ["hooks", "ref-update"])
def test_kill_after_the_hook_restaged_the_whole_index_is_recoverable(repo, expected, step):
    setup(repo, staged=False)
    killed_then_recovered(repo, expected[False],
                          dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{step}"))


@pytest.mark.parametrize("staged", [True, False])
def test_kill_by_the_hook_after_its_git_add_goes_back_to_before(repo, expected, staged):
    setup(repo, staged, KILLING_HOOK)
    killed_then_recovered(repo, expected[staged][:1], dict(repo.env))
    assert repo.read("src/a.txt") == b"one\ntwo\nthree\n"


def test_recover_waits_for_a_hook_that_outlived_its_run(repo, expected, tmp_path):
    """A killed run's hook keeps running (orphaned), and may still write: `recover`
    names it and changes nothing until it is gone."""
    go = tmp_path / "go"
    setup(repo, staged=True, hook=f"#!/bin/sh\n{FORMAT} && kill -9 $PPID\n"
                                  f"while [ ! -e '{go}' ]; do sleep 0.05; done\n")
    r = repo.run(response=RESPONSE)
    assert r.returncode == -signal.SIGKILL
    snap = repo.snapshot()
    rec = repo.run("recover")
    assert rec.returncode == 128 and "a hook of the interrupted git ai-apply is still " \
        "running (pid " in rec.err, rec.err
    assert repo.snapshot() == snap
    go.touch()
    from git_aiapply.git.leftovers import with_environment

    index = repo.root / ".git" / f"next-index-ai-apply-{_journal_pid(repo)}.lock"
    for _ in range(100):
        if not with_environment("GIT_INDEX_FILE", str(index)):
            break
        time.sleep(0.05)
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.err
    assert state(repo) == expected[True][0]


def _journal_pid(repo) -> int:
    import json

    return json.loads((repo.root / ".git" / "AI_APPLY_JOURNAL").read_text())["pid"]
