"""The format protocol, the one-pass scanner, and text helpers the formats share.

A response may hold several change blocks of several formats.  They are found in ONE
pass, top to bottom (BEHAVIOR.md §2): at each line that no block has consumed, every
selected format may claim an opening; the first that does parses its block through its
close, and that span is opaque to every format (a REPLACE section, a context line, a new
file's content, an example quoted in a markdown file is never read as another block).

The ``Format`` protocol (one object per format, registered in ``formats/__init__.py``):

``name``
    The format's name, as in ``--format`` and the ``AI-Format`` trailer.
``selects``
    Every ``--format`` name that selects this format (default: ``(name,)``; file-changes
    also answers to ``hashline``).
``explicit_only``
    True for a format that is never auto-detected, only used when ``--format`` names it
    (aider's ``whole``: any fenced code would match).
``narrow``
    True for a format auto-detected only where the repository and the caller say so (a
    tracked file's lazy snippet, lazy_snippet.py): not named among the formats looked for.
``triggers``
    The characters a line's first non-blank character must be one of for ``opens`` to
    be asked (a cheap prefilter), or None to ask on every line.
``opens(scan, i) -> bool``
    Whether line ``i`` (0-based, ``scan.lines[i]``) is the marker line that opens a
    block of this format.  Cheap, never raises.  It may peek at lines after ``i`` and
    look behind over prose lines ``scan.floor <= j < i`` (lines no block consumed): a
    block may begin before its marker line (a heredoc ``apply_patch <<'EOF'`` line, an
    aider file path above a fence).
``markers``
    Literal starts of the lines that begin a block of this format (``*** Begin Patch``,
    ``diff --git ``): a response whose last line, after every block, is one of them (or
    the start of one, cut mid-line) is refused as cut off where a block began.
``tells``
    Substrings that show a text holds a block of this format wherever they stand in it
    (``*** Begin Patch``, a diff's ``\n+++ ``): a tool call of no known tool whose input
    holds one looks like an edit and refuses the response (toolcalls.py asks
    ``formats.edit_tell``).
``parse(scan, i) -> Block``
    The block whose marker line ``opens`` accepted, parsed through its close.
    ``Block.start`` may lie before line ``i`` but never before ``scan.offset(scan.floor)``;
    ``Block.end`` is where the block ends (its closing line and its own wrappers
    included; text after ``end`` on the same line is prose and opens nothing).  The
    parser stops before a line that closes ``scan.fence`` (a markdown fence the scanner
    saw open before the block): the scanner gives that line to the block.  It raises
    ``ParseError`` for a block that is malformed or never closed (a response that ends
    inside a block looks cut off: say so), never anything else, and runs in time linear
    in what it consumes (no backtracking regex, no rescanning from the start).

Markdown fences are tracked by the scanner: a fence opened in prose whose content holds
a block belongs to that block (fence lines and any text inside it are not explanation);
a prose fence that holds no change stays prose.  A response that ends inside a fence
holding a change looks cut off and is refused.

What else a format knows lives on its object too (the scanner needs none of it):

``prompts``
    ``--format`` name -> the instructions `git ai-apply prompt NAME` prints (prompts.py
    adds the part common to every format).
``new_file_hint``
    How this format creates a file (``PATH`` stands for the path), for the refusal of an
    edit to a file that does not exist.
``leftover_markup``
    (regular expression, what it is) for lines of this format's markup that must not be
    committed (the hook kit's guard); empty for a format whose lines are ordinary text.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from operator import add

from ..errors import ParseError
from ..ops import Operation
from ..record import field, record, replace
from .reasoning import is_lone_close, reasoning_span
from ..text import content_span, fence_info, fence_open, indent_of, is_fence_close
from typing import Callable

# (a tracked file's path, a fenced block's lines) -> whether they hold placeholder notes
SnippetTest = Callable[[str, "list[str]"], bool]


@record
class Block:
    """A change block found in the response."""

    format: str
    start: int  # character offsets of the block in the response, wrappers included
    end: int
    ops: list[Operation]
    formats: list[str] = field(default_factory=list)  # formats used (default: [format])
    descriptions: list[tuple[str, str]] = field(default_factory=list)  # (path, text)
    notes: list[str] = field(default_factory=list)  # what was left out on purpose, and why

    def __post_init__(self):
        if not self.formats:
            self.formats = [self.format]


def new_file_text(lines: list[str]) -> str:
    """A created file's content (BEHAVIOR.md §5): blank lines around the body dropped,
    exactly one final newline, an empty body gives an empty file."""
    lo, hi = content_span(lines)
    if lo == hi:
        return ""
    return "\n".join(lines[lo:hi]) + "\n"


# --------------------------------------------------------------------------- the scanner

CUT_OFF = "the answer looks cut off"
CUT_OFF_HINT = "send the whole answer again; it ended before its change blocks were complete"


@record
class OpenFence:
    """A markdown fence opened in prose and not yet closed."""

    char: str
    length: int
    line: int  # 0-based line index of the opening line
    holds_change: bool = False
    taken: bool = False  # a block took its closing line as its own (Scan.takes_fence_close)


class Scan:
    """The response being scanned, as the formats see it.

    ``text`` has LF line endings; ``lines`` is ``text.split("\\n")`` and ``starts`` the
    offset of each line.  ``floor`` is the first line no block has consumed (the limit
    of a look-behind); ``fence`` the prose fence open around the current line, if any.
    """

    def __init__(self, text: str, ends_whole: bool = False, formats: "list[Format]" = (),
                 is_snippet: "SnippetTest | None" = None, read_call: "ReadCall | None" = None):
        self.text = text
        self.formats = list(formats)  # the formats looked for
        # the caller's readers (None: no such block is looked for): whether a tracked file's
        # text holds placeholder notes (lazy_snippet.py), a tool use written as text to its
        # operations (agent_text.py)
        self.is_snippet, self.read_call = is_snippet, read_call
        self.ends_whole = ends_whole
        self.lines = text.split("\n")
        # line i starts after the lengths of the lines before it and their i newlines
        # (summed in C: a 100,000-file response has a million lines)
        lengths = list(accumulate(map(len, self.lines), initial=0))
        lengths.pop()
        self.starts = list(map(add, lengths, range(len(lengths))))
        self.floor = 0
        self.fence: OpenFence | None = None
        # what a format remembers from one block to the next (aider's path), by format name
        self.memo: dict[str, object] = {}
        self._last_content: int | None = None
        # the text is a closed fence's content: it ends where its author closed it
        self.inside_fence = False
        self.reasoned = False  # a reasoning block was seen (skip_reasoning)

    def offset(self, i: int) -> int:
        """Offset of line ``i`` (the end of the text past the last line)."""
        return self.starts[i] if i < len(self.starts) else len(self.text)

    def end_of(self, i: int) -> int:
        """Offset just past line ``i`` and its newline."""
        return min(len(self.text), self.starts[i] + len(self.lines[i]) + 1)

    def index_of(self, offset: int) -> int:
        """0-based index of the line holding ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def line_of(self, offset: int) -> int:
        """1-based response line of ``offset``."""
        return self.index_of(offset) + 1

    def stop_line(self, end: int) -> int:
        """The first line wholly after a block that ends at offset ``end``."""
        if end >= len(self.text):
            return len(self.lines)
        i = self.index_of(end)
        return i if self.starts[i] == end else i + 1

    def takes_fence_close(self, i: int) -> None:
        """A block's parser took line ``i``, a fence's closing line, as its own: when it
        closes the prose fence open around the block, that fence is the block's."""
        f = self.fence
        if f is not None and i > f.line and self.ends_fence(i):
            f.taken = True

    def ends_fence(self, i: int) -> bool:
        """Line ``i`` closes the prose fence open around the block being parsed."""
        f = self.fence
        return f is not None and is_fence_close(self.lines[i], f.char, f.length,
                                                indent_of(self.lines[f.line]))

    @property
    def last_content(self) -> int:
        """Index of the last line that is not blank (-1 for a blank response)."""
        if self._last_content is None:
            k = len(self.lines) - 1
            while k >= 0 and not self.lines[k].strip():
                k -= 1
            self._last_content = k
        return self._last_content

    def ends_mid_line(self, i: int) -> bool:
        """Line ``i`` is the response's last line and has no newline: it may be cut
        (unless the response is known to end where its author stopped)."""
        return not self.ends_whole and i == len(self.lines) - 1 and self.lines[i] != ""


class Format:
    """Base of the format objects; see the module docstring for the protocol."""

    name: str = ""
    selects: tuple[str, ...] = ()
    explicit_only: bool = False
    narrow: bool = False
    # reads a block indented as a whole (a list item's) itself, path line included; others'
    # blocks in an indented fence are read with the fence's indentation removed
    reads_indented: bool = False
    triggers: str | None = None
    # literal starts of the lines that begin a block of the format (case-insensitive): a
    # response whose last line is one (or, cut mid-line, the start of one) was cut off
    markers: tuple[str, ...] = ()
    # substrings that show a text holds a block of the format, wherever they stand: an
    # unknown tool's call whose input holds one looks like an edit (formats.edit_tell)
    tells: tuple[str, ...] = ()
    prompts: dict[str, str] = {}
    new_file_hint: str = ""
    leftover_markup: tuple[tuple[str, str], ...] = ()

    def opens(self, scan: Scan, i: int) -> bool:  # pragma: no cover - protocol
        raise NotImplementedError

    def parse(self, scan: Scan, i: int) -> Block:  # pragma: no cover - protocol
        raise NotImplementedError

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        """Whether line ``k``, the response's last after every block, begins a block of
        this format whose rest never came (``mid_line``: the line itself is cut)."""
        line = scan.lines[k].strip().lower()
        # cut in a marker's first characters ('<', '**'); a lone letter may be a word
        partial = mid_line and line != "" and (len(line) >= 2 or not line.isalnum())
        for marker in self.markers:
            marker = marker.lower()
            if line.startswith(marker) or (partial and marker.startswith(line)):
                return True
        return False

    def finish(self, scan: Scan) -> "list[tuple[int, int]]":
        """After the scan (a format joining its blocks): spans of its structure, no prose."""
        return []

    def selected_by(self) -> tuple[str, ...]:
        return self.selects or (self.name,)


@record
class ScanResult:
    blocks: list[Block]
    # spans that are not explanation beyond the blocks' own: fences holding a change, and
    # the model's reasoning blocks (skip_reasoning)
    wrappers: list[tuple[int, int]]


def scan_blocks(text: str, formats: "list[Format]", ends_whole: bool = False,
                inside_fence: bool = False, is_snippet: "SnippetTest | None" = None,
                read_call: "ReadCall | None" = None) -> ScanResult:
    """Every change block of ``text`` (LF line endings), found in one pass (see above).
    ``inside_fence``: the text is a closed fence's content, so where it ends no block was
    cut off.  ``is_snippet``, ``read_call``: the ``Scan``'s readers."""
    scan = Scan(text, ends_whole, formats, is_snippet, read_call)
    scan.inside_fence, found, lines = inside_fence, ScanResult([], []), scan.lines
    n = len(lines)
    wanted = _first_characters_wanted(formats)
    i = 0
    while i < n:
        line = lines[i]
        first = line.lstrip()[:1]
        if first == "<" and scan.fence is None and not scan.inside_fence:
            after = skip_reasoning(scan, i, found)  # whichever formats are looked for
            if after is not None:
                i = scan.floor = after
                continue
        if wanted is not None and first not in wanted and scan.fence is None:
            i += 1  # a prose line no format opens on and no fence: the common case, kept cheap
            continue
        claimed = _claimant(scan, formats, i, first) if first else None
        if claimed is not None:
            i = scan.floor = _take_block(scan, claimed, i, found)
            continue
        if scan.fence is None and first in ("`", "~") and line[:1] == " ":
            fenced = _indented_fence(scan, formats, i)
            if isinstance(fenced, OpenFence):
                scan.fence = fenced  # a prose fence, even indented 4 or more: its lines
                i += 1  # are never looked at again as fence openings
                continue
            if fenced is not None:
                inner, stop = fenced
                found.blocks.extend(inner)
                found.wrappers.append((scan.starts[i], scan.offset(stop)))
                i = scan.floor = stop
                continue
        _follow_prose_fence(scan, i, first, found.wrappers)
        i += 1
    fence = scan.fence
    if fence is not None and fence.holds_change:
        raise ParseError(f"{CUT_OFF}: the code fence opened at response line {fence.line + 1} "
                         "holds a change and is never closed", line=fence.line + 1,
                         hint=CUT_OFF_HINT)
    if not inside_fence:
        _refuse_cut_at_a_block_start(scan, formats)
    for fmt in formats:
        found.wrappers.extend(fmt.finish(scan))  # an agent's labels, its commands
    return found


def _first_characters_wanted(formats: "list[Format]") -> frozenset[str] | None:
    """The first characters of a line that some format may open on or that may open a
    fence; None when a format asks on every line."""
    if any(fmt.triggers is None for fmt in formats):
        return None
    return frozenset("`~").union(*(fmt.triggers or "" for fmt in formats))


def _claimant(scan: Scan, formats: "list[Format]", i: int, first: str) -> "Format | None":
    """The first format whose block opens on line ``i`` (``first``: the line's first
    non-blank character, the formats' cheap prefilter)."""
    for fmt in formats:
        if (fmt.triggers is None or first in fmt.triggers) and fmt.opens(scan, i):
            return fmt
    return None


def _take_block(scan: Scan, fmt: "Format", i: int, found: ScanResult) -> int:
    """Parse the block ``fmt`` claimed on line ``i`` into ``found``, with the prose fence
    around it when it is the block's; return the first line after both."""
    try:
        block = fmt.parse(scan, i)
    except ParseError as e:
        raise _as_cut_off(scan, e, fmt) from None
    if block.start < scan.offset(scan.floor) or block.end <= block.start:
        raise AssertionError(f"format {fmt.name} claimed text outside its reach")
    stop = _take_enclosing_fence(scan, block, scan.stop_line(block.end), found.wrappers)
    found.blocks.append(block)
    return stop


def _take_enclosing_fence(scan: Scan, block: Block, stop: int,
                          wrappers: list[tuple[int, int]]) -> int:
    """The prose fence open around a block holds a change: when its closing line follows
    the block (or the block took it), the fence is the block's wrapper.  Returns the
    first line after the block and the fence it took."""
    fence = scan.fence
    if fence is None:
        return stop
    if fence.taken:
        # the block took the fence's closing line as its own wrapper (aider's path
        # line, opening and closing fence around a SEARCH/REPLACE block)
        if scan.starts[fence.line] < block.start:
            wrappers.append((scan.starts[fence.line], block.start))
        scan.fence = None
        return stop
    fence.holds_change = True
    j = stop
    while j < len(scan.lines) and not scan.lines[j].strip():
        j += 1
    if j < len(scan.lines) and scan.ends_fence(j):
        # the fence around the block belongs to it
        wrappers.append((scan.starts[fence.line], scan.end_of(j)))
        scan.fence = None
        return j + 1
    return stop


def _follow_prose_fence(scan: Scan, i: int, first: str, wrappers: list[tuple[int, int]]) -> None:
    """Line ``i``, which no block claimed, opens or closes a prose fence: track it (a
    closed fence that held a change is a wrapper)."""
    fence = scan.fence
    line = scan.lines[i]
    if fence is None:
        opened = fence_open(line) if first in ("`", "~") else None
        if opened:
            scan.fence = OpenFence(opened[0], opened[1], i)
    elif is_fence_close(line, fence.char, fence.length, indent_of(scan.lines[fence.line])):
        if fence.holds_change:
            wrappers.append((scan.starts[fence.line], scan.end_of(i)))
        scan.fence = None


def _indented_fence(scan: Scan, formats: "list[Format]",
                    i: int) -> tuple[list[Block], int] | OpenFence | None:
    """A fence indented N spaces (a list item's) whose content, read as CommonMark reads it
    (up to N spaces removed from each line), holds change blocks: (those blocks, the line
    after the fence); a fence holding none (or blocks a format reads at the lines' own
    indentation): the prose fence it opens; None when line ``i`` opens no fence.  A
    response ending inside such a fence with a block looks cut off."""
    lines = scan.lines
    line = lines[i]
    k = len(line) - len(line.lstrip(" "))
    opened = fence_open(line[k:])
    if opened is None:
        return None
    n = len(lines)
    j = i + 1
    while j < n and not is_fence_close(lines[j], *opened):
        j += 1
    prose = OpenFence(opened[0], opened[1], i)
    if _read_at_own_indentation(scan, formats, i + 1, j):
        return prose
    closed = j < n
    inner = _scan_fence_content(scan, formats, i, j, k)
    if not inner.blocks:
        return prose
    if not closed:
        raise ParseError(f"{CUT_OFF}: the code fence opened at response line {i + 1} holds a "
                         "change and is never closed", line=i + 1, hint=CUT_OFF_HINT)
    start, end = scan.starts[i], scan.end_of(j)
    for block in inner.blocks:
        block.start, block.end = start, end
        for op in block.ops:
            if op.source.line:
                op.source = replace(op.source, line=op.source.line + i + 1)
    return inner.blocks, j + 1


def _read_at_own_indentation(scan: Scan, formats: "list[Format]", lo: int, hi: int) -> bool:
    """A block of a format that reads indented lines itself opens among lines ``lo`` to
    ``hi`` (aider's blocks: their path is outside the fence)."""
    for m in range(lo, hi):
        first = scan.lines[m].lstrip()[:1]
        if first and any(f.reads_indented and (f.triggers is None or first in f.triggers)
                         and f.opens(scan, m) for f in formats):
            return True
    return False


def _scan_fence_content(scan: Scan, formats: "list[Format]", i: int, j: int,
                        k: int) -> ScanResult:
    """The blocks of the fence opened on line ``i`` (indented ``k`` spaces) and closed on
    line ``j`` (never, when ``j`` is past the end), its content read with up to ``k``
    spaces removed from each line; a problem's response line counts from the response."""
    lines = scan.lines
    pad = " " * k
    body = "\n".join(l[k:] if l.startswith(pad) else l.lstrip(" ") for l in lines[i + 1:j])
    closed = j < len(lines)
    try:
        return scan_blocks(body + "\n" if closed else body, formats,
                           ends_whole=scan.ends_whole and not closed, inside_fence=closed,
                           is_snippet=scan.is_snippet, read_call=scan.read_call)
    except ParseError as e:
        for problem in e.problems:
            if problem.response_line:
                problem.response_line += i + 1
        raise


def _as_cut_off(scan: Scan, error: ParseError, fmt: "Format") -> ParseError:
    """A block's error on the response's last line when that line stops mid-line: the
    line may be cut (``*** Begin Patch`` then ``*``, ``<FILE_PATCH file_path="sr``), so
    the answer is refused as cut off, the block's own complaint kept in brackets."""
    n = len(scan.lines)
    if scan.inside_fence or CUT_OFF in str(error) or not scan.ends_mid_line(n - 1):
        return error
    on_last = [p for p in error.problems if p.response_line == n]
    if not on_last:
        return error
    return ParseError(f"{CUT_OFF}: it ends mid-line at response line {n} "
                      f"({scan.lines[-1].strip()[:60]!r}) inside a {fmt.name} block "
                      f"({on_last[0].reason})", line=n, directive=on_last[0].directive,
                      file=on_last[0].file, hint=CUT_OFF_HINT)


def _refuse_cut_at_a_block_start(scan: Scan, formats: "list[Format]") -> None:
    """Refuse a response that stops where a change block begins (BEHAVIOR.md §2): its
    last line, after every complete block, is a block's opening marker line (or the
    start of one, when the response ends mid-line), or it ends right after opening a
    code fence with an info string (```` ```diff ````): the block never came, and the
    blocks before it may be only part of the answer."""
    k = scan.last_content
    if k < scan.floor:
        return  # the response ends with a block (or its fence)
    fence = scan.fence
    # a last line of spaces without its newline: cut in the indentation of a line that
    # never came, so the last line with content is read as one cut short too
    in_indent = not scan.ends_whole and scan.lines[-1] != "" and not scan.lines[-1].strip()
    mid_line = scan.ends_mid_line(k) or in_indent
    # a bare fence right after a block may be a stray close; after prose it opens
    after_prose = any(scan.lines[j].strip() for j in range(scan.floor, k))
    if fence is not None and k == fence.line and (fence_info(scan.lines[k]) or mid_line
                                                  or after_prose):
        raise ParseError(f"{CUT_OFF}: it ends right after opening a code fence at response line "
                         f"{k + 1} ({scan.lines[k].strip()!r}), before any content",
                         line=k + 1, hint=CUT_OFF_HINT)
    if ((mid_line and scan.lines[k].strip() in ("`", "``", "~", "~~"))  # cut in a fence line
            or any(f.begins_block(scan, k, mid_line) for f in formats)):
        raise ParseError(f"{CUT_OFF}: it ends at response line {k + 1} with "
                         f"{scan.lines[k].strip()[:60]!r}, where a change block begins",
                         line=k + 1, hint=CUT_OFF_HINT)


# --------------------------------------------------------------------------- reasoning
# A model's reasoning left in a text answer is not the answer (formats/reasoning.py).

def skip_reasoning(scan: Scan, i: int, found: ScanResult) -> int | None:
    """When line ``i`` opens a reasoning block: its span (through its closing tag) joins
    ``found.wrappers`` and the first line after it is returned; None when it opens none.
    A reasoning block never closed is an answer cut off in its reasoning: refused.  A
    closing tag alone on line ``i`` before any reasoning was opened ends reasoning whose
    opening tag the chat template wrote (DeepSeek-R1's): everything before it goes."""
    span = reasoning_span(scan.lines, i)
    if span is None:
        return _stray_close(scan, i, found)
    name, close = span
    scan.reasoned = True
    if close is None:
        raise ParseError(f"{CUT_OFF}: the model's reasoning opened at response line {i + 1} "
                         f"(<{name}>) is never closed with </{name}>, so the answer after it "
                         "never came", line=i + 1, hint=CUT_OFF_HINT)
    j, end = close
    start = scan.starts[i] + len(scan.lines[i]) - len(scan.lines[i].lstrip())
    found.wrappers.append((start, scan.starts[j] + end))
    return j + 1


def _stray_close(scan: Scan, i: int, found: ScanResult) -> int | None:
    """Line ``i`` is a reasoning block's closing tag alone and no reasoning was opened:
    the text before it was reasoning; what was read in it is dropped."""
    if scan.reasoned or not is_lone_close(scan.lines[i]):
        return None
    scan.reasoned = True
    found.blocks.clear()
    found.wrappers[:] = [(0, scan.starts[i] + len(scan.lines[i].rstrip()))]
    scan.memo.clear()
    return i + 1


# --------------------------------------------------------------------------- tags
# The tag and attribute syntax of the XML-ish formats (<FILE_CHANGES> directives,
# <CodeChange>): attribute names compare lower-cased with '_' and '-' dropped, so
# file_path, filePath and file-path are one name.

TAG_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ATTR_CHARS = TAG_NAME_CHARS | frozenset("-:.")
_SPACE = " \t\r\n"


class Tag:
    """A parsed opening or closing tag."""

    def __init__(self, name: str, closing: bool, attrs: dict[str, str], self_closing: bool,
                 end: int):
        self.name = name  # upper-cased
        self.closing = closing
        self.attrs = attrs  # normalised key -> value
        self.self_closing = self_closing
        self.end = end  # offset just after '>'


def skip_space(text: str, pos: int, chars: str = _SPACE) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def attribute_key(key: str) -> str:
    """An attribute's name as compared: lower-cased, '_' and '-' dropped."""
    return key.lower().replace("_", "").replace("-", "")


def _unquoted_value_end(text: str, p: int, end: int) -> int:
    """Where an unquoted value starting at ``p`` ends: whitespace, '>' or '/>'."""
    while p < end and text[p] not in _SPACE + ">" and not text.startswith("/>", p):
        p += 1
    return p


# A well-formed tag whose attributes are all quoted and apart, read by one match (a
# response may hold 100,000 tags); possessive, so a failed match costs one pass.  Any
# other text goes to the character-by-character reading below, which gives the errors.
_PLAIN_TAG = re.compile(
    r"<[ \t]*+(/[ \t]*+)?+([A-Za-z0-9_]++)"
    r"((?:[ \t\r\n]++[A-Za-z0-9_\-:.]++[ \t]*+=[ \t]*+(?:\"[^\"\n]*+\"|'[^'\n]*+'))*+)"
    r"[ \t\r\n]*+(/[ \t]*+)?+>")
_PLAIN_ATTR = re.compile(r"[ \t\r\n]++([A-Za-z0-9_\-:.]++)[ \t]*+=[ \t]*+(?:\"([^\"\n]*+)\"|'([^'\n]*+)')")


def parse_tag(text: str, pos: int, line: int) -> Tag | None:
    """The tag starting at ``text[pos] == '<'``, strictly; None when no tag name follows
    the '<'.  Raises ParseError for a tag that starts but is malformed (no '>', an
    attribute without a value or closing quote, one given twice with two values)."""
    m = _PLAIN_TAG.match(text, pos)
    if m is not None:
        closing, name, inside, self_closing = m.groups()
        attrs: dict[str, str] = {}
        # (name, "value", 'value'): an empty value is "" whichever quotes held it
        for key, double, single in _PLAIN_ATTR.findall(inside) if inside else ():
            value = double or single
            if attrs.setdefault(attribute_key(key), value) != value:
                break  # given twice with two values: the reading below says so
        else:
            return Tag(name.upper(), closing is not None, attrs, self_closing is not None,
                       m.end())
    return _read_tag(text, pos, line)


def _read_tag(text: str, pos: int, line: int) -> Tag | None:
    """``parse_tag``'s reading character by character, for a tag the one-match reading
    did not take: it reads what it can and says what is wrong."""
    p = skip_space(text, pos + 1, " \t")
    closing = p < len(text) and text[p] == "/"
    if closing:
        p = skip_space(text, p + 1, " \t")
    q = p
    while q < len(text) and text[q] in TAG_NAME_CHARS:
        q += 1
    if q == p:
        return None
    name = text[p:q].upper()
    attrs: dict[str, str] = {}
    p = q
    while True:
        p = skip_space(text, p)
        if p >= len(text):
            raise ParseError(f"the <{name}> tag is not finished ('>' missing)", line=line,
                             directive=name)
        c = text[p]
        if c == ">":
            return Tag(name, closing, attrs, False, p + 1)
        if c == "/":
            r = skip_space(text, p + 1, " \t")
            if r < len(text) and text[r] == ">":
                return Tag(name, closing, attrs, True, r + 1)
            raise ParseError(f"stray '/' in the <{name}> tag", line=line, directive=name)
        key, value, p = _read_attribute(text, p, name, line)
        norm = attribute_key(key)
        if norm in attrs and attrs[norm] != value:
            raise ParseError(f"attribute {key!r} of <{name}> is given twice", line=line,
                             directive=name)
        attrs[norm] = value


def _read_attribute(text: str, p: int, name: str, line: int) -> tuple[str, str, int]:
    """The attribute starting at ``text[p]`` in the tag ``name``, strictly: its name, its
    value (quoted on one line, or unquoted) and the offset after it."""
    q = p
    while q < len(text) and text[q] in _ATTR_CHARS:
        q += 1
    if q == p:
        raise ParseError(f"unexpected {text[p]!r} in the <{name}> tag", line=line, directive=name)
    key = text[p:q]
    p = skip_space(text, q, " \t")
    if p >= len(text) or text[p] != "=":
        raise ParseError(f"attribute {key!r} of <{name}> has no value", line=line,
                         directive=name)
    p = skip_space(text, p + 1, " \t")
    if p < len(text) and text[p] in "\"'":
        quote = text[p]
        close = text.find(quote, p + 1)
        if close < 0 or "\n" in text[p + 1:close]:  # values stay on one line
            raise ParseError(f"attribute {key!r} of <{name}> has no closing {quote}",
                             line=line, directive=name)
        return key, text[p + 1:close], close + 1
    q = _unquoted_value_end(text, p, len(text))
    return key, text[p:q], q


def read_attributes(text: str) -> dict[str, str]:
    """The attributes in ``text`` (a tag's inside, after its name), leniently: a name
    without a value is "", a quote that never closes runs to the end, junk is skipped,
    and when a name repeats its first value is kept."""
    attrs: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        i = skip_space(text, i, _SPACE + "/")
        start = i
        while i < n and text[i] not in _SPACE and text[i] not in "=/":
            i += 1
        name = attribute_key(text[start:i])
        if i == start:
            i += 1
            continue
        i = skip_space(text, i)
        if i >= n or text[i] != "=":
            attrs.setdefault(name, "")
            continue
        i = skip_space(text, i + 1)
        if i < n and text[i] in "\"'":
            close = text.find(text[i], i + 1)
            close = n if close < 0 else close
            value, i = text[i + 1:close], close + 1
        else:
            start = i
            while i < n and text[i] not in _SPACE:
                i += 1
            value = text[start:i]
        attrs.setdefault(name, value)
    return attrs
