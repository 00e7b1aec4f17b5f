"""A whole-file text that is a fragment of the file it would replace (BEHAVIOR.md §5): a
snippet with no placeholder given as FILE_NEW, a `whole` file, `Write` or the text
editor's `create` over a tracked file, whose lines are a contiguous run of that file
covering a small part of it (a 50-line function over an 831-line module).  Written as
the whole file it would delete everything else; it is refused (the planner, plan.py).

What "contiguous run" and "small part" mean (docs/DECISIONS.md):

- Only lines that say something (a letter or a digit) count, compared without
  surrounding whitespace: a blank line or a lone ``}`` is in every file, and a fragment
  is often shown at another depth than the file writes it.
- The text's lines are aligned with the file's (difflib, in order).  A fragment is mostly
  lines of the file with a few edits, so at least half of its lines, and at least
  ``MIN_SHOWN``, must be found in one stretch of the file no longer than twice the
  text plus ``SPAN_SLACK`` lines (the lines its own edits removed): the stretch is
  found as the window of that width holding the most aligned lines, so a stray match
  far off (an ``import os`` the snippet added) does not stretch it.
- The stretch is a small part of the file: the file keeps at least
  ``OUTSIDE_FACTOR`` times as many lines outside it as inside it, and at least
  ``MIN_OUTSIDE``.  Lines outside that the same response writes to another file count
  as moved, not lost (a module split in two).  So a rewrite that keeps most of the
  file, a short new content made of other lines, and a rewrite of a short file apply.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

from ..record import record

MIN_SHOWN = 3  # aligned lines, at least: two lines of a file prove nothing
SHOWN_SHARE = 0.5  # of the text's lines found in the stretch, at least
SPAN_SLACK = 10  # lines of the file a fragment's own edits may have removed, beyond its size
OUTSIDE_FACTOR = 2  # the file keeps this many lines outside the stretch per line inside
MIN_OUTSIDE = 10  # and at least this many


@record(frozen=True)
class Fragment:
    """Where a whole-file text comes from in the file it would replace."""

    first: int  # 1-based first line of the stretch of the file
    last: int  # 1-based last line of it
    total: int  # lines of the file
    shown: int  # lines of the text found in the stretch (those that say something)
    lines: int  # lines of the text that say something


def _key(line: str) -> str | None:
    text = line.strip()
    return text if any(c.isalnum() for c in text) else None


def fragment_of(old: Sequence[str], new: Sequence[str], moved: Collection[str] = ()
                ) -> Fragment | None:
    """The stretch of the file ``old`` (its lines) that the whole-file text ``new`` (its
    lines) is a fragment of, or None when ``new`` may stand as the whole file.
    ``moved``: lines (stripped) the same response writes elsewhere."""
    new_keys = [k for k in map(_key, new) if k is not None]
    size = len(new_keys)
    # the text must be at most a third of the file's solid lines (OUTSIDE_FACTOR) with
    # half of it found: answered without aligning when the text is too big
    if size < MIN_SHOWN or size * SHOWN_SHARE * (OUTSIDE_FACTOR + 1) > len(old):
        return None
    solid = [(i, k) for i, k in enumerate(map(_key, old)) if k is not None]
    if len(solid) < MIN_SHOWN + MIN_OUTSIDE:
        return None
    from difflib import SequenceMatcher

    old_keys = [k for _i, k in solid]
    sm = SequenceMatcher(None, new_keys, old_keys, autojunk=False)
    found = [b + k for _a, b, n in sm.get_matching_blocks() for k in range(n)]
    lo, hi, shown = _densest(found, 2 * size + SPAN_SLACK)
    if shown < max(MIN_SHOWN, SHOWN_SHARE * size):
        return None
    inside = hi - lo + 1
    outside = sum(1 for j, k in enumerate(old_keys) if (j < lo or j > hi) and k not in moved)
    if outside < max(MIN_OUTSIDE, OUTSIDE_FACTOR * inside):
        return None
    return Fragment(solid[lo][0] + 1, solid[hi][0] + 1, len(old), shown, size)


def _densest(found: list[int], width: int) -> tuple[int, int, int]:
    """(first, last, count) of the window of ``width`` positions holding the most of the
    ascending positions ``found`` (the first such window); (0, 0, 0) when none."""
    best = (0, 0, 0)
    start = 0
    for end, pos in enumerate(found):
        while pos - found[start] >= width:
            start += 1
        if end - start + 1 > best[2]:
            best = (found[start], pos, end - start + 1)
    return best


def fragment_refusal(path: str, frag: Fragment) -> tuple[str, str]:
    """(reason, hint) refusing a fragment written as the whole of ``path``, for the model."""
    span = frag.last - frag.first + 1
    differ = frag.lines - frag.shown
    same = (f"all but {differ} of its lines are" if differ else "its lines are")
    return (f"the text given as the whole of {path} holds only lines {frag.first}-{frag.last} "
            f"of the file's {frag.total} lines ({same} lines of that stretch, in order); "
            f"written as the whole file it would delete the other {frag.total - span} lines",
            f"to change those lines, send an edit of them (a SEARCH/REPLACE block or a diff "
            f"with lines {frag.first}-{frag.last} as context); to replace the file, send the "
            "whole file, every line it keeps included")


def written_elsewhere(ops, path: str) -> set[str]:
    """The lines (stripped) that ``ops`` write to paths other than ``path``."""
    from ..ops import AppendFile, EditFile, HashlineEdit, InsertText, NewFile, ReplaceText

    out: set[str] = set()
    for op in ops:
        if getattr(op, "path", path) == path:
            continue
        if isinstance(op, (NewFile, AppendFile, InsertText)):
            texts = op.text.splitlines()
        elif isinstance(op, ReplaceText):
            texts = op.new.splitlines()
        elif isinstance(op, EditFile):
            texts = [t for h in op.hunks for t in h.new]
        elif isinstance(op, HashlineEdit):
            texts = [t for o in op.ops for t in o.text_lines]
        else:
            continue
        out.update(t.strip() for t in texts)
    return out
