"""The journal check every writing command makes (``journal.interrupted_problem``) while
another run finishes at that moment: a run that ends removes its journal, then exits, so
a journal gone by the time it is read, or gone once its process is found dead, is no
journal; only one still there after its process died means an interrupted run."""
from __future__ import annotations

import json
import os

from git_aiapply.git import index, journal


def _journal(gitdir, pid: int) -> str:
    path = journal.journal_path(str(gitdir))
    with open(path, "w") as f:
        json.dump({"pid": pid, "paths": {}}, f)
    return path


def test_a_journal_removed_between_the_check_and_the_read_is_no_journal(tmp_path, monkeypatch):
    real_exists = os.path.exists
    # the run ends right after the check found its journal: the read finds nothing
    seen = journal.journal_path(str(tmp_path))
    monkeypatch.setattr(journal.os.path, "exists", lambda p: p == seen or real_exists(p))
    assert journal.interrupted_problem(str(tmp_path)) is None


def test_a_run_that_ends_while_its_journal_is_read_is_no_interrupted_run(tmp_path, monkeypatch):
    path = _journal(tmp_path, 4242)

    def ends_now(pid):  # the run removes its journal, then exits, just as it is looked at
        os.unlink(path)
        return False

    monkeypatch.setattr(index, "pid_alive", ends_now)
    assert journal.interrupted_problem(str(tmp_path)) is None


def test_a_journal_left_by_a_dead_process_is_an_interrupted_run(tmp_path, monkeypatch):
    _journal(tmp_path, 4242)
    monkeypatch.setattr(index, "pid_alive", lambda pid: False)
    problem = journal.interrupted_problem(str(tmp_path))
    assert problem is not None and "was interrupted" in problem.reason


def test_a_journal_of_a_running_process_says_so(tmp_path):
    _journal(tmp_path, os.getpid())
    problem = journal.interrupted_problem(str(tmp_path))
    assert problem is not None and "is applying a response" in problem.reason
