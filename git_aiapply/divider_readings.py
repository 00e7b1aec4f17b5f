"""SEARCH/REPLACE blocks whose divider is ambiguous, and an EditFile's blocks applied.

A block holding several ``=======`` lines has one reading per candidate divider
(``Hunk.readings``, BEHAVIOR.md §3): the file decides which, and a block that no reading
or several fit is refused, never guessed.  aider's blocks may also fit one after another
(a later SEARCH quoting an earlier REPLACE), as aider applies them.
"""
from __future__ import annotations

from collections.abc import Sequence

from .errors import ApplyError, Problem
from .locate import apply_hunks
from .placer import same_edit
from .matching import LineIndex, nearby_lines
from .ops import ADD, Hunk
from .record import replace
from .text import FileText


def apply_edit(ft: FileText, hunks: list[Hunk], *, path: str, directive: str | None = None,
               ensure_final_newline: bool = False, in_turn: bool = False
               ) -> tuple[FileText, int, int]:
    """An EditFile's hunks: divider readings chosen (``choose_readings``), then all located
    together against ``ft`` (``apply_hunks``).

    ``in_turn`` (aider's blocks): when they do not fit together, they may fit one after
    another, each on the result of the ones before, as aider applies them (a later SEARCH
    quoting an earlier REPLACE); each must then fit as surely as alone.  If that fails
    too, the refusal is the one of locating them together."""
    try:
        return apply_hunks(ft, choose_readings(ft.lines, hunks, path=path, directive=directive),
                           path=path, directive=directive,
                           ensure_final_newline=ensure_final_newline)
    except ApplyError as together:
        if not in_turn or len(hunks) < 2:
            raise
        refusal = together
    try:
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
    except ApplyError:
        raise refusal from None


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
        places: list[set[int]] = []
        for _label, reading in h.readings:
            old = [t for tag, t in reading if tag != ADD]
            found: set[int] = set()
            if any(t.strip() for t in old):
                for tier in range(4):
                    found = set(index.fits(old, tier))
                    if found:
                        break
            places.append(found)
        fitting = []
        later: set[int] = set()
        for (label, reading), found in reversed(list(zip(h.readings, places))):
            if found - later:
                fitting.append((label, reading))
            later |= found
        fitting.reverse()
        if len(fitting) == 1:
            out.append(replace(h, lines=fitting[0][1], readings=[]))
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
