"""Whether a later edit of a file builds on an earlier one (BEHAVIOR.md §3, red-team
H10-H12): all edits of a file are located against the original, but a later edit whose
old side fits the original only on a loose tier (or not at all), and fits exactly in the
text as the earlier edits of the file left it, on lines one of them wrote, quotes that
edit's result (rename ``add(a, b)`` to ``add(x, y)``, then document ``add(x, y)``): aider
and Codex apply edits in turn, and the loose fit (an indented method of the same name)
would be a wrong place that lands silently.  Such edits are applied in turn
(``gather.apply_in_turn``, ``divider_readings.apply_edit``)."""
from __future__ import annotations

from ..errors import ApplyError
from ..text import FileText


def builds_on_earlier(ft: FileText, groups: list[list], apply_group) -> bool:
    """Whether a hunk of a later group (groups: a file's edits in response order) fits
    ``ft`` only loosely or not at all, yet exactly in the text the earlier groups leave,
    on lines they wrote.  ``apply_group(text, hunks)`` applies one group (as in turn)."""
    from .matching import LineIndex

    later = [h for hunks in groups[1:] for h in hunks if h.old]
    if not later:
        return False
    index = LineIndex(ft.lines, [l for h in later for l in h.old])
    loose = {id(h) for h in later if index.first_fits(h.old)[0] > 0}  # tier 0: exact
    if not loose:
        return False
    return _quotes_written_lines(ft, groups, apply_group, loose)


def _quotes_written_lines(ft: FileText, groups: list[list], apply_group, loose: set) -> bool:
    """Whether a hunk in ``loose`` fits exactly, in the text the groups before it leave,
    on lines they wrote (earlier groups applied in turn; False when one does not fit)."""
    from .edit_report import muted
    from .locate import recording_changes

    written = [False] * len(ft.lines)  # per line of the current text: written by an edit
    with muted():  # a trial (-v reports only what is applied)
        for k, hunks in enumerate(groups):
            if k and _fits_on_written(ft.lines, [h for h in hunks if id(h) in loose], written):
                return True
            try:
                with recording_changes() as changes:
                    ft = apply_group(ft, hunks)[0]
            except ApplyError:
                return False
            written = _after(written, changes)
    return False


def _fits_on_written(lines, hunks: list, written: list[bool]) -> bool:
    from .matching import LineIndex

    if not hunks:
        return False
    index = LineIndex(lines, [l for h in hunks for l in h.old])
    return any(any(written[s:s + len(h.old)]) for h in hunks for s in index.fits(h.old, 0))


def _after(written: list[bool], changes: list) -> list[bool]:
    """``written`` carried through ``changes`` (``locate.recording_changes``: per text,
    runs ``(a, b, n)`` in file order): the n lines of a run are written."""
    for runs in changes:
        out: list[bool] = []
        at = 0
        for a, b, n in runs:
            out += written[at:a]
            out += [True] * n
            at = b
        written = out + written[at:]
    return written
