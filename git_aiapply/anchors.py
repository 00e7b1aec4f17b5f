"""apply-patch `@@` anchors (BEHAVIOR.md §3): the line an anchor names, the block it
opens, and the refusals when a chunk's lines are not where its anchors say."""
from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from .matching import LineIndex, fold_punctuation, leading_ws, nearby_lines


class AnchorRefusal(Exception):
    """A chunk refused for its anchors: the reason and the Problem fields that show it."""

    def __init__(self, reason: str, **details):
        super().__init__(reason)
        self.reason = reason
        self.details = details


def find_anchor(lines: Sequence[str], anchor: str, start: int, end: int | None = None) -> int | None:
    """Index of the anchor line in [start, end): a line equal to it or, failing that, one
    that begins with it where an identifier cannot go on (``def load`` finds ``def
    load(``, never ``def load_config(``); surrounding whitespace ignored, then the same
    with punctuation folded."""
    want = anchor.strip()
    folded = fold_punctuation(want).strip()
    for norm, w in ((str.strip, want), (lambda s: fold_punctuation(s).strip(), folded)):
        for i, line in enumerate(iter_from(lines, start, end), start):
            if norm(line) == w:
                return i
        if w:
            for i, line in enumerate(iter_from(lines, start, end), start):
                t = norm(line)
                if t.startswith(w) and not (_identifier_char(w[-1]) and _identifier_char(t[len(w)])):
                    return i
    return None


def _identifier_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def iter_from(lines: Sequence[str], start: int, end: int | None = None):
    """Lines from ``start`` on (to ``end``); a FileText's Lines decode them a block at a time."""
    if hasattr(lines, "iter_from"):
        it = lines.iter_from(start)
    else:
        it = iter(lines[start:]) if start else iter(lines)
    return it if end is None else islice(it, max(end - start, 0))


def indent_width(line: str) -> int:
    return len(leading_ws(line).expandtabs(8))


def anchored_block(lines: Sequence[str], at: int) -> int | None:
    """End (exclusive) of the block the anchor line ``at`` opens: up to and including the
    next non-blank line indented at or left of it (a closing brace, the next header: an
    edit's context may reach it).  None when the next non-blank line is not indented
    deeper: the anchor opens no indented block (a markdown heading) and bounds nothing."""
    width = indent_width(lines[at])
    inside = False
    for i, line in enumerate(iter_from(lines, at + 1), at + 1):
        if not line.strip():
            continue
        if indent_width(line) <= width:
            return i + 1 if inside else None
        inside = True
    return len(lines) if inside else None


def locate_anchors(anchors: list[str], lines: Sequence[str], index: LineIndex, cursor: int):
    """(last anchor line, end of the innermost anchored block or None, (anchor, line) of
    that block).  Each anchor is looked for after the previous chunk, then from the top
    (the first), or inside the block of the one before (nested ones)."""
    start, end, block = cursor, None, None
    found = None
    for k, a in enumerate(anchors):
        found = find_anchor(lines, a, start, end)
        if found is None and k == 0 and start:
            found = find_anchor(lines, a, 0)
        if found is None:
            outside = block is not None and find_anchor(lines, a, start) is not None
            where = (f" inside the block of {block[0]!r} (lines {block[1] + 1}-{end})" if outside
                     else " after the previous anchor" if k else "")
            raise AnchorRefusal(
                f"anchor line {a.strip()!r} not found" + where,
                hint="use an '@@' line copied from the file (a class or function header)",
                nearby=nearby_lines(lines, [a], index))
        block_end = anchored_block(lines, found)
        if block_end is not None:
            end, block = min(block_end, end or block_end), (a.strip(), found)
        start = found + 1
    return found, end, block


def refuse_outside_block(old: list[str], index: LineIndex, block, end: int) -> None:
    """The old side fits, but not inside the anchored block: refused, naming the anchor."""
    _tier, fits = index.first_fits(old)
    if fits:
        anchor, at = block
        raise AnchorRefusal(
            f"the edit's old lines fit only outside the block of the anchor {anchor!r} "
            f"(lines {at + 1}-{end}), at line {fits[0] + 1}",
            hint="use the '@@' line of the block that holds the edit, or drop the anchor",
            nearby=numbered(index.lines, fits[0], fits[0] + len(old)),
            nearby_label="where they fit")


def numbered(lines: Sequence[str], start: int, end: int) -> list[tuple[int, str]]:
    return [(k + 1, lines[k]) for k in range(start, min(end, start + 14))]
