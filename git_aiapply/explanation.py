"""The explanation (the prose outside the change blocks) read as a small subset of
markdown, line by line, into chunks: prose paragraphs, headings, lists, fenced and
indented code, tables, block quotes and thematic breaks; and inline markup removed from a
line of it (emphasis, links, escapes; backticks stay around code).

Linear in the explanation: lines are scanned once, and no regex here can backtrack.
"""
from __future__ import annotations

from .text import fence_open, is_fence_close
from .record import field, record

MAX_CODE_SPAN = 200  # longer "code spans" are stray backticks

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


def parse_chunks(explanation: str) -> list[Chunk]:
    """The explanation as chunks, in order.  Blank lines only set ``blank_before``."""
    lines = explanation.replace("\r\n", "\n").split("\n")
    chunks: list[Chunk] = []
    blank = False
    i, n = 0, len(lines)

    def add(chunk: Chunk) -> None:
        nonlocal blank
        chunk.blank_before = blank
        chunks.append(chunk)
        blank = False

    while i < n:
        line = lines[i]
        s = line.strip()
        if not s:
            blank = True
            i += 1
            continue
        fence = _fence_of(line)
        if fence:
            j = i + 1
            while j < n and not is_fence_close(lines[j], *fence):
                j += 1
            body = lines[i:j + 1]  # an unclosed fence runs to the end, kept as it is
            if any(ln.strip() for ln in lines[i + 1:j]):
                add(Chunk("code", body))
            i = j + 1
            continue
        if s.lower() in ("<think>", "<thinking>"):  # a model's reasoning left in the text
            close = "</" + s[1:].lower()
            j = i + 1
            while j < n and lines[j].strip().lower() != close:
                j += 1
            i = j + 1
            continue
        if _is_heading(line):
            add(Chunk("heading", [line], text=_heading_text(line)))
            i += 1
            continue
        if _is_setext_equals(line) or _is_break(line):
            prev = chunks[-1] if chunks else None
            if prev is not None and prev.kind == "prose" and not blank and s[0] in "=-":
                # a setext heading: the paragraph's last line was its text
                head, _, last = prev.text.rpartition("\n")
                if head:
                    prev.text = head
                    chunks.append(Chunk("heading", [last], text=last.strip()))
                else:
                    prev.kind = "heading"
                blank = True
            elif _is_break(line):
                add(Chunk("break", [line]))
                blank = True
            else:
                add(Chunk("prose", [line], text=s))
            i += 1
            continue
        if s.startswith("|") or ("|" in s and i + 1 < n and _is_table_delimiter(lines[i + 1])):
            j = i + 1
            while j < n and "|" in lines[j] and lines[j].strip():
                j += 1
            add(Chunk("table", lines[i:j]))
            i = j
            continue
        if s.startswith(">"):
            j = i
            while j < n and lines[j].strip().startswith(">"):
                j += 1
            add(Chunk("quote", lines[i:j]))
            i = j
            continue
        if _indent_of(line) >= 4 and (not chunks or blank) and not (chunks and chunks[-1].kind == "list"):
            j = i
            while j < n and (not lines[j].strip() or _indent_of(lines[j]) >= 4):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            add(Chunk("code", lines[i:j]))
            i = j
            continue
        if _list_marker(line):
            chunk, i = _read_list(lines, i)
            add(chunk)
            continue
        # a prose paragraph; a wholly bold line stands alone, as a heading would
        if _is_bold_line(s):
            add(Chunk("heading", [line], text=s))
            i += 1
            continue
        j = i + 1
        while j < n and lines[j].strip() and not _starts_block(lines[j]) and not _is_bold_line(lines[j].strip()):
            # "Here is the change to `foo`:" then "This makes ...": the colon introduced
            # a change block that was cut out of the explanation, so the paragraph ends
            if lines[j - 1].rstrip().endswith(":") and not lines[j].lstrip()[:1].islower():
                break
            j += 1
        add(Chunk("prose", lines[i:j], text="\n".join(ln.strip() for ln in lines[i:j])))
        i = j
    return chunks


def _read_list(lines: list[str], i: int) -> tuple[Chunk, int]:
    """A list starting at line ``i``: its items, up to the first line that ends it."""
    n = len(lines)
    items: list[ListItem] = []
    blank = False
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s:
            # the list goes on after blank lines only with another item or indented text
            j = i
            while j < n and not lines[j].strip():
                j += 1
            if j < n and (_list_marker(lines[j]) or _indent_of(lines[j]) >= 2) and not _is_break(lines[j]):
                blank = True
                i = j
                continue
            break
        marker = _list_marker(line)
        if marker and not _is_break(line):
            items.append(ListItem(line[:len(line) - len(line.lstrip())], marker, [line], blank))
        elif blank or not items:
            if _is_heading(line) or _is_break(line) or s.startswith(("|", ">")):
                break
            items.append(ListItem(line[:len(line) - len(line.lstrip())], "", [line], blank))
        elif _is_heading(line) or _is_break(line) or s.startswith(("|", ">")) or _is_setext_equals(line):
            break
        else:
            items[-1].lines.append(line)  # a continuation (lazy or indented)
        blank = False
        fence = _fence_of(line) if not marker else _fence_of(s[len(marker):])
        if fence:
            # a fence inside an item: everything up to its close belongs to the item
            items[-1].verbatim = True
            j = i + 1
            while j < n and not is_fence_close(lines[j], *fence):
                items[-1].lines.append(lines[j])
                j += 1
            if j < n:
                items[-1].lines.append(lines[j])
            i = j + 1
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
    """
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
