"""Whether one of the tool's commits on the branch already made the change an answer
describes, and the files still hold it (a refusal's ``already-applied`` suggestion,
run/suggest.py; issue 35).

Decided by computing, never by matching the answer's context lines against the files (a
later commit may have changed a context line and nothing of the change):

- the answer's change is what it does at the commit it was written against (``-3``'s
  plan there), as git's diff without context shows it: per file, each changed run of
  lines, its old lines and its new ones;
- a tool commit (an ``AI-Response`` trailer) made that change when its own diff against
  its first parent holds the same runs for those files (the same answer, or another
  answer making the same change; a ``-3`` commit makes the answer's runs too);
- the files still hold it when every run of lines that commit wrote is still unchanged
  in the current file (git's diff from that commit to the current files leaves it
  alone), and every run it removed is still gone (the lines around the place are still
  neighbours).
"""
from __future__ import annotations

Run = tuple[tuple[bytes, ...], tuple[bytes, ...]]  # a change's old lines, new lines


def made_by(repo, at_base, current, tip: str | None, depth: int) -> str | None:
    """The newest of the tool's commits among ``tip``'s ``depth`` most recent first-parent
    commits that made the change of ``at_base`` (the answer planned at its base: a Plan)
    and whose result ``current`` (the files now) still holds; None when none did."""
    from ..git.base_commit import base_at, tree_snapshot
    from ..git.repo import tool_commits_touching

    paths = sorted(p for p in at_base.final if at_base.final[p] != at_base.base.get(p))
    if tip is None or not paths:
        return None
    wanted = {p: runs(_data(at_base.base.get(p)), _data(at_base.final[p])) for p in paths}
    if any(w is None for w in wanted.values()):
        return None  # a file made, deleted or binary: not judged here
    for commit, parent in tool_commits_touching(repo, tip, paths, depth):
        before = tree_snapshot(repo, base_at(repo, parent), None)
        after = tree_snapshot(repo, base_at(repo, commit), None)
        if all(_holds(p, before.entry(p), after.entry(p), wanted[p], current) for p in paths):
            return commit
    return None


def _holds(path: str, before, after, wanted: list[Run], current) -> bool:
    """Whether the commit (``before`` -> ``after``: the file's entries) made exactly
    ``wanted`` in ``path`` and the current files still hold what it wrote there."""
    old, new = _data(before), _data(after)
    if old is None or new is None or runs(old, new) != wanted:
        return False
    now = current.entry(path)
    return now is not None and still_there(old, new, now[1])


def runs(old: bytes | None, new: bytes | None) -> list[Run] | None:
    """The changed runs of lines from ``old`` to ``new`` as git's diff without context
    finds them, in order; None when either side is missing or binary."""
    from ..git.merge import line_hunks
    from ..text import is_binary

    if old is None or new is None or is_binary(old) or is_binary(new):
        return None
    return [(removed, added) for _s, _n, removed, added in line_hunks(old, new)]


def still_there(old: bytes, made: bytes, now: bytes) -> bool:
    """Whether ``now`` still holds the change from ``old`` to ``made``: every run of
    lines it wrote lies within a run git's diff from ``made`` to ``now`` leaves
    unchanged, and where it only removed lines, the lines around the place are still
    neighbours there."""
    from ..git.merge import line_hunks, unchanged_runs

    kept = unchanged_runs(made, now)
    total = made.count(b"\n") + (0 if made.endswith(b"\n") or not made else 1)
    for new_start, new_lines, _removed, _added in line_hunks(old, made):
        if new_lines:
            start, end = new_start - 1, new_start - 1 + new_lines
        else:  # a removal: the line before the place and the line after it
            start, end = max(new_start - 1, 0), min(new_start + 1, total)
        if end > start and not any(a <= start and end <= a + n for a, _b, n in kept):
            return False
    return True


def _data(state) -> bytes | None:
    """The content of a FileState or of a snapshot's (mode, content) entry."""
    if state is None:
        return None
    return state[1] if isinstance(state, tuple) else state.data
