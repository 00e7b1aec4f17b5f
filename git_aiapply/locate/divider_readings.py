"""SEARCH/REPLACE blocks whose divider is ambiguous, and an EditFile's blocks applied.

A block holding several ``=======`` lines has one reading per candidate divider
(``Hunk.readings``, BEHAVIOR.md §3): the file decides which, and a block that no reading
or several fit is refused, never guessed.  aider's blocks may also fit one after another
(a later SEARCH quoting an earlier REPLACE), as aider applies them.
"""
from __future__ import annotations

from collections.abc import Sequence

from . import edit_report
from ..errors import ApplyError, Problem
from .locate import apply_hunks
from .placer import same_edit
from .matching import LineIndex, nearby_lines, norm_line
from ..ops import ADD, Hunk
from ..record import replace
from ..text import FileText


def apply_edit(ft: FileText, hunks: list[Hunk], *, path: str, directive: str | None = None,
               ensure_final_newline: bool = False, in_turn: bool = False
               ) -> tuple[FileText, int, int]:
    """An EditFile's hunks: divider readings chosen (``choose_readings``), then all located
    together against ``ft`` (``apply_hunks``).

    ``in_turn`` (aider's blocks): when they do not fit together, they may fit one after
    another, each on the result of the ones before, as aider applies them (a later SEARCH
    quoting an earlier REPLACE); each must then fit as surely as alone.  If that fails
    too, the refusal is the one of locating them together.  A block that builds on an
    earlier one (``builds_on``) is applied in turn at once: together it would take a
    loose fit of the original."""
    if in_turn and len(hunks) > 1 and _builds_on_earlier(ft, hunks, path, directive):
        return _apply_in_turn(ft, hunks, path, directive, ensure_final_newline)
    try:
        return apply_hunks(ft, choose_readings(ft.lines, hunks, path=path, directive=directive),
                           path=path, directive=directive,
                           ensure_final_newline=ensure_final_newline)
    except ApplyError as together:
        if not in_turn or len(hunks) < 2:
            raise
        refusal = together
    try:
        return _apply_in_turn(ft, hunks, path, directive, ensure_final_newline)
    except ApplyError:
        raise refusal from None


def _apply_in_turn(ft: FileText, hunks: list[Hunk], path: str, directive: str | None,
                   ensure_final_newline: bool) -> tuple[FileText, int, int]:
    """aider's blocks one after another, each on the result of the ones before."""
    with edit_report.in_turn():  # -v: reported only if all fit, as located in turn
        added = removed = 0
        done: set[tuple] = set()
        for h in hunks:
            # a copy of an edit already applied is a restatement: on top of the first it
            # could fit again (an insertion keeps its old side), but it is applied once
            key = same_edit(h)
            if key in done and not h.readings:
                continue
            done.add(key)
            ft, a, r = apply_hunks(ft, choose_readings(ft.lines, [h], path=path,
                                                       directive=directive),
                                   path=path, directive=directive,
                                   ensure_final_newline=ensure_final_newline)
            added, removed = added + a, removed + r
        return ft, added, removed


def _builds_on_earlier(ft: FileText, hunks: list[Hunk], path: str, directive: str | None) -> bool:
    from .builds_on import builds_on_earlier

    def one(text: FileText, group: list[Hunk]):
        return apply_hunks(text, choose_readings(text.lines, group, path=path, directive=directive),
                           path=path, directive=directive)

    return builds_on_earlier(ft, [[h] for h in hunks], one, path=path, directive=directive)


def choose_readings(lines: Sequence[str], hunks: list[Hunk], *, path: str,
                    directive: str | None = None) -> list[Hunk]:
    """``hunks`` with every SEARCH/REPLACE block that has several divider candidates
    (``Hunk.readings``, in the order of their dividers) reduced to the one reading the
    file supports; a block that none or several readings fit is refused, never guessed.

    A later reading's SEARCH begins with every earlier one's, then that one's divider
    line: where the later SEARCH fits, the earlier fits too, only because the file holds
    that ``=======`` line as text.  So an earlier reading counts only where no later one
    fits (places taken on each reading's first matching tier)."""
    if not any(h.readings for h in hunks):
        return hunks
    index = LineIndex(lines)
    out: list[Hunk] = []
    problems: list[Problem] = []
    for h in hunks:
        if not h.readings:
            out.append(h)
            continue
        places = [_places(index, _old(reading)) for _label, reading in h.readings]
        fitting = []
        later: set[int] = set()
        for (label, reading), found in reversed(list(zip(h.readings, places))):
            if found - later:
                fitting.append((label, reading))
            later |= found
        fitting.reverse()
        near = _nearly_fitting(index, h.readings, places, fitting)
        if len(fitting) == 1 and near is None:
            out.append(replace(h, lines=fitting[0][1], readings=[]))
            continue
        if len(fitting) == 1:
            label, line = near
            problems.append(Problem(
                f"the block has {len(h.readings)} '=======' lines that could be its divider: "
                f"only the reading with {fitting[0][0]} fits the file, but the reading with "
                f"{label} fits it at line {line} but for one line, so the other '=======' line "
                "may be meant as text (a heading's underline); not guessed",
                file=path, directive=directive, edit=h.number, edit_first_line=h.first_line(),
                nearby=nearby_lines(lines, _old(_reading_labelled(h.readings, label)), index),
                hint="copy the SEARCH lines exactly from the file (a heading's underline has "
                     "as many '=' as the file's), or use a block whose SEARCH and REPLACE hold "
                     "no line of only '=' signs"))
            continue
        splits = "; ".join(label for label, _ in h.readings)
        if fitting:
            reason = (f"the block has {len(h.readings)} '=======' lines that could be its divider "
                      f"and the file fits the SEARCH of {len(fitting)} of the readings "
                      f"({'; '.join(label for label, _ in fitting)})")
            nearby = []
        else:
            reason = (f"the block has {len(h.readings)} '=======' lines that could be its divider "
                      f"({splits}) and no reading's SEARCH fits the file")
            nearby = nearby_lines(lines, [t for tag, t in h.readings[0][1] if tag != ADD], index)
        problems.append(Problem(
            reason, file=path, directive=h.directive or directive, edit=h.number,
            edit_first_line=h.first_line(),
            nearby=nearby,
            hint="the '=======' lines of the file's text make the divider ambiguous: use a "
                 "block whose SEARCH and REPLACE hold no line of only '=' signs, or copy the "
                 "SEARCH lines exactly from the file so only one split fits"))
    if problems:
        raise ApplyError(problems)
    return out


def _old(reading) -> list[str]:
    return [t for tag, t in reading if tag != ADD]


def _places(index: LineIndex, old: list[str]) -> set[int]:
    """Where ``old`` fits, on its first matching tier (nowhere for a blank SEARCH)."""
    if any(t.strip() for t in old):
        return set(index.first_fits(old)[1])
    return set()


def _reading_labelled(readings, label: str):
    return next(r for lab, r in readings if lab == label)


def _nearly_fitting(index: LineIndex, readings, places: list[set[int]],
                    fitting) -> tuple[str, int] | None:
    """(label, 1-based line) of a reading that fits the file nowhere but somewhere with
    one line different (on the loosest tier), when another reading fits: the file then
    does not tell which '=======' line is the divider.  (A reading that fits exactly but
    was set aside for a later one is explained by that one.)"""
    if len(fitting) != 1:
        return None
    for (label, reading), found in zip(readings, places):
        if found:
            continue
        at = _near_fit(index, _old(reading))
        if at is not None:
            return label, at + 1
    return None


def _near_fit(index: LineIndex, old: list[str]) -> int | None:
    """Where ``old`` (two lines or more) fits the file with exactly one line different,
    compared on the loosest tier; None when nowhere.  A window with one line different
    matches the file at its first or its second line, so only those places are tried."""
    n = len(old)
    if n < 2 or n > len(index.lines):
        return None
    normed = [norm_line(3, t) for t in old]
    where = index.where(3, normed[:2])
    starts = {p for p in where.get(normed[0], ())} | {p - 1 for p in where.get(normed[1], ())}
    for start in sorted(s for s in starts if 0 <= s <= len(index.lines) - n):
        differing = 0
        for a, b in zip(index.normed(3, start, start + n), normed):
            differing += a != b
            if differing > 1:
                break
        if differing == 1:
            return start
    return None
