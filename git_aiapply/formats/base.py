"""What every format module provides, and text helpers they share.

A format module exposes ``NAME`` (the format's name) and
``find_blocks(text: str) -> list[Block]``.  ``text`` is the whole response with CRLF
already turned into LF; regions that a format of higher priority claimed are blanked
out (replaced by spaces, newlines kept) so offsets stay valid.  A module must:

- return every change block it recognises, with the character span of the block
  including its own wrappers (heredoc lines, its tags); the dispatcher widens a span to
  a markdown fence that encloses it exactly;
- raise ``ParseError`` for a block that is opened and never closed, or malformed;
- never raise anything else, and run in time linear in the text (no backtracking regex).
"""
from __future__ import annotations

import re
from ..record import field, record

from ..ops import Operation

# A markdown fence line: 3+ backticks or tildes, optional info string.
FENCE_RE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)")


@record
class Block:
    """A change block found in the response."""

    format: str
    start: int  # character offsets of the block in the response, wrappers included
    end: int
    ops: list[Operation]
    formats: list[str] = field(default_factory=list)  # formats used (default: [format])
    descriptions: list[tuple[str, str]] = field(default_factory=list)  # (path, text)

    def __post_init__(self):
        if not self.formats:
            self.formats = [self.format]


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def fence_open(line: str) -> tuple[str, int] | None:
    """(fence char, length) when ``line`` opens or closes a markdown fence."""
    m = FENCE_RE.fullmatch(line.rstrip())
    if not m:
        return None
    return m.group(1)[0], len(m.group(1))


def is_fence_close(line: str, char: str, length: int) -> bool:
    s = line.strip()
    return len(s) >= length and set(s) == {char}


def strip_fence(lines: list[str]) -> list[str]:
    """Drop a markdown fence that wraps ``lines`` entirely (blank lines around it ignored).

    Used for directive content that a model wrapped in ```` ```lang ... ``` ````.
    """
    lo, hi = 0, len(lines)
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    if hi - lo >= 2:
        f = fence_open(lines[lo])
        if f and is_fence_close(lines[hi - 1], *f):
            return lines[lo + 1:hi - 1]
    return lines


def blank_out(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces (newlines kept), offsets unchanged."""
    if not spans:
        return text
    parts = []
    pos = 0
    for s, e in sorted(spans):
        if s < pos:
            s = pos
        if e <= s:
            continue
        parts.append(text[pos:s])
        parts.append(re.sub(r"[^\n]", " ", text[s:e]))
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


def new_file_text(lines: list[str]) -> str:
    """A created file's content (BEHAVIOR.md §5): blank lines around the body dropped,
    exactly one final newline, an empty body gives an empty file."""
    lo, hi = 0, len(lines)
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    if lo == hi:
        return ""
    return "\n".join(lines[lo:hi]) + "\n"
