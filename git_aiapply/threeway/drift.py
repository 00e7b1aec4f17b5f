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

from ..errors import ApplyError, ErrorKind, Problem
from ..ops import Source
from ..plan.plan import MODE_LINK, FileState, Plan, Snapshot, make_plan
from ..record import record
from ..text import FileText, is_binary

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
    # why a merge that is not clean has no conflict regions to show: the file's merge
    # attribute keeps it whole (`merge=binary`, `-merge`), it is binary, or its merge
    # driver failed (git/merge.py)
    note: str | None = None


Side = tuple[int, bytes] | None
Merge = Callable[[str, Side, Side, Side], MergeResult]


def plan_at_base(ops, candidates: Iterable[Candidate], normalize) -> tuple[Candidate, Plan] | None:
    """The first candidate where every edit of the response fits, and the plan there: a
    named base as the planner places them (loosely if it must), a searched one only where
    every edit's old lines are there exactly (a loose fit at a newer commit is not the
    version the answer was written against).  A named base that does not fit is the
    answer: its problems are raised as they are."""
    for cand in candidates:
        if not cand.named and not fits_exactly(ops, cand.snapshot, normalize):
            continue
        try:
            return cand, make_plan(ops, cand.snapshot, normalize)
        except ApplyError:
            if cand.named:
                raise
    return None


def fits_exactly(ops, snapshot: Snapshot, normalize) -> bool:
    """Every located edit's old side (hunks, SEARCH blocks, string replacements) occurs
    in its file at ``snapshot`` byte for byte; other operations are the planner's to judge."""
    from ..locate.matching import LineIndex
    from ..ops import EditFile, ReplaceText

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
                       follow: Callable[[str], str], merge: Merge, normalize, *,
                       removed_by: Callable[[str], str | None] = lambda _p: None,
                       ignore_case: bool = False) -> ThreeWayPlan:
    """Carry ``at_base`` (the response applied at commit ``base``) over to the current
    files: a path the current files still hold as at the base takes the planned result,
    one that changed since is merged; any conflict refuses the whole response.  A file of
    the base that is gone now (deleted, or moved where the answer deletes or moves it
    too) is a conflict naming the commit that took it (``removed_by``), never a deletion
    of what stands at its path now.  The result is then planned against ``current`` as
    operations (renames, puts, deletions) through the planner's checks, as any answer is
    (an untracked file, a folder, a submodule or a link in the way refuses it)."""
    puts: dict[str, FileState | None] = {}
    merged, problems = [], []
    renames = _net_renames(at_base)  # destination -> its source at the base
    sources = set(renames.values())
    moved_away = {a for a, _b in at_base.renames}
    gone: set[str] = set()
    for path in sorted(at_base.final):
        src = renames.get(path, path)  # a rename's destination merges its source's content
        now, ancestor, theirs = follow(src), at_base.base.get(src), at_base.final[path]
        if ancestor is not None and (current.entry(now) is None or (now != src and theirs is None)):
            if src not in gone:  # a rename's source and destination both lead here: once
                gone.add(src)
                problems.append(_gone_since(src, now, theirs, src in moved_away, current,
                                            base, removed_by(src)))
            continue
        if path in sources:
            continue  # still there: its rename moves it
        target = now if src == path else path
        if src != path and _state(current.entry(path)) != at_base.base.get(path):
            problems.append(_taken_since(path, src, at_base.base.get(path), current, base))
            continue
        ours = _state(current.entry(now))
        result = _carry(target, ancestor, ours, theirs, merge, base, problems)
        if result is _CONFLICT:
            continue
        if result is not ours and ours != ancestor:
            merged.append(target)
        puts[target] = result
    if problems:
        raise ApplyError(problems, kind=ErrorKind.REFUSED)
    from ..locate import edit_report

    ops = _carried_ops(puts, {b: follow(a) for b, a in renames.items()}, current)
    with edit_report.muted():  # the edits were reported where they were located, at the base
        plan = make_plan(ops, current, normalize, ignore_case=ignore_case)
    return ThreeWayPlan(plan, base, merged)


def _gone_since(path: str, now: str, theirs, moved: bool, current: Snapshot, base: str,
                by: str | None) -> Problem:
    """The conflict of an answer that touches a file of its base gone from the current
    files (``now``: where it is now, when renamed since)."""
    by = by or "a later commit"
    names = {"dir": "a folder", "submodule": "a submodule", "file": "a file",
             "symlink": "a symbolic link"}
    what = f"{by} deleted it"
    if now != path:
        what = f"{by} renamed it to {now}"
    elif current.kind(path) in names:
        # the commit that took the file is named; what stands there now may have come
        # with it or later, so the two are said apart
        what = f"{by} took the file away and {names[current.kind(path)]} stands there now"
    else:  # a leading folder that is something else now (a submodule: its files are not ours)
        parts = path.split("/")
        for i in range(1, len(parts)):
            k = current.kind("/".join(parts[:i]))
            if k in ("submodule", "file", "symlink"):
                what = (f"{by} took the file away and {names[k]} stands at "
                        f"{'/'.join(parts[:i])} now")
                break
    does = "moves it away" if moved else "deletes it" if theirs is None else "changes it"
    return Problem(f"the answer was written against {base[:12]}; since then {what}, and the "
                   f"answer {does}: the two cannot be merged", file=path,
                   hint="write the edits against the files as they are now (send them to "
                        "the model again)")


_CARRIED = Source("three-way", "")


def _net_renames(at_base: Plan) -> dict[str, str]:
    """The answer's renames, destination -> source at the base: a chain a -> b -> c is one
    rename a -> c; a file the answer made and then moved, or moved and then deleted, is
    no rename."""
    origin: dict[str, str] = {}
    for a, b in at_base.renames:
        origin[b] = origin.pop(a, a)
    return {b: a for b, a in origin.items()
            if at_base.final.get(b) is not None and at_base.base.get(a) is not None
            and at_base.final.get(a) is None}


def _taken_since(path: str, src: str, then, current: Snapshot, base: str) -> Problem:
    """The conflict of a rename onto a path whose file was added, changed or deleted since
    the base (``then``: what the base held there)."""
    now = current.entry(path)
    since = "added" if then is None else "deleted" if now is None else "changed"
    return Problem(f"the answer was written against {base[:12]}; since then the file was "
                   f"{since}, and the answer moves {src} onto it: the two cannot be merged",
                   file=path, hint="write the edits against the files as they are now (send "
                                   "them to the model again)")


def _carried_ops(puts: dict, renames: dict[str, str], current: Snapshot) -> list:
    """The carried result as operations on the current files: the renames first (each
    moves the current file), then each path's new content or its deletion."""
    from ..ops import DeleteFile, PutFile, RenameFile

    ops: list = [RenameFile(src, dst, _CARRIED) for dst, src in renames.items()]
    sources = set(renames.values())
    for path, st in sorted(puts.items()):
        if st is not None:
            ops.append(PutFile(path, st.mode, st.data, _CARRIED))
        elif path not in sources and current.entry(path) is not None:
            ops.append(DeleteFile(path, _CARRIED))
    return ops


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
        since = "added" if ancestor is None else "changed"
        problems.append(Problem(
            f"the answer was written against {short}; since then the file was {since}, and "
            f"the answer {'deletes' if theirs is None else 'adds' if ancestor is None else 'changes'}"
            " it: the two cannot be merged", file=path,
            hint="write the edits against the file as it is now (send it to the model again)"))
        return _CONFLICT
    if MODE_LINK in (ancestor.mode, ours.mode, theirs.mode):  # a link's target is no text
        now = "is a symbolic link now" if ours.mode == MODE_LINK else "changed since then"
        problems.append(Problem(
            f"the answer was written against {short}; the file {now}, and a symbolic link is "
            "never merged with a file's lines: the two cannot be merged", file=path,
            hint="write the edits against the files as they are now (send them to the model "
                 "again)"))
        return _CONFLICT
    m = merge(path, (ancestor.mode, ancestor.data), (ours.mode, ours.data),
              (theirs.mode, theirs.data))
    if not m.clean:
        problems.append(_conflict_problem(path, m, short))
        return _CONFLICT
    mode = theirs.mode if ancestor.mode == ours.mode else ours.mode
    return FileState(mode, m.data)


def _conflict_problem(path: str, m: MergeResult, short: str) -> Problem:
    hunks = conflict_hunks(m.data)
    if not hunks:
        why = m.note or "the merge reported a conflict"
        return Problem(f"the answer was written against {short}, and the file changed since "
                       f"then; {why}, so the two versions cannot be merged", file=path,
                       hint="rewrite these edits against the file as it is now")
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


@record
class DriftedEdit:
    """An edit whose place in a file changed since the answer's base is given by that base
    (BEHAVIOR.md §3): its old side fits the current file more than once, or it is placed
    by a line number alone (lines added at a stated line, hashline references, an
    ``insert`` after line N)."""

    path: str
    number: int  # the edit's number within its directive
    first_line: str
    stated_line: bool  # its line numbers would choose its place (refused without -3)
    fits: list[tuple[int, str]]  # its old side's fits in the current file: (line, text)
    moved: bool = False  # fits the base, but not where that place is now (H3, H4)


def edits_placed_by_base_lines(ops, current: Snapshot, at_base: Snapshot,
                               normalize) -> list[DriftedEdit]:
    """The edits of files that changed between ``at_base`` (the commit the answer names as
    its base) and ``current`` whose place only the base's line numbers or the response's
    order could choose: in the current file those describe another text (a class copied
    above the edited one moves every line and doubles every fit).  Line numbers that lie
    in the lines the two versions still share from the top name the same lines in both,
    and stay evidence."""
    from ..ops import EditFile, HashlineEdit, InsertText

    out: list[DriftedEdit] = []
    for op in ops:
        if not isinstance(op, (EditFile, HashlineEdit, InsertText)):
            continue
        changed = _changed_since_base(op, current, at_base, normalize)
        if changed is None:
            continue
        path, now, then = changed
        lines = FileText.from_bytes(now[1]).lines
        shared = _shared_top(lines, FileText.from_bytes(then[1]).lines)
        if isinstance(op, EditFile):
            out.extend(_drifted_hunks(path, op.hunks, lines, shared))
        elif isinstance(op, HashlineEdit):  # LINE#ID: line numbers at the base
            out.extend(DriftedEdit(path, h.number, h.raw, True, []) for h in op.ops
                       if max(h.start, h.end) > shared)
        elif op.line > shared:
            out.append(DriftedEdit(path, op.number, op.text.split("\n", 1)[0], True, []))
    return out


def _shared_top(a, b) -> int:
    """How many lines ``a`` and ``b`` share from the top."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _drifted_hunks(path: str, hunks, lines, shared: int) -> list[DriftedEdit]:
    from ..locate.matching import LineIndex

    index = LineIndex(lines, [t for h in hunks for t in h.old])
    fits = [index.first_fits(h.old)[1] if h.old else [] for h in hunks]
    # the stated lines still name the same lines when every numbered edit fits exactly at
    # its stated line within the shared top (then no earlier edit's offset moves another)
    still = all(_fits_at_stated_line(h, f, shared) for h, f in zip(hunks, fits)
                if h.line_hint is not None)
    return [d for h, f in zip(hunks, fits)
            if not (still and h.line_hint is not None)  # a line still true
            and (d := _drifted_hunk(path, h, f, lines)) is not None]


def _drifted_hunk(path: str, h, fits, lines) -> DriftedEdit | None:
    if h.anchors or h.readings or h.at_eof:
        return None  # placed by its anchors or the end of the file, not by a number
    if not h.old:  # added lines at a stated line (0: the top stays the top)
        return DriftedEdit(path, h.number, h.first_line(), True, []) if h.line_hint else None
    if len(fits) < 2:
        return None
    # each fit shown by the line the edit is recognised by, not a blank above it
    k = next((j for j, t in enumerate(h.old) if t.strip()), 0)
    return DriftedEdit(path, h.number, h.first_line(), h.line_hint is not None,
                       [(s + k + 1, lines[s + k]) for s in fits])


def _fits_at_stated_line(h, fits, shared: int) -> bool:
    if not h.old:
        return h.line_hint <= shared
    start = h.line_hint - 1
    return start in fits and start + len(h.old) <= shared


def drift_refusal(drifted: list[DriftedEdit], base: str) -> ApplyError:
    """The refusal of the edits whose place only the base's line numbers give (without
    -3): ambiguous in the current file, the hint naming -3 and the base."""
    short = base[:12]
    problems = []
    for d in drifted:
        many = (f"ambiguous: its old lines occur {len(d.fits)} times in the file now, at "
                "lines " + ", ".join(str(n) for n, _text in d.fits[:10]) + "; "
                if d.fits else "")
        why = (_moved_reason(d, short) if d.moved else
               f"{many}its line numbers describe the file at {short}, the base the answer "
               f"names, and the file has changed since: they do not say where the edit goes "
               f"now")
        problems.append(Problem(
            why, file=d.path, edit=d.number, edit_first_line=d.first_line,
            hint=f"apply with -3 (--3way) to place the edit at {short} and merge it into "
                 "the file as it is now, or write the edit against the current file",
            candidates=[n for n, _text in d.fits], nearby=d.fits[:10],
            nearby_label="candidate places"))
    return ApplyError(problems, kind=ErrorKind.REFUSED)


def _moved_reason(d: DriftedEdit, short: str) -> str:
    lines = ", ".join(str(n) for n, _text in d.fits[:10])
    now = (f"ambiguous: its old lines occur {len(d.fits)} times in the file now, at lines "
           f"{lines}" if len(d.fits) > 1 else f"its old lines fit the file now at line {lines}")
    return (f"{now}; at {short}, the base the answer names, they fit another place, which "
            "has moved or changed since: the fit in the current file is not that place, so "
            "it does not say where the edit goes")


def edits_off_their_base_place(ops, current: Snapshot, at_base: Snapshot, normalize,
                               runs: Runs | None = None) -> list[DriftedEdit]:
    """The located edits (hunks, SEARCH blocks) of files changed between ``at_base`` (the
    commit the answer names) and ``current`` whose place in the current file is not where
    their place at the base is now (finding H3, H4): their old lines fit the base, and
    there those lines changed since, or the current file's fits are not the base's fits
    carried over the base-to-current change (a new copy of the text above them).  Such an
    edit fits the current file only by accident; its base says where it goes."""
    from ..ops import EditFile

    out: list[DriftedEdit] = []
    for op in ops:
        if not isinstance(op, EditFile):
            continue
        changed = _changed_since_base(op, current, at_base, normalize)
        if changed is None or is_binary(changed[1][1]):
            continue
        path, now, then = changed
        lines_now = FileText.from_bytes(now[1]).lines
        lines_then = FileText.from_bytes(then[1]).lines
        moved = _base_to_current(lines_then, lines_now, runs(then[1], now[1]) if runs
                                 else _difflib_runs(lines_then, lines_now))
        out.extend(d for h in op.hunks
                   if (d := _off_base_place(path, h, lines_then, lines_now, moved)) is not None)
    return out


Runs = Callable[[bytes, bytes], list[tuple[int, int, int]]]


def _difflib_runs(then, now) -> list[tuple[int, int, int]]:
    """(base start, current start, length) of the unchanged runs, by difflib: for callers
    without git's diff (the repository passes git's, which stays fast on big files)."""
    from difflib import SequenceMatcher

    from ..locate.matching import common_ends

    head, tail = common_ends(then, now)
    runs = [(0, 0, head)]
    if head < len(then) - tail and head < len(now) - tail:
        sm = SequenceMatcher(None, then[head:len(then) - tail], now[head:len(now) - tail],
                             autojunk=False)
        runs += [(a + head, b + head, n) for a, b, n in sm.get_matching_blocks() if n]
    return runs + [(len(then) - tail, len(now) - tail, tail)]


def _base_to_current(then, now, runs) -> Callable[[int, int], int | None]:
    """Where lines [start, start + n) of the base are in the current file, or None when
    they changed since (not within one unchanged run).  Runs whose lines differ (a line
    ending git's diff reads otherwise) are dropped: their places count as changed."""
    from bisect import bisect_right

    runs = [(a, b, n) for a, b, n in sorted(runs)
            if n and b + n <= len(now) and then[a:a + n] == now[b:b + n]]

    starts = [a for a, _b, _n in runs]

    def where(start: int, n: int) -> int | None:
        i = bisect_right(starts, start) - 1  # the run starting at or before ``start``
        if i < 0:
            return None
        a, b, size = runs[i]
        return b + start - a if start + n <= a + size else None
    return where


def _off_base_place(path, h, then, now, moved) -> DriftedEdit | None:
    from ..locate.matching import LineIndex

    if not h.old or h.readings or h.anchors:
        # added lines at a number: edits_placed_by_base_lines' rule; anchors name the
        # block the edit is in, and the planner holds it there
        return None
    at_base = LineIndex(then, h.old).first_fits(h.old)[1]
    if not at_base:
        return None  # not the base's text: the base says nothing about its place
    fits = LineIndex(now, h.old).first_fits(h.old)[1]
    if not fits:
        return None  # fits nowhere now: the planner's refusal (or -3's merge) says so
    carried = [_carried(moved, s, len(h.old), len(then)) for s in at_base]
    if None not in carried and sorted(fits) == sorted(carried):
        return None
    if h.line_hint is not None:  # the stated line picks the nearest fit, here and there
        def nearest(starts):
            return min(starts, key=lambda s: abs(s - (h.line_hint - 1)))
        if carried[at_base.index(nearest(at_base))] == nearest(fits):
            return None
    k = next((j for j, t in enumerate(h.old) if t.strip()), 0)
    return DriftedEdit(path, h.number, h.first_line(), True,
                       [(s + k + 1, now[s + k]) for s in fits], moved=True)


def _carried(moved, start: int, n: int, total: int) -> int | None:
    """Where the base's fit at ``start`` (``n`` lines) is now, or None when it or a line
    next to it changed since: a change beside the edit is one the merge of -3 conflicts
    with too, and the lines around a fit keep a diff from pairing it with a new copy."""
    lo, hi = max(start - 1, 0), min(start + n + 1, total)
    at = moved(lo, hi - lo)
    return None if at is None else at + start - lo


def _changed_since_base(op, current, at_base, normalize):
    """(path, entry now, entry at the base) of the file ``op`` edits when it is in both and
    changed since the base; None otherwise (a path the planner refuses included)."""
    try:
        path = normalize(op.path)
        now, then = current.entry(path), at_base.entry(path)
    except ApplyError:
        return None  # the planner refuses the path itself
    if now is None or then is None or now[1] == then[1]:
        return None
    return path, now, then
