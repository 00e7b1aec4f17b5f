"""The commits this process made that no report has named yet: what a Ctrl-C names
(run/term.guarded), so that an interrupted run never says "nothing was changed" after a
commit, whichever front door made it (a series, attempts, serve).

The transaction notes each commit as its ref moves (git/transaction.py: together, a
Ctrl-C held back between the two) and forgets it when it rolls the move back; a front
door that reports each commit as it goes (serve, once its answer is written) forgets
them once reported.  Plain values, no pygit2; at most the newest ``KEPT`` are kept, with
the count of all (a library process never grows with its commits)."""
from __future__ import annotations

from collections import deque

KEPT = 100

_made: deque = deque(maxlen=KEPT)  # (branch, commit id, subject), oldest first
_count = 0


def note(refname: str, commit_id: str, subject: str) -> None:
    """A commit made on ``refname`` (named by its short name, or ``detached HEAD``)."""
    global _count
    branch = "detached HEAD" if refname == "HEAD" else refname.removeprefix("refs/heads/")
    _made.append((branch, commit_id, subject))
    _count += 1


def unnote(commit_id: str) -> None:
    """The commit ``commit_id`` was rolled back: it stays no commit of this run."""
    global _count
    for entry in list(_made):
        if entry[1] == commit_id:
            _made.remove(entry)
            _count -= 1
            return


def made() -> tuple[int, list[tuple[str, str, str]]]:
    """How many commits were made and not reported yet, and the newest ``KEPT`` of them
    (branch, commit id, subject), oldest first."""
    return _count, list(_made)


def forget() -> None:
    """The commits noted so far were reported (serve: each in its request's answer)."""
    global _count
    _made.clear()
    _count = 0
