"""Answers written against an older commit (`-3` / `--3way`, BEHAVIOR.md §9).

When a response's edits do not fit the current files, they are applied at the commit the
answer was written against, and each resulting file is merged into the current one with a
three-way text merge (the base's version as ancestor, the current version as ours, the
base's version with the edits as theirs), as `git apply -3` does for a patch.  A conflict
refuses the whole response, showing both sides; a conflict marker never reaches a commit.

The core here needs no repository: the caller passes the candidate bases (snapshots of
older commits, newest first), where each base path is now (renames since the base) and
the merge of one file (git/merge.py).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .errors import ApplyError, ErrorKind, Problem
from .plan import FileChange, FileState, Plan, Snapshot, make_plan
from .record import record
from .text import FileText, is_binary

# `AI-Base: <commit>`, as `git ai-apply prompt --base` and `show --base` write it for the
# model to echo: on a line of its own in an answer, anywhere in a chat-API JSON's turns
AI_BASE = "AI-Base"
_BASE_LINE = re.compile(r"^[ \t>*_`#-]*AI-Base:[ \t]*`?([0-9a-fA-F]{7,64})\b", re.M)
_BASE_ANYWHERE = re.compile(r"AI-Base:[ \t]*`?([0-9a-fA-F]{7,64})\b")


def without_base_lines(explanation: str) -> str:
    """The explanation without the AI-Base lines the model echoed: the tool writes its own
    trailer when the base mattered, and an echoed line is no part of the message."""
    if "AI-Base:" not in explanation:
        return explanation
    return "\n".join(line for line in explanation.split("\n") if not _BASE_LINE.match(line))


def base_named_in(text: str, *, anywhere: bool = False) -> str | None:
    """The commit an ``AI-Base:`` line names, the first one (``anywhere``: also inside a
    line, as in the JSON of a conversation whose user turn held the line)."""
    m = (_BASE_ANYWHERE if anywhere else _BASE_LINE).search(text)
    return m.group(1).lower() if m else None


@record
class Candidate:
    """A commit the answer may have been written against."""

    commit: str  # full id
    snapshot: Snapshot  # its files
    named: bool = False  # named by --base or an AI-Base line, not found by search


@record
class ThreeWayPlan:
    plan: Plan
    base: str  # the commit the edits were applied at
    merged: list[str]  # current paths whose content is a three-way merge


@record
class MergeResult:
    data: bytes
    clean: bool


Side = tuple[int, bytes] | None
Merge = Callable[[str, Side, Side, Side], MergeResult]


def plan_at_base(ops, candidates: Iterable[Candidate], normalize) -> tuple[Candidate, Plan] | None:
    """The first candidate where every edit of the response fits, and the plan there: a
    named base as the planner places them (loosely if it must), a searched one only where
    every edit's old lines are there exactly (a loose fit at a newer commit is not the
    version the answer was written against).  A named base that does not fit is the
    answer: its problems are raised as they are."""
    for cand in candidates:
        if not cand.named and not _fits_exactly(ops, cand.snapshot, normalize):
            continue
        try:
            return cand, make_plan(ops, cand.snapshot, normalize)
        except ApplyError:
            if cand.named:
                raise
    return None


def _fits_exactly(ops, snapshot: Snapshot, normalize) -> bool:
    """Every located edit's old side (hunks, SEARCH blocks, string replacements) occurs
    in its file at ``snapshot`` byte for byte; other operations are the planner's to judge."""
    from .matching import LineIndex
    from .ops import EditFile, ReplaceText

    for op in ops:
        if not isinstance(op, (EditFile, ReplaceText)):
            continue
        try:
            entry = snapshot.entry(normalize(op.path))
        except ApplyError:
            return False
        if entry is None:
            return False
        if isinstance(op, ReplaceText):
            if op.old and op.old.encode() not in entry[1]:
                return False
            continue
        index = LineIndex(FileText.from_bytes(entry[1]).lines, [t for h in op.hunks for t in h.old])
        if any(h.old and not h.readings and not index.fits(h.old, 0) for h in op.hunks):
            return False
    return True


def merge_into_current(at_base: Plan, base: str, current: Snapshot,
                       follow: Callable[[str], str], merge: Merge) -> ThreeWayPlan:
    """Carry ``at_base`` (the response applied at commit ``base``) over to the current
    files: a path the current files still hold as at the base takes the planned result,
    one that changed since is merged; any conflict refuses the whole response."""
    final: dict[str, FileState | None] = {}
    before: dict[str, FileState | None] = {}
    merged, problems = [], []
    for path in sorted(at_base.final):
        now = follow(path)
        ancestor, theirs = at_base.base.get(path), at_base.final[path]
        ours = _state(current.entry(now))
        result = _carry(now, ancestor, ours, theirs, merge, base, problems)
        if result is _CONFLICT:
            continue
        if result is not ours and ours != ancestor:
            merged.append(now)
        final[now], before[now] = result, ours
    if problems:
        raise ApplyError(problems, kind=ErrorKind.REFUSED)
    renames = [(follow(a), b) for a, b in at_base.renames]
    changes = _changes(final, before, renames)
    return ThreeWayPlan(Plan(final, before, renames, changes), base, merged)


_CONFLICT = object()


def _state(entry) -> FileState | None:
    return None if entry is None else FileState(entry[0], entry[1])


def _carry(path, ancestor, ours, theirs, merge, base, problems):
    """The current path's new state, or _CONFLICT (a problem recorded)."""
    if ours == ancestor or ours == theirs:
        return theirs
    if theirs == ancestor:
        return ours
    short = base[:12]
    if ours is None or theirs is None or ancestor is None:
        gone = "deleted" if ours is None else "changed"
        problems.append(Problem(
            f"the answer was written against {short}; since then the file was {gone}, and "
            f"the answer {'deletes' if theirs is None else 'changes'} it: the two cannot be "
            "merged", file=path,
            hint="write the edits against the file as it is now (send it to the model again)"))
        return _CONFLICT
    if is_binary(ours.data) or is_binary(theirs.data) or is_binary(ancestor.data):
        problems.append(Problem(f"binary file changed both since {short} and by the answer",
                                file=path))
        return _CONFLICT
    m = merge(path, (ancestor.mode, ancestor.data), (ours.mode, ours.data),
              (theirs.mode, theirs.data))
    if not m.clean:
        problems.append(_conflict_problem(path, m.data, short))
        return _CONFLICT
    mode = theirs.mode if ancestor.mode == ours.mode else ours.mode
    return FileState(mode, m.data)


def _conflict_problem(path: str, merged: bytes, short: str) -> Problem:
    hunks = conflict_hunks(merged)
    shown = []
    for n, (line, now, answer) in enumerate(hunks[:5], 1):
        shown.append(f"conflict {n}, near line {line}:")
        shown.append("  the file now has:")
        shown.extend("    " + s for s in (now or ["(nothing)"]))
        shown.append("  the answer (written against the older file) has:")
        shown.extend("    " + s for s in (answer or ["(nothing)"]))
    more = f" ({len(hunks) - 5} more not shown)" if len(hunks) > 5 else ""
    reason = (f"the answer was written against {short}, and its edits conflict with changes "
              f"made to the file since then ({len(hunks)} conflicting place"
              f"{'s' if len(hunks) != 1 else ''}{more}):\n" + "\n".join(shown))
    return Problem(reason, file=path,
                   hint="rewrite these edits against the file as it is now")


def conflict_hunks(merged: bytes) -> list[tuple[int, list[str], list[str]]]:
    """(line, ours, theirs) for each conflict region of a merge result with markers; the
    line is where the region starts in the current file (ours)."""
    out, side, ours, theirs, start, at = [], None, [], [], 0, 0
    lines = FileText.from_bytes(merged).lines if merged else []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.startswith("<<<<<<< ") and side is None:
            side, ours, theirs, start = "ours", [], [], at + 1
        elif line == "=======" and side == "ours":
            side = "theirs"
        elif line.startswith(">>>>>>> ") and side == "theirs":
            out.append((start, ours, theirs))
            side = None
        elif side == "theirs":
            theirs.append(line)
        else:
            at += 1
            if side == "ours":
                ours.append(line)
    return out


def _changes(final, before, renames) -> list[FileChange]:
    renamed_to = {b: a for a, b in renames}
    out = []
    for path, new in final.items():
        old = before.get(path)
        if path in renamed_to:
            out.append(FileChange(path, "rename", renamed_to[path]))
        elif old is None and new is not None:
            out.append(FileChange(path, "add", added=_lines(new)))
        elif new is None and old is not None:
            if not any(a == path for a, _b in renames):
                out.append(FileChange(path, "delete", removed=_lines(old)))
        elif old is not None and new is not None and old != new:
            out.append(FileChange(path, "update" if old.data != new.data else "mode"))
    return out


def _lines(st: FileState) -> int:
    return 0 if is_binary(st.data) else len(FileText.from_bytes(st.data))
