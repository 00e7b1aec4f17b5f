"""Edits that only add lines and say nothing of where but a line number or nothing at all
(BEHAVIOR.md §3): the shapes that mean "this is the whole file", refused rather than
added on top of the file it restates.

- ``@@ -0,0 +1,N @@`` with only ``+`` lines claims the file is empty (a new file's diff
  written against ``a/X``): on a file with lines ``git apply`` refuses it, and so do we;
  on an empty file it fills it.
- a hunk or apply-patch chunk with no anchor, no context and no removed lines goes at the
  end of the file (after its stated line, when it has one); when its added lines restate
  a large share of the file's own lines it is the whole new file, not an addition
  (docs/DECISIONS.md has the threshold's reason).

Blank context lines do not count as context here: a whole file written as ``+`` lines
keeps its blank lines bare or as ``' '`` lines, which fit any blank line of the file.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .anchors import insertion_after_anchor
from ..ops import CONTEXT, REMOVE, Hunk

# A chunk restates the file when its added lines hold at least this share of the file's
# lines (those with a letter or digit: blank and bracket-only lines say nothing).
RESTATED_SHARE = 0.5
_REWRITE_HINT = ("to change the file, give the lines around the change as context (' ') and "
                 "the old lines as '-' lines; to replace it whole, remove each of its lines "
                 "with '-' and add the new ones with '+'")


def add_only_refusal(h: Hunk, lines: Sequence[str]) -> tuple[str, str] | None:
    """(reason, hint) when the edit ``h``, which only adds lines (around blank context
    lines at most), cannot go into a file of ``lines`` as it says, or None.  Only diff
    hunks and apply-patch chunks are judged
    (FILE_APPEND says "at the end" in so many words)."""
    if h.anchors or h.kind not in ("hunk", "chunk") or not lines or not _placeless(h):
        return None
    if h.line_hint == 0:
        return (f"its header '@@ -0,0' says the file is empty (as a new file's diff does), "
                f"but the file has {_lines(len(lines))}; git apply refuses such a hunk too",
                _REWRITE_HINT)
    # a stated line ('@@ -6,0') says where: an addition there may well repeat lines of the
    # file (a second service copied from the first); it is the file written again only
    # when it also starts as the file starts (asked first: it is cheap, and `diff -U0`
    # output has a thousand such hunks)
    if h.line_hint is not None and not _starts_as(h.new, lines):
        return None
    restated, nonblank = restated_lines(h.new, lines)
    if restated and restated >= RESTATED_SHARE * nonblank:
        return (f"it restates the file: with no anchor, context or removed line, its "
                f"{len(h.new)} added lines hold {restated} of the file's {nonblank} lines "
                "(blank and bracket-only lines aside), so it looks like the whole new "
                "file; added to it, the file would hold those lines twice",
                _REWRITE_HINT)
    return None


def add_only_place(h: Hunk, lines: Sequence[str], anchor_line: int | None,
                   path: str = "") -> int:
    """The 0-based line before which an edit with only added lines goes (BEHAVIOR.md §3):
    after its anchor (``anchor_line``, 0-based; ``anchors.insertion_after_anchor`` decides
    how far after), else at the end of the file when it is marked so or states no line
    (an apply-patch chunk with no anchor), else at its stated line."""
    n_lines = len(lines)
    if anchor_line is not None:
        return insertion_after_anchor(lines, anchor_line, path)
    if h.at_eof or h.line_hint is None:
        return n_lines
    return min(max(h.line_hint, 0), n_lines)


def _placeless(h: Hunk) -> bool:
    """``h`` adds lines and has nothing to be placed by but blank context lines (a blank
    line of the new content written bare, or a ' ' line, fits any blank line)."""
    return not any(tag == REMOVE or (tag == CONTEXT and text.strip()) for tag, text in h.lines)


def restated_lines(added: Sequence[str], lines: Sequence[str]) -> tuple[int, int]:
    """(how many of the file's ``lines`` the ``added`` lines restate, counted as a
    multiset with surrounding whitespace ignored; how many lines the file has), counting
    only lines with a letter or digit (a '}' or a blank line is in every file)."""
    have = _file_counts(lines)
    given = Counter(filter(_says_something, map(str.strip, added)))
    return sum((have & given).values()), sum(have.values())


# the last file counted: a file's context-free hunks are judged one after another
_COUNTED: list = [None, 0, Counter()]


def _file_counts(lines: Sequence[str]) -> Counter:
    """The lines of the file that say something, counted once per file, not per hunk."""
    last, size, counts = _COUNTED
    if last is not lines or size != len(lines):
        counts = Counter(filter(_says_something, map(str.strip, lines)))
        _COUNTED[:] = [lines, len(lines), counts]
    return counts


def _starts_as(added: Sequence[str], lines: Sequence[str]) -> bool:
    """The first line of ``added`` that says something is the file's first such line."""
    first = next((t.strip() for t in lines if _says_something(t)), None)
    return first is not None and first == next(
        (t.strip() for t in added if _says_something(t)), None)


def _says_something(line: str) -> bool:
    return any(ch.isalnum() for ch in line)


def _lines(n: int) -> str:
    return "1 line" if n == 1 else f"{n} lines"
