"""The explanation (the prose outside the change blocks) read as a small subset of
markdown, line by line, into chunks: prose paragraphs, headings, lists, fenced and
indented code, tables, block quotes and thematic breaks; and inline markup removed from a
line of it (emphasis, links, escapes; backticks stay around code).

Linear in the explanation: lines are scanned once, and no regex here can backtrack.
"""
from __future__ import annotations

from functools import lru_cache

from ..text import fence_open, is_fence_close
from ..record import field, record

MAX_CODE_SPAN = 200  # longer "code spans" are stray backticks
MAX_SENTENCES = 200  # sentences of a paragraph read one by one; the rest is kept whole

# Words after which a '.' does not end a sentence.
ABBREVIATIONS = frozenset("""
e.g eg i.e ie etc vs cf approx incl esp viz al ca resp fig mr mrs ms dr
""".split())

_CLOSERS = "*_)\"'\u2019\u201d]"  # may follow a sentence's final punctuation

# --------------------------------------------------------------------------- chunks

@record
class Chunk:
    """A paragraph-level piece of the explanation."""

    kind: str  # prose, heading, list, code, table, quote, break
    lines: list[str]  # the original lines (prose: unused once ``text`` is set)
    blank_before: bool = False  # a blank line separated it from the chunk before
    text: str = ""  # prose and heading: the text (prose lines joined with '\n')
    items: list["ListItem"] = field(default_factory=list)  # list: its items


@record
class ListItem:
    """One item of a markdown list."""

    indent: str  # leading whitespace of the marker line
    marker: str  # '-', '*', '+', '1.', '2)', or '' for a continuation paragraph
    lines: list[str]  # the item's lines as written (first one holds the marker)
    blank_before: bool = False
    verbatim: bool = False  # holds a fence or other structure: never re-wrapped

    def text(self) -> str:
        """The item's words after its marker, lines joined with '\n'."""
        first = self.lines[0].strip()
        if self.marker:
            first = first[len(self.marker):].strip()
        return "\n".join([first] + [ln.strip() for ln in self.lines[1:]])


def _indent_of(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _is_heading(line: str) -> bool:
    """An ATX heading: up to 3 spaces, 1-6 '#', then a space or the end of the line."""
    if _indent_of(line) > 3:
        return False
    s = line.strip()
    n = len(s) - len(s.lstrip("#"))
    return 1 <= n <= 6 and (len(s) == n or s[n] in " \t")


def _heading_text(line: str) -> str:
    s = line.strip().lstrip("#").strip()
    # a closing sequence: '## Title ##'
    stripped = s.rstrip("#")
    if stripped != s and (not stripped or stripped[-1] in " \t"):
        s = stripped.strip()
    return s


def _is_break(line: str) -> bool:
    """A thematic break: three or more of one of - * _ (spaces allowed)."""
    if _indent_of(line) > 3:
        return False
    s = line.strip().replace(" ", "").replace("\t", "")
    return len(s) >= 3 and s[0] in "-*_" and s == s[0] * len(s)


def _is_setext_equals(line: str) -> bool:
    s = line.strip()
    return len(s) >= 2 and s == "=" * len(s) and _indent_of(line) <= 3


def _list_marker(line: str) -> str | None:
    """The list marker that opens ``line`` ('-', '1.', ...), or None."""
    s = line.lstrip()
    if len(s) >= 2 and s[0] in "-*+" and s[1] in " \t":
        return s[0]
    digits = 0
    while digits < len(s) and digits < 9 and s[digits].isdigit():
        digits += 1
    if digits and len(s) > digits + 1 and s[digits] in ".)" and s[digits + 1] in " \t":
        return s[:digits + 1]
    return None


def _fence_of(line: str) -> tuple[str, int] | None:
    """A fence opening at any indentation (fences inside list items count too)."""
    return fence_open(line.strip()) if line.lstrip()[:1] in ("`", "~") else None


def _is_bold_line(s: str) -> bool:
    """A line that is wholly bold, ``**Like this**``: a heading in all but name."""
    for mark in ("**", "__"):
        if len(s) > 4 and s.startswith(mark) and s.endswith(mark) and mark not in s[2:-2]:
            return True
    # '**Like this:**' or '**Like this**:'
    if s.endswith(":") and len(s) > 5:
        return _is_bold_line(s[:-1])
    return False


def _is_table_delimiter(line: str) -> bool:
    """A table's delimiter row: ``---|:---:`` or ``| --- | --- |``."""
    s = line.strip()
    return "|" in s and "-" in s and all(c in "|-: \t" for c in s)


def _starts_block(line: str) -> bool:
    """Whether ``line`` begins a construct that interrupts a prose paragraph."""
    return bool(_fence_of(line) or _is_heading(line) or _is_break(line)
                or _list_marker(line) or line.lstrip().startswith(("|", ">")))


class _ChunkReader:
    """The explanation's lines read into chunks, one construct at a time: each ``read_*``
    method takes the construct that starts at line ``i`` and returns the line after it,
    or None when the line starts something else."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.chunks: list[Chunk] = []
        self.blank = False  # a blank line came after the last chunk

    def add(self, chunk: Chunk) -> None:
        chunk.blank_before = self.blank
        self.chunks.append(chunk)
        self.blank = False

    def read_blank(self, i: int) -> int | None:
        if self.lines[i].strip():
            return None
        self.blank = True
        return i + 1

    def read_fence(self, i: int) -> int | None:
        lines = self.lines
        fence = _fence_of(lines[i])
        if not fence:
            return None
        j = i + 1
        while j < len(lines) and not is_fence_close(lines[j], *fence):
            j += 1
        body = lines[i:j + 1]  # an unclosed fence runs to the end, kept as it is
        if any(ln.strip() for ln in lines[i + 1:j]):
            self.add(Chunk("code", body))
        return j + 1

    def skip_thinking(self, i: int) -> int | None:
        """A model's reasoning left in the text (``<think>`` ... ``</think>``) is dropped."""
        lines = self.lines
        s = lines[i].strip()
        if s.lower() not in ("<think>", "<thinking>"):
            return None
        close = "</" + s[1:].lower()
        j = i + 1
        while j < len(lines) and lines[j].strip().lower() != close:
            j += 1
        return j + 1

    def read_heading(self, i: int) -> int | None:
        line = self.lines[i]
        if not _is_heading(line):
            return None
        self.add(Chunk("heading", [line], text=_heading_text(line)))
        return i + 1

    def read_rule(self, i: int) -> int | None:
        """A line of ``=`` or a thematic break: a setext underline right after a
        paragraph, else a break (``===`` alone is prose)."""
        line = self.lines[i]
        if not (_is_setext_equals(line) or _is_break(line)):
            return None
        s = line.strip()
        prev = self.chunks[-1] if self.chunks else None
        if prev is not None and prev.kind == "prose" and not self.blank and s[0] in "=-":
            # a setext heading: the paragraph's last line was its text
            head, _, last = prev.text.rpartition("\n")
            if head:
                prev.text = head
                self.chunks.append(Chunk("heading", [last], text=last.strip()))
            else:
                prev.kind = "heading"
            self.blank = True
        elif _is_break(line):
            self.add(Chunk("break", [line]))
            self.blank = True
        else:
            self.add(Chunk("prose", [line], text=s))
        return i + 1

    def read_table(self, i: int) -> int | None:
        lines, n = self.lines, len(self.lines)
        s = lines[i].strip()
        delimited = "|" in s and i + 1 < n and _is_table_delimiter(lines[i + 1])
        if not (s.startswith("|") or delimited):
            return None
        j = i + 1
        while j < n and "|" in lines[j] and lines[j].strip():
            j += 1
        self.add(Chunk("table", lines[i:j]))
        return j

    def read_quote(self, i: int) -> int | None:
        lines = self.lines
        if not lines[i].strip().startswith(">"):
            return None
        j = i
        while j < len(lines) and lines[j].strip().startswith(">"):
            j += 1
        self.add(Chunk("quote", lines[i:j]))
        return j

    def read_indented_code(self, i: int) -> int | None:
        """Indented code, where it cannot be a paragraph's or a list's continuation."""
        lines, chunks = self.lines, self.chunks
        if not (_indent_of(lines[i]) >= 4 and (not chunks or self.blank)
                and not (chunks and chunks[-1].kind == "list")):
            return None
        j = i
        while j < len(lines) and (not lines[j].strip() or _indent_of(lines[j]) >= 4):
            j += 1
        while j > i and not lines[j - 1].strip():
            j -= 1
        self.add(Chunk("code", lines[i:j]))
        return j

    def read_list(self, i: int) -> int | None:
        if not _list_marker(self.lines[i]):
            return None
        chunk, j = _read_list(self.lines, i)
        self.add(chunk)
        return j

    def read_bold_line(self, i: int) -> int | None:
        """A wholly bold line stands alone, as a heading would."""
        line = self.lines[i]
        s = line.strip()
        if not _is_bold_line(s):
            return None
        self.add(Chunk("heading", [line], text=s))
        return i + 1

    def read_paragraph(self, i: int) -> int:
        """A prose paragraph: up to a blank line or a line that starts another construct."""
        lines, n = self.lines, len(self.lines)
        j = i + 1
        while (j < n and lines[j].strip() and not _starts_block(lines[j])
               and not _is_bold_line(lines[j].strip()) and not _is_setext_equals(lines[j])):
            # "Here is the change to `foo`:" then "This makes ...": the colon introduced
            # a change block that was cut out of the explanation, so the paragraph ends
            if lines[j - 1].rstrip().endswith(":") and not lines[j].lstrip()[:1].islower():
                break
            j += 1
        self.add(Chunk("prose", lines[i:j], text="\n".join(ln.strip() for ln in lines[i:j])))
        return j


# Tried in this order on each line; a paragraph takes what none of the others does.
_READ_ORDER = (_ChunkReader.read_blank, _ChunkReader.read_fence, _ChunkReader.skip_thinking,
               _ChunkReader.read_heading, _ChunkReader.read_rule, _ChunkReader.read_table,
               _ChunkReader.read_quote, _ChunkReader.read_indented_code, _ChunkReader.read_list,
               _ChunkReader.read_bold_line, _ChunkReader.read_paragraph)


def parse_chunks(explanation: str) -> list[Chunk]:
    """The explanation as chunks, in order.  Blank lines only set ``blank_before``."""
    reader = _ChunkReader(explanation.replace("\r\n", "\n").split("\n"))
    i, n = 0, len(reader.lines)
    while i < n:
        for read in _READ_ORDER:
            after = read(reader, i)
            if after is not None:
                i = after
                break
    return reader.chunks


def _list_goes_on(lines: list[str], i: int) -> int | None:
    """After the blank line ``i`` of a list: the line where the list goes on (another item
    or indented text), or None when the blank line ends it."""
    n = len(lines)
    j = i
    while j < n and not lines[j].strip():
        j += 1
    if j < n and (_list_marker(lines[j]) or _indent_of(lines[j]) >= 2) and not _is_break(lines[j]):
        return j
    return None


def _ends_list(line: str) -> bool:
    """A heading, a break, a table or a quote ends a list."""
    return _is_heading(line) or _is_break(line) or line.strip().startswith(("|", ">"))


def _add_list_line(items: list[ListItem], line: str, marker: str | None, blank: bool) -> bool:
    """``line`` as a new item, a new paragraph of the item, or a continuation of the
    last; False when it ends the list instead."""
    indent = line[:len(line) - len(line.lstrip())]
    if marker and not _is_break(line):
        items.append(ListItem(indent, marker, [line], blank))
    elif blank or not items:
        if _ends_list(line):
            return False
        items.append(ListItem(indent, "", [line], blank))
    elif _ends_list(line) or _is_setext_equals(line):
        return False
    else:
        items[-1].lines.append(line)  # a continuation (lazy or indented)
    return True


def _read_item_fence(lines: list[str], i: int, item: ListItem, fence: tuple[str, int]) -> int:
    """A fence inside an item (opened on line ``i``): everything up to its close belongs
    to the item.  Returns the line after the close."""
    item.verbatim = True
    n = len(lines)
    j = i + 1
    while j < n and not is_fence_close(lines[j], *fence):
        item.lines.append(lines[j])
        j += 1
    if j < n:
        item.lines.append(lines[j])
    return j + 1


def _read_list(lines: list[str], i: int) -> tuple[Chunk, int]:
    """A list starting at line ``i``: its items, up to the first line that ends it."""
    n = len(lines)
    items: list[ListItem] = []
    blank = False
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s:
            goes_on = _list_goes_on(lines, i)
            if goes_on is None:
                break
            blank = True
            i = goes_on
            continue
        marker = _list_marker(line)
        if not _add_list_line(items, line, marker, blank):
            break
        blank = False
        fence = _fence_of(line) if not marker else _fence_of(s[len(marker):])
        if fence:
            i = _read_item_fence(lines, i, items[-1], fence)
            continue
        i += 1
    return Chunk("list", [ln for it in items for ln in it.lines], items=items), i


# --------------------------------------------------------------------------- inline markup

def _code_spans(s: str) -> list[tuple[int, int]]:
    """(start, end) of each backtick code span of ``s``; a run with no close nearby is literal."""
    spans = []
    i, n = 0, len(s)
    while i < n:
        if s[i] != "`":
            i += 1
            continue
        k = i
        while k < n and s[k] == "`":
            k += 1
        run = k - i
        # the closing run: exactly ``run`` backticks, not too far away
        j = k
        limit = min(n, k + MAX_CODE_SPAN)
        close = -1
        while j < limit:
            if s[j] == "`":
                m = j
                while m < n and s[m] == "`":
                    m += 1
                if m - j == run:
                    close = m
                    break
                j = m
            else:
                j += 1
        if close < 0:
            i = k
            continue
        spans.append((i, close))
        i = close
    return spans


def _code(content: str) -> str:
    """``content`` as a code span, with enough backticks to hold its own."""
    if "`" not in content:
        return f"`{content}`"
    longest = run = 0
    for c in content:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    return f"{ticks} {content} {ticks}"


def _is_code_like(content: str) -> bool:
    """Whether a code span's content is code (keep the backticks) or plain words."""
    words = content.split()
    return len(words) <= 1 or not all(w.isalpha() for w in words)


_PUA = 0xE000  # placeholders for code spans while other markup is removed


def strip_markup(s: str) -> str:
    """``s`` without markdown inline markup: emphasis, links, escapes, stray backticks.

    Code spans stay (with their backticks when they hold code, see ``_is_code_like``).
    A message asks it several times of the same sentence: short texts are remembered.
    """
    if len(s) <= _REMEMBERED:
        return _strip_markup_remembered(s)
    return _strip_markup(s)


_REMEMBERED = 2000  # characters: a sentence or a short paragraph, never a whole response


@lru_cache(maxsize=256)
def _strip_markup_remembered(s: str) -> str:
    return _strip_markup(s)


def _strip_markup(s: str) -> str:
    spans = _code_spans(s)
    codes: list[str] = []
    if spans:
        parts = []
        pos = 0
        for a, b in spans:
            parts.append(s[pos:a])
            ticks = len(s[a:b]) - len(s[a:b].lstrip("`"))
            content = s[a + ticks:b - ticks]
            inner = content.strip() if content.strip() else content
            codes.append(_code(inner) if _is_code_like(inner) else inner)
            parts.append(chr(_PUA + len(codes) - 1))
            pos = b
        parts.append(s[pos:])
        s = "".join(parts)
    s = _strip_links(s)
    s = _strip_emphasis(s)
    s = _unescape(s)
    if codes:
        s = "".join(codes[ord(c) - _PUA] if _PUA <= ord(c) < _PUA + len(codes) else c for c in s)
    return " ".join(s.split())


def _strip_links(s: str) -> str:
    """``[text](url)``, ``![alt](url)``, ``[text][ref]`` -> text; ``<http://x>`` -> url."""
    out = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "[" or (c == "!" and i + 1 < n and s[i + 1] == "["):
            start = i + (1 if c == "[" else 2)
            close = s.find("]", start, min(n, start + 300))
            if close > 0 and close + 1 < n and s[close + 1] in "([":
                end_char = ")" if s[close + 1] == "(" else "]"
                end = s.find(end_char, close + 2, min(n, close + 2 + 1000))
                if end > 0:
                    out.append(s[start:close])
                    i = end + 1
                    continue
            out.append(c)
            i += 1
            continue
        if c == "<":
            end = s.find(">", i + 1, min(n, i + 1000))
            inner = s[i + 1:end] if end > 0 else ""
            if inner.startswith(("http://", "https://", "mailto:")) and " " not in inner:
                out.append(inner)
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _is_punct(c: str) -> bool:
    return not c.isalnum() and not c.isspace() and not (_PUA <= ord(c) < _PUA + 6400)


def _can_open_close(c: str, before: str, after: str) -> tuple[bool, bool]:
    """Whether a run of ``c`` between ``before`` and ``after`` can open and can close
    emphasis: CommonMark's left- and right-flanking rules (``_`` also not inside a word)."""
    left = not after.isspace() and (not _is_punct(after) or before.isspace() or _is_punct(before))
    right = not before.isspace() and (not _is_punct(before) or after.isspace() or _is_punct(after))
    if c == "_":
        return left and (not right or _is_punct(before)), right and (not left or _is_punct(after))
    return left, right


def _delimiter_runs(s: str) -> list[list]:
    """The runs of unescaped ``*`` or ``_`` in ``s``: [start, end, char, can_open, can_close]."""
    runs = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c not in "*_" or (i > 0 and s[i - 1] == "\\"):
            i += 1
            continue
        j = i
        while j < n and s[j] == c:
            j += 1
        before = s[i - 1] if i > 0 else " "
        after = s[j] if j < n else " "
        runs.append([i, j, c, *_can_open_close(c, before, after)])
        i = j
    return runs


def _paired_runs(runs: list[list]) -> list[bool]:
    """For each run, whether it pairs with another (a closer with the nearest open run of
    its character; the runs between them are left open no more)."""
    remove = [False] * len(runs)
    stack: list[int] = []
    for r, (_a, _b, c, can_open, can_close) in enumerate(runs):
        if can_close:
            for k in range(len(stack) - 1, -1, -1):
                if runs[stack[k]][2] == c:
                    remove[stack[k]] = remove[r] = True
                    del stack[k:]
                    break
            else:
                if can_open:
                    stack.append(r)
            continue
        if can_open:
            stack.append(r)
    return remove


def _strip_emphasis(s: str) -> str:
    """Remove ``*``/``_`` emphasis delimiters that pair up (CommonMark's flanking rules,
    simplified); ``snake_case`` and ``a * b`` are left alone."""
    runs = _delimiter_runs(s)
    remove = _paired_runs(runs)
    if not any(remove):
        return s
    out = []
    pos = 0
    for r, (a, b, *_rest) in enumerate(runs):
        if remove[r]:
            out.append(s[pos:a])
            pos = b
    out.append(s[pos:])
    return "".join(out)


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out = []
    i, n = 0, len(s)
    while i < n:
        if s[i] == "\\" and i + 1 < n and _is_punct(s[i + 1]):
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


# --------------------------------------------------------------------------- sentences

def sentence_end(text: str, start: int = 0) -> int:
    """Index just past the first sentence of ``text[start:]`` (its final punctuation and
    closing markup included), or ``len(text)``.

    A sentence ends at '.', '!' or '?' followed by whitespace or the end, outside code
    spans; a '.' does not end one after an abbreviation (e.g., i.e., etc., vs.) or when
    a lower-case word follows ("version 1.2. then" is one sentence; so is "approx. ten").
    """
    n = len(text)
    i = start
    while i < n:
        c = text[i]
        if c == "`":
            k = i
            while k < n and text[k] == "`":
                k += 1
            run = k - i
            close = text.find("`" * run, k, min(n, k + MAX_CODE_SPAN))
            i = close + run if close >= 0 else k
            continue
        if c in ".!?":
            j = i + 1
            while j < n and text[j] in ".!?":
                j += 1
            k = j
            while k < n and text[k] in _CLOSERS:
                k += 1
            if k == n:
                return n
            if text[k].isspace():
                if not (c == "." and j == i + 1 and _dot_continues(text, start, i, k)):
                    return k
            i = j
            continue
        i += 1
    return n


def _dot_continues(text: str, start: int, dot: int, after: int) -> bool:
    """Whether the '.' at ``dot`` is inside a sentence (abbreviation, lower-case next)."""
    w = dot
    while w > start and w > dot - 20 and not text[w - 1].isspace():
        w -= 1
    word = text[w:dot].lstrip("(\"'*_").lower()
    if word in ABBREVIATIONS:
        return True
    nxt = after
    n = len(text)
    while nxt < n and text[nxt].isspace():
        nxt += 1
    return nxt < n and text[nxt].islower()


def skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph, in order (``sentence_end``); past MAX_SENTENCES the
    rest of the text is the last one."""
    out: list[str] = []
    pos = skip_space(text, 0)
    while pos < len(text):
        if len(out) == MAX_SENTENCES - 1:
            out.append(text[pos:].rstrip())
            break
        end = sentence_end(text, pos)
        out.append(text[pos:end])
        pos = skip_space(text, end)
    return out
