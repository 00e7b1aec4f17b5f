"""A file's text as lines that keep their own endings, BOM and final-newline state.

Bytes are decoded as UTF-8 with ``surrogateescape``, so a file that is not valid UTF-8
still round-trips byte for byte; lines end at ``\\r\\n``, ``\\n`` or a lone ``\\r``.

A FileText keeps the file's bytes and, once lines are asked for, one array of line start
offsets; a line's str exists only while someone uses it.  (A str and two list slots per
line made a 600,000-line file take over 60 MB, five times its size: issue 6.)  Decoding a
line on its own gives the same str as decoding the whole file: line boundaries are ASCII
bytes, never inside a multi-byte sequence, and surrogateescape escapes invalid bytes one
by one.  A new version of a file is built as bytes (TextBuilder): runs of unchanged lines
are copied from the old bytes, never decoded and encoded again.
"""
from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import NamedTuple

BOM = "\ufeff"
BOM_BYTES = BOM.encode("utf-8")
_LF, _CR = 0x0A, 0x0D
_ENDINGS_LF = re.compile(rb"\n")
_ENDINGS_ANY = re.compile(rb"\r\n|\n|\r")
# str.splitlines would also split on \v, \f, \x1c..., which git does not.
_SPLIT_ANY = re.compile(r"\r\n|\n|\r")
_BLOCK = 8192  # lines decoded at a time when iterating: a few hundred KB of str at most
_match_end = re.Match.end


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def normalize_newlines(text: str) -> str:
    """CRLF (and any run of CRs before a LF) becomes LF; lone CRs elsewhere stay.

    Done by splitting on LF rather than with a regex so it stays linear whatever the
    input (a regex like ``\\r+\\n`` rescans long runs of CRs).
    """
    if "\r" not in text:
        return text
    parts = text.split("\n")
    last = len(parts) - 1
    return "\n".join(p.rstrip("\r") if i < last else p for i, p in enumerate(parts))


def line_number(text: str, offset: int) -> int:
    """1-based number of the line holding character ``offset`` of ``text``."""
    return text.count("\n", 0, offset) + 1


class HunkHeader(NamedTuple):
    """A unified diff's ``@@ -a,b +c,d @@ section`` line.  A count left out is None (the
    reader of the hunk takes 1, as diff does); ``section`` is what follows the closing
    ``@@`` (a function or class line), None when the line has no closing ``@@``."""

    old_start: int
    old_count: int | None
    new_start: int
    new_count: int | None
    section: str | None


# blanks as models write them; the closing '@@' and a section are optional
_HUNK_HEADER = re.compile(
    r"@@[ \t]*-([0-9]+)(?:,([0-9]+))?[ \t]+\+([0-9]+)(?:,([0-9]+))?[ \t]*(?:(@@)(.*))?")


def read_hunk_header(line: str) -> HunkHeader | None:
    """The numbers of an ``@@`` line, or None when it carries none (a bare ``@@``, an
    ``@@ anchor`` of the apply-patch formats, ``@@@`` of a combined diff)."""
    m = _HUNK_HEADER.match(line)
    if m is None:
        return None
    old_count, new_count = m.group(2), m.group(4)
    return HunkHeader(int(m.group(1)), None if old_count is None else int(old_count),
                      int(m.group(3)), None if new_count is None else int(new_count),
                      m.group(6).strip() if m.group(5) else None)


def is_binary(data: bytes) -> bool:
    """Git's rule: a NUL byte in the first 8,000 bytes."""
    return b"\0" in data[:8000]


def line_count(data: bytes) -> int:
    """``len(FileText(data))`` without building one (a plain LF file: its newlines, plus
    a last line without one)."""
    if b"\r" in data or data.startswith(BOM_BYTES):
        return len(FileText(data))
    return data.count(b"\n") + (1 if data and data[-1] != 0x0A else 0)


class FileText:
    """A file's lines with their own endings, BOM and final-newline state.

    ``lines`` (content without endings) is a read-only sequence decoded from the bytes
    on demand; endings stay in the bytes (TextBuilder copies them with the lines it keeps)."""

    __slots__ = ("raw", "bom", "_body", "_has_cr", "_starts", "_counts")

    def __init__(self, raw: bytes):
        self.raw = raw
        self.bom = raw.startswith(BOM_BYTES)
        self._body = len(BOM_BYTES) if self.bom else 0  # offset of the first line
        self._has_cr = b"\r" in raw
        self._starts: array | None = None
        self._counts: tuple[int, int, int] | None = None

    @classmethod
    def from_bytes(cls, data: bytes) -> "FileText":
        return cls(data if type(data) is bytes else bytes(data))

    # -- line positions -------------------------------------------------------------
    def starts(self) -> array:
        """Byte offset in ``raw`` of every line's start, then of the end: n + 1 entries."""
        if self._starts is None:
            raw, body, size = self.raw, self._body, len(self.raw)
            starts = array("q", [body])
            pattern = _ENDINGS_ANY if self._has_cr else _ENDINGS_LF
            starts.extend(map(_match_end, pattern.finditer(raw, body)))
            if starts[-1] != size:  # a last line without an ending
                starts.append(size)
            self._starts = starts
        return self._starts

    def _content_end(self, i: int) -> int:
        """Where line ``i``'s ending starts (its end when it has none).  Content never
        holds a CR or LF, so the bytes before the next line tell the ending."""
        starts, raw = self.starts(), self.raw
        start, end = starts[i], starts[i + 1]
        if end > start and raw[end - 1] == _LF:
            end -= 1
            if end > start and raw[end - 1] == _CR:
                end -= 1
        elif end > start and raw[end - 1] == _CR:
            end -= 1
        return end

    def _line(self, i: int) -> str:
        return decode(self.raw[self.starts()[i]:self._content_end(i)])

    def _lines(self, a: int, b: int) -> list[str]:
        """Lines [a, b) (0 <= a <= b <= n), decoded together."""
        if a >= b:
            return []
        starts = self.starts()
        text = decode(self.raw[starts[a]:starts[b]])
        parts = _SPLIT_ANY.split(text) if self._has_cr else text.split("\n")
        del parts[b - a:]  # the empty part after the last ending
        return parts

    def iter_lines(self, start: int = 0) -> Iterator[str]:
        """Lines from ``start`` on, decoded a block at a time."""
        n = len(self)
        return chain.from_iterable(self._lines(a, min(a + _BLOCK, n))
                                   for a in range(max(start, 0), n, _BLOCK))

    # -- the line model -------------------------------------------------------------
    @property
    def lines(self) -> "Lines":
        return Lines(self)

    @property
    def final_newline(self) -> bool:
        return len(self.raw) == self._body or self.raw[-1] in (_LF, _CR)

    def _ending_counts(self) -> tuple[int, int, int]:
        """How many lines end in LF, CRLF and lone CR (every CR and LF byte is an ending)."""
        if self._counts is None:
            lf = self.raw.count(b"\n")
            if not self._has_cr:
                self._counts = (lf, 0, 0)
            else:
                crlf = self.raw.count(b"\r\n")
                self._counts = (lf - crlf, crlf, self.raw.count(b"\r") - crlf)
        return self._counts

    def dominant_ending(self) -> str:
        lf, crlf, cr = self._ending_counts()
        best = max(lf, crlf, cr)
        if best == 0 or lf == best:  # ties go to LF, then CRLF
            return "\n"
        return "\r\n" if crlf == best else "\r"

    def to_bytes(self) -> bytes:
        return self.raw

    def __len__(self) -> int:
        if self._starts is not None:
            return len(self._starts) - 1
        if len(self.raw) == self._body:
            return 0
        return sum(self._ending_counts()) + (0 if self.final_newline else 1)

    def __eq__(self, other) -> bool:
        if not isinstance(other, FileText):
            return NotImplemented
        return self.raw == other.raw  # same bytes: same lines, endings and BOM

    __hash__ = None

    def __repr__(self) -> str:
        return f"FileText({len(self)} lines, {len(self.raw)} bytes, bom={self.bom})"


class _View(Sequence):
    """A read-only sequence over a FileText's lines; slices are lists."""

    __slots__ = ("ft",)

    def __init__(self, ft: FileText):
        self.ft = ft

    def __len__(self) -> int:
        return len(self.ft)

    def _index(self, i: int) -> int:
        n = len(self.ft)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("line index out of range")
        return i

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, tuple, _View)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class Lines(_View):
    """A FileText's lines without their endings."""

    __slots__ = ()

    def __getitem__(self, i):
        if isinstance(i, slice):
            a, b, step = i.indices(len(self.ft))
            if step == 1:
                return self.ft._lines(a, b)
            return [self.ft._line(k) for k in range(a, b, step)]
        return self.ft._line(self._index(i))

    def __iter__(self) -> Iterator[str]:
        return self.ft.iter_lines()

    def iter_from(self, start: int) -> Iterator[str]:
        return self.ft.iter_lines(start)


class TextBuilder:
    """The bytes of a new version of ``old``: runs of its lines kept as they are (copied
    from its bytes, endings included), and new lines, each given ``default_ending``.

    Every line but the last ends up with an ending (the old last line gets the default
    one when something follows it); ``finish`` sets the last line's final-newline state.
    The BOM is kept."""

    def __init__(self, old: FileText, default_ending: str):
        self.old = old
        self._view = memoryview(old.raw)
        self._ending = default_ending
        self._ending_bytes = encode(default_ending)
        self._parts: list = [self._view[:old._body]] if old.bom else []
        self._run: tuple[int, int] | None = None  # pending run of old lines [a, b)
        self._new: list[str] = []  # pending new lines
        self._open = False  # the last line written has no ending
        self._last_ending = 0  # byte length of the last written line's ending

    def keep(self, a: int, b: int) -> None:
        """Old lines [a, b)."""
        if a >= b:
            return
        self._flush_new()
        if self._run is not None and self._run[1] == a:
            self._run = (self._run[0], b)
        else:
            self._flush_run()
            self._run = (a, b)

    def add(self, texts: Sequence[str]) -> None:
        """New lines (none: nothing, and a pending run of old lines stays open)."""
        if not texts:
            return
        self._flush_run()
        self._new.extend(texts)

    def _close_open(self) -> None:
        if self._open:
            self._parts.append(self._ending_bytes)
            self._open = False

    def _flush_run(self) -> None:
        if self._run is None:
            return
        a, b = self._run
        self._run = None
        self._close_open()
        starts = self.old.starts()
        end = starts[b]
        self._parts.append(self._view[starts[a]:end])
        self._last_ending = end - self.old._content_end(b - 1)
        self._open = self._last_ending == 0  # only the old last line lacks an ending

    def _flush_new(self) -> None:
        if not self._new:
            return
        self._close_open()
        e = self._ending
        self._parts.append(encode(e.join(self._new) + e))
        self._new = []
        self._last_ending = len(self._ending_bytes)

    def finish(self, final_newline: bool) -> FileText:
        self._flush_run()
        self._flush_new()
        if final_newline:
            self._close_open()
        elif self._last_ending:
            last = self._parts.pop()
            self._parts.append(last[:len(last) - self._last_ending])
        data = b"".join(self._parts)
        self._parts = []
        return FileText(data)


# --------------------------------------------------------------------------- markdown fences

# A markdown fence line: 3+ backticks or tildes, optional info string.
FENCE_RE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)")


def fence_open(line: str) -> tuple[str, int] | None:
    """(fence char, length) when ``line`` opens or closes a markdown fence."""
    m = FENCE_RE.fullmatch(line.rstrip())
    if not m:
        return None
    return m.group(1)[0], len(m.group(1))


def fence_info(line: str) -> str:
    """The info string of a fence opening line (``diff`` in ```` ```diff ````), or ''."""
    m = FENCE_RE.fullmatch(line.rstrip())
    return m.group(2).strip() if m else ""


def indent_of(line: str) -> int:
    """Columns of leading whitespace (a tab to the next multiple of 4, as CommonMark)."""
    col = 0
    for ch in line:
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            break
    return col


def is_fence_close(line: str, char: str, length: int, indent: int | None = None) -> bool:
    """``line`` closes a fence of ``char`` x ``length``: a bare fence line at least as long.
    ``indent``: the opening line's; the close may then stand at most three columns to its
    right, as CommonMark reads it (a fence line indented further is the content's own)."""
    s = line.strip()
    if len(s) < length or set(s) != {char}:
        return False
    return indent is None or indent_of(line) <= indent + 3


def content_span(lines: Sequence[str]) -> tuple[int, int]:
    """Where ``lines`` hold content: from the first line that is not blank to just past
    the last (lo == hi when every line is blank)."""
    lo, hi = 0, len(lines)
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return lo, hi


def strip_fence(lines: list[str]) -> list[str]:
    """Drop a markdown fence that wraps ``lines`` entirely (blank lines around it ignored).

    Used for directive content that a model wrapped in ```` ```lang ... ``` ````.
    """
    lo, hi = content_span(lines)
    if hi - lo >= 2:
        f = fence_open(lines[lo])
        if f and fence_close_line(lines, lo, f) == hi - 1:
            return lines[lo + 1:hi - 1]
    return lines


def fence_close_line(lines: Sequence[str], start: int, fence: tuple[str, int]) -> int | None:
    """The line that closes the fence opened on ``lines[start]``, or None.  Fences pair as
    models nest them: a fence line with an info string (```` ```python ````) of the outer
    fence's character and at least its length opens an inner block, which the next bare
    fence line at least as long closes; the outer fence closes at a bare line that no
    inner block is open for.  So content that starts with one fenced block and ends with
    another is not one wrapped block."""
    open_fences = [fence]
    most = indent_of(lines[start]) + 3  # fence lines indented further are content
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if line.lstrip()[:1] not in ("`", "~") or indent_of(line) > most:
            continue
        if is_fence_close(line, *open_fences[-1]):
            open_fences.pop()
            if not open_fences:
                return k
            continue
        inner = fence_open(line.lstrip())  # at any indentation a close would have
        if (inner is not None and fence_info(line.lstrip()) and inner[0] == fence[0]
                and inner[1] >= fence[1]):  # a shorter one could not close the outer anyway
            open_fences.append(inner)
    return None
