"""apply-patch `@@` anchors (BEHAVIOR.md §3): the line an anchor names, the block it
opens, and the refusals when a chunk's lines are not where its anchors say."""
from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from weakref import WeakKeyDictionary

from .matching import LineIndex, fold_punctuation, leading_ws, nearby_lines
from ..ops import ADD, REMOVE


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
    for folding, w in ((False, want), (True, folded)):
        # only a line holding the text can match (a line folding changes is not ASCII):
        # one pass over the range, not four (each chunk of a big file searches it)
        near = [(i, _folded(line) if folding else line.strip())
                for i, line in enumerate(iter_from(lines, start, end), start)
                if w in line or folding and not line.isascii()]
        for i, t in near:
            if t == w:
                return i
        if w:
            for i, t in near:
                if t.startswith(w) and not (_identifier_char(w[-1]) and _identifier_char(t[len(w)])):
                    return i
    return None


def _folded(line: str) -> str:
    return fold_punctuation(line).strip()


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


# What a light tokenizer of the common languages reads: brackets, string delimiters
# (quotes, backticks, triple quotes), comments (`#`, `//`, `/* */`) and backslash escapes.
# A quoted string is one token and closes on its own line (or the line ends it).
_TOKENS = re.compile(r'"""|\'\'\'|/\*|//|#|`|"(?:\\.|[^"\\])*"?|\'(?:\\.|[^\'\\])*\'?|[()\[\]{}]')
_OPENER = {")": "(", "]": "[", "}": "{"}
_BRACKETS = frozenset("()[]{}")
# what closes each multi-line string or comment (escapes are skipped in strings)
_LONG_END = {'"""': re.compile(r'\\.|"""', re.S), "\'\'\'": re.compile(r"\\.|\'\'\'", re.S),
             "`": re.compile(r"\\.|`", re.S), "/*": re.compile(r"\*/")}


class Nesting:
    """What is open after the lines fed so far: brackets, and a multi-line string or
    comment.  Quotes close on their own line; a closing bracket closes the innermost open
    one of its kind and what was opened inside it (a stray opener), and is ignored when
    none is open (a stray closer, or one opened before the first line fed)."""

    def __init__(self):
        self.brackets: list[tuple[str, int]] = []  # (bracket, line it opened on)
        self.long: tuple[str, int] | None = None  # (opening delimiter, line)

    @property
    def closed(self) -> bool:
        return not self.brackets and self.long is None

    def holding(self, header: set[int]) -> tuple[str, int]:
        """(opening text, 0-based line) of the first thing still open that holds lines at
        the anchor's level (see holds), else of the outermost bracket."""
        strong = [b for b in self.brackets if b[1] in header] + [self.long] * (self.long is not None)
        return min(strong, key=lambda b: b[1]) if strong else self.brackets[0]

    def holds(self, line: str, header: set[int]) -> bool:
        """Whether what is open goes on through ``line``, a line at the anchor's level: a
        multi-line string or comment does, and so do brackets opened on the anchor line or
        another line at its level (a wrapped signature, a brace block); brackets opened in
        the body (deeper) only through a line that starts by closing one (`)`, `]`, `}`):
        a bracket left open there is more likely misread (`a // b` read as a comment)."""
        if self.long is not None or line.lstrip()[:1] in _OPENER:
            return True
        return any(n in header for _b, n in self.brackets)

    def feed(self, line: str, number: int) -> None:
        pos = 0
        while pos is not None:
            if self.long is not None:
                pos = self._close_long(line, pos)
                continue
            m = _TOKENS.search(line, pos)
            if m is None:
                return
            tok, pos = m.group(), m.end()
            if tok in ("#", "//"):
                if _starts_comment(line, m.start()):
                    return
            elif tok in _LONG_END:
                if tok != "/*" or _starts_comment(line, m.start(), "([{,;="):
                    self.long = (tok, number)
            elif tok in _BRACKETS:
                self._bracket(tok, number)

    def _close_long(self, line: str, pos: int) -> int | None:
        """Where the open multi-line string or comment closes on ``line`` (None: it does not)."""
        for m in _LONG_END[self.long[0]].finditer(line, pos):
            if m.group()[0] != "\\":
                self.long = None
                return m.end()
        return None

    def _bracket(self, tok: str, number: int) -> None:
        if tok in "([{":
            self.brackets.append((tok, number))
            return
        want = _OPENER.get(tok)
        for k in range(len(self.brackets) - 1, -1, -1):
            if self.brackets[k][0] == want:
                del self.brackets[k:]
                return


def _starts_comment(line: str, at: int, after: str = "") -> bool:
    """`#`, `//` or `/*` at the start of the text or after a space or one of ``after``
    (not `a.#b`, `$#`, `http://`, a shell glob `src/*`)."""
    return at == 0 or line[at - 1].isspace() or line[at - 1] in after


def block_extent(lines: Sequence[str], at: int) -> tuple[int | None, tuple[str, int] | None]:
    """(end, unclosed) of the block the anchor line ``at`` opens: up to and including the
    next non-blank line indented at or left of it (a closing brace, the next header: an
    edit's context may reach it) that is not inside brackets or a multi-line string or
    comment opened from the anchor line on (a wrapped signature's `):`, a column-0 line of
    a docstring).  When a line at the anchor's level closes what was open and the next one
    is not deeper, the block ends with that line (`}`).  None when no line is indented
    deeper: the anchor opens no indented block (a markdown heading) and bounds nothing.

    What is still open at the end of the file cannot tell where the block ends (a cut-off
    file, a delimiter the tokenizer misread): the block then ends at the first line at the
    anchor's level after it opened, as the indentation alone says, and ``unclosed`` is
    (what, 0-based line) for the refusal."""
    width = indent_width(lines[at])
    nest = Nesting()
    nest.feed(lines[at], at)
    inside = False  # a line indented deeper came
    closing = None  # a line at the anchor's level that closed everything open
    passed: list[int] = []  # lines at the anchor's level passed over because something was open
    header = {at}  # lines at the anchor's level read so far
    for i, line in enumerate(iter_from(lines, at + 1), at + 1):
        if not line.strip():
            continue
        deeper = indent_width(line) > width
        was_open = not nest.closed
        if not deeper and not was_open and _comment_within(lines, i, width):
            continue
        if not (deeper or was_open and nest.holds(line, header)):
            return ((closing if closing is not None else i) + 1 if inside else None), None
        if deeper:
            inside, closing = True, None
        else:
            passed.append(i)
            header.add(i)
        nest.feed(line, i)
        if was_open and not deeper and nest.closed:
            closing = i
    return _end_of_file_extent(lines, nest, header, passed, closing, inside)


_LINE_COMMENT = ("#", "//", "--", ";")


def _comment_within(lines: Sequence[str], i: int, width: int) -> bool:
    """Line ``i`` is only a comment, at or left of the anchor's level, and the next line
    with code is deeper: a comment an editor wrote at column 0 inside the block (``#
    print(y)``), which does not end it."""
    if not lines[i].lstrip().startswith(_LINE_COMMENT):
        return False
    for line in iter_from(lines, i + 1):
        if line.strip() and not line.lstrip().startswith(_LINE_COMMENT):
            return indent_width(line) > width
    return False


def _end_of_file_extent(lines, nest: Nesting, header: set[int], passed: list[int], closing,
                        inside: bool):
    """block_extent when the file ends before a line at the anchor's level ends the block."""
    if not nest.closed:
        opened = nest.holding(header)
        later = [i for i in passed if i > opened[1]]
        if later:  # undecided: bounded where the first line at the anchor's level is
            return later[0] + 1, opened
    if not inside:
        return None, None
    return (closing + 1 if closing is not None else len(lines)), None


def locate_anchors(anchors: list[str], lines: Sequence[str], index: LineIndex, cursor: int):
    """(last anchor line, end of the innermost anchored block or None, (anchor, line,
    unclosed) of that block: see block_extent).  Each anchor is looked for after the previous chunk, then from the top
    (the first), or inside the block of the one before (nested ones)."""
    start, end, block = cursor, None, None
    found = None
    for k, a in enumerate(anchors):
        found = find_anchor(lines, a, start, end)
        if found is None and k == 0 and start:
            found = find_anchor(lines, a, 0)
        if found is None:
            outside = block is not None and find_anchor(lines, a, start) is not None
            where = (f" inside the block of {block[0]!r} ({block_span(block, end)})" if outside
                     else " after the previous anchor" if k else "")
            raise AnchorRefusal(
                f"anchor line {a.strip()!r} not found" + where,
                hint="use an '@@' line copied from the file (a class or function header)",
                nearby=nearby_lines(lines, [a], index))
        block_end, unclosed = _cached_extent(lines, index, found)
        if block_end is not None:
            if end is not None and end < block_end:
                unclosed = None  # the outer block bounds it: its own end does not matter
            end, block = min(block_end, end or block_end), (a.strip(), found, unclosed)
        start = found + 1
    return found, end, block


# block extents per file (its LineIndex): chunks nested in one big class share its block
_EXTENTS: WeakKeyDictionary = WeakKeyDictionary()


def _cached_extent(lines: Sequence[str], index: LineIndex, at: int):
    if index.lines is not lines:
        return block_extent(lines, at)
    known = _EXTENTS.setdefault(index, {})
    if at not in known:
        known[at] = block_extent(lines, at)
    return known[at]


def refuse_outside_block(old: list[str], index: LineIndex, block, end: int,
                         change: tuple[int, bool] | None = None) -> None:
    """No fit puts the chunk's first changed line inside the anchored block, but its old
    side fits elsewhere: refused, naming the anchor.  ``change``: first_change."""
    _tier, fits = index.first_fits(old)
    if fits:
        k, _removes = change if change is not None else (0, False)
        raise AnchorRefusal(
            f"the edit's changed lines fit only outside the block of the anchor {block[0]!r} "
            f"({block_span(block, end)}): its old lines fit at line {fits[0] + 1}, where its "
            f"first change is at line {fits[0] + k + 1}",
            hint="use the '@@' line of the block that holds the edit, or drop the anchor",
            nearby=numbered(index.lines, fits[0], fits[0] + len(old)),
            nearby_label="where they fit")


def first_change(hunk_lines: Sequence[tuple[str, str]]) -> tuple[int, bool]:
    """Where a chunk first changes the file, counted on its old side: ``(k, True)`` when
    its k-th old line (0-based) is removed, ``(k, False)`` when its first added lines go
    before its k-th old line (k = len(old): after the last); a chunk that changes
    nothing: ``(len(old), False)``."""
    k = 0
    for tag, _text in hunk_lines:
        if tag == REMOVE:
            return k, True
        if tag == ADD:
            return k, False
        k += 1
    return k, False


def change_bound(old_len: int, change: tuple[int, bool], hi: int | None) -> int | None:
    """The end bound for LineIndex.fits that keeps a chunk's first change inside the
    anchored block ending at ``hi`` (exclusive; the block's closing line is in it),
    however far its context runs past it (models quote the next definition's first
    lines, BEHAVIOR.md §3): a removed line before ``hi``, added lines at ``hi`` at the
    latest (after the block's last line: a new definition after the anchored one)."""
    if hi is None:
        return None
    k, removes = change
    return hi + old_len - k - removes


def block_span(block, end: int) -> str:
    """The lines of an anchored block for a refusal, and why it ends there when that was
    not decided by the file (something opened in it is never closed)."""
    _anchor, at, unclosed = block
    span = f"lines {at + 1}-{end}"
    if unclosed is not None:
        span += (f"; taken to end there because the {unclosed[0]!r} opened at line "
                 f"{unclosed[1] + 1} is never closed")
    return span


def fit_after_anchor(old: list[str], index: LineIndex, anchor_line: int, hi: int | None,
                     keep=None, change: tuple[int, bool] | None = None) -> tuple[int, list[int]]:
    """(tier, [start]) of an anchored chunk's old side: its first fit after the anchor
    line whose first change (``change``: first_change; default, the chunk's end) lies
    inside the anchored block ending at ``hi``, else a fit that holds the anchor line
    itself (the chunk changes or restates the line it anchors on, its context may start
    above it: a decorator).  Such a fit and another after the anchor line on the same
    tier, or two such fits: refused as ambiguous (the anchor names the one, Codex takes
    the other); on different tiers the closer match wins, as tiers always do."""
    bound = change_bound(len(old), change if change is not None else (len(old), False), hi)
    tier, fits = index.first_fits(old, anchor_line + 1, bound, keep=keep)
    over_tier, over = index.first_fits(
        old, max(0, anchor_line - len(old) + 1), bound,
        keep=lambda s: s <= anchor_line and (keep is None or keep(s)))
    if not over or (fits and tier < over_tier):
        return tier, fits[:1]
    if len(over) > 1 or (fits and tier == over_tier):
        places = [s + 1 for s in over] + [s + 1 for s in fits[:1] if tier == over_tier]
        raise AnchorRefusal(
            f"ambiguous: the edit's old lines fit {len(places)} places that hold or follow "
            f"the anchor line {anchor_line + 1}, starting at lines "
            + ", ".join(map(str, places)),
            hint="start the edit after its '@@' line, or include more unchanged context "
                 "lines so it matches exactly one place",
            candidates=places)
    return over_tier, over


def insertion_after_anchor(lines: Sequence[str], anchor_line: int, path: str = "") -> int:
    """Where a chunk with only added lines goes after its anchor line ``anchor_line``
    (0-based): the 0-based line its added lines go before.  The one place this is
    decided (BEHAVIOR.md §3): after the anchor's whole header as the file's grammar reads
    it (a wrapped signature, the line of its opening brace, a docstring); the line after
    the anchor in a file with no grammar, or where no statement with a body starts."""
    if path:
        from ..grammar.code_tree import read_file

        tree = read_file(path, list(lines))
        end = tree.header_end(anchor_line) if tree is not None else None
        if end is not None:
            return end + 1
    return anchor_line + 1


def numbered(lines: Sequence[str], start: int, end: int) -> list[tuple[int, str]]:
    return [(k + 1, lines[k]) for k in range(start, min(end, start + 14))]
