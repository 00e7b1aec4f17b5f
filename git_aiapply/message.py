"""The commit message: a subject and body from the response's prose, then trailers.

BEHAVIOR.md §8.  The explanation (the prose outside the change blocks) is read as a
small subset of markdown, line by line, into chunks: prose paragraphs, headings, lists,
fenced and indented code, tables, block quotes and thematic breaks.

Subject: the first sentence of the first chunk that says something.  Skipped on the way:
code, tables and quotes; generic headings and lead-ins ("Summary", "## Changes made",
"Here's the fix:", "**Root cause:**"), which are dropped from the body as well; filler
openings ("Sure!", "Certainly,"); closing pleasantries ("Let me know if ...").  Markdown
markup is removed; backticks stay around code (anything but plain words).  At most
``subject_max`` characters: a longer sentence is cut at a word boundary and ends with
``…``, and the whole sentence then opens the body.

Body: the rest.  Prose paragraphs are re-wrapped at 72 columns; code, tables and quotes
are kept as they are; list items are kept, or re-wrapped with a hanging indent when a
line of theirs is longer than 72 columns; headings lose their ``#`` (git's message
cleanup would take such lines for comments); thematic breaks are dropped (git reads a
``---`` line as the end of the message when it looks for trailers).

Everything here is linear in the explanation: lines are scanned once, and the regexes
used cannot backtrack.
"""
from __future__ import annotations

from .record import field, record

from .formats.base import fence_open, is_fence_close

SUBJECT_MAX = 72
BODY_WIDTH = 72
ELLIPSIS = "\u2026"

# Headings and lead-ins that say nothing about the change (compared after _normalize).
GENERIC = frozenset(p.strip() for p in """
summary|changes|change|plan|explanation|overview|solution|fix|fixes|the fix|the changes
changes made|change made|summary of changes|summary of the changes|changes summary
explanation of changes|explanation of the changes|overview of changes|what changed
what i changed|what was changed|what's changed|whats changed|key changes|main changes
code changes|proposed changes|the solution|proposed solution|proposed fix|the patch|patch
diff|the diff|implementation|the implementation|approach|the approach|details|description
notes|note|result|results|answer|response|update|updates|updated code|the updated code
modified code|the code|code|corrected code|root cause|the problem|problem|the issue|issue
cause|analysis|context|background|why|motivation|rationale|reasoning|how|what|testing
tests|how to test|verification|steps|next steps|files changed|modified files|changed files
file changes|edits|the edits|tl;dr|tldr|done|complete|changes i made|what i did
i've made the following changes|i made the following changes|the following changes
the following changes were made|following changes|here's what i changed
here is what i changed|here's what changed|here is what changed|here's what i did
here is what i did|commit message|suggested commit message
""".replace("\n", "|").split("|") if p.strip())

# Nouns that a "Here's the ..." preamble introduces ("Here's the fix:", "Here are the
# updated files:"): with nothing after them the line is generic.
_PREAMBLE_NOUNS = frozenset("""
fix fixes change changes patch patches diff diffs update updates edit edits code solution
implementation version file files modification modifications correction corrections
""".split())
_PREAMBLE_ADJECTIVES = frozenset("""
updated modified corrected revised complete full fixed new required necessary minimal
proposed final following relevant
""".split())
_ARTICLES = frozenset(("the", "a", "an", "my", "our", "your", "this", "these", "some"))

# Openings that carry no meaning ("Sure! ...", "Certainly, ...").
FILLERS = frozenset("""
sure|certainly|of course|okay|ok|absolutely|great|alright|all right|got it|good catch
great question|good question|no problem|happy to help|understood|yes|right|done|perfect
you're right|you are right|sure thing|great catch|thanks|thank you
""".replace("\n", "|").split("|"))

# Closing pleasantries: a paragraph that starts like this is left out of the message.
_CLOSINGS = ("let me know", "hope this helps", "i hope this helps", "feel free to",
             "happy coding", "good luck", "hope that helps", "if you have any questions",
             "if you need anything")

# Words after which a '.' does not end a sentence.
ABBREVIATIONS = frozenset("""
e.g eg i.e ie etc vs cf approx incl esp viz al ca resp fig mr mrs ms dr
""".split())

_CLOSERS = "*_)\"'\u2019\u201d]"  # may follow a sentence's final punctuation
_MAX_CODE_SPAN = 200  # longer "code spans" are stray backticks
_SUBJECT_SCAN = 600  # characters of a sentence worth cleaning up for a subject


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
        limit = min(n, k + _MAX_CODE_SPAN)
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


def _strip_emphasis(s: str) -> str:
    """Remove ``*``/``_`` emphasis delimiters that pair up (CommonMark's flanking rules,
    simplified); ``snake_case`` and ``a * b`` are left alone."""
    runs = []  # [start, end, char, can_open, can_close]
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
        left = not after.isspace() and (not _is_punct(after) or before.isspace() or _is_punct(before))
        right = not before.isspace() and (not _is_punct(before) or after.isspace() or _is_punct(after))
        if c == "_":
            can_open = left and (not right or _is_punct(before))
            can_close = right and (not left or _is_punct(after))
        else:
            can_open, can_close = left, right
        runs.append([i, j, c, can_open, can_close])
        i = j
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


def _normalize(s: str) -> str:
    """Lower-case words of a short line, for comparing with the generic phrases."""
    s = strip_markup(s).lower().replace("\u2019", "'").replace("`", "")
    s = s.strip(" \t:.!?;,-\u2014\u2013")
    # leading emoji or bullets ("✅ Summary", "📝 Changes")
    while s and not s[0].isalnum():
        s = s[1:].lstrip()
    return " ".join(s.split())


def is_generic(s: str) -> bool:
    """Whether a heading or lead-in says nothing about the change ("Summary", "Here's the fix:")."""
    if len(s) > 120:
        return False
    norm = _normalize(s)
    if not norm or norm in GENERIC or norm in FILLERS:
        return True
    words = [w.strip(",;") for w in norm.split()]
    rest = _after_preamble(words)
    if rest is None:
        return False
    # "here's the fix", "here are the updated files", "here is the complete patch"
    while rest and (rest[0] in _ARTICLES or rest[0] in _PREAMBLE_ADJECTIVES):
        rest = rest[1:]
    if rest and rest[0] in _PREAMBLE_NOUNS:
        rest = rest[1:]
        return not rest or " ".join(rest) in ("to apply", "you need", "needed", "required",
                                              "for this", "for you", "below")
    return False


def _after_preamble(words: list[str]) -> list[str] | None:
    """The words after "here's" / "here is" / "below is" / ..., or None."""
    if words[:1] in (["here's"], ["heres"]):
        return words[1:]
    if words[:2] in (["here", "is"], ["here", "are"], ["below", "is"], ["below", "are"]):
        return words[2:]
    return None


def _is_closing(s: str) -> bool:
    return _normalize(s).startswith(_CLOSINGS)


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
            close = text.find("`" * run, k, min(n, k + _MAX_CODE_SPAN))
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


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def _drop_lead_ins(text: str) -> int:
    """Offset where the meaningful part of a paragraph starts: past filler sentences
    ("Sure!"), generic first lines or sentences ("Here's the fix."), generic lead-ins
    ending in a colon ("**Summary:**", "Here's the fix:") and filler words ("Sure, ")."""
    pos = _skip_space(text, 0)
    for _ in range(12):  # each round consumes something; a bound keeps it linear
        if pos >= len(text):
            return pos
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        if is_generic(line) and (nl < 0 or _line_stands_alone(line, text[nl + 1:nl + 2])):
            pos = _skip_space(text, len(text) if nl < 0 else nl)
            continue
        end = sentence_end(text, pos)
        if end - pos <= 120 and is_generic(text[pos:end]):
            pos = _skip_space(text, end)
            continue
        colon = _lead_in_colon(text, pos)
        if colon is not None:
            pos = colon
            continue
        comma = text.find(",", pos, pos + 30)
        if comma > 0 and _normalize(text[pos:comma]) in FILLERS:
            pos = _skip_space(text, comma + 1)
            continue
        return pos
    return pos


def _line_stands_alone(line: str, next_char: str) -> bool:
    """Whether a paragraph's first line is complete on its own, not the start of a
    sentence that hard wrapping cut short ("Here's the fix\nfor the crash")."""
    return line.rstrip()[-1:] in (":", ".", "!", "*", "_") or not next_char.islower()


def _lead_in_colon(text: str, pos: int) -> int | None:
    """Past a generic lead-in that ends with a colon ("**Summary:** ..."), else None."""
    colon = -1
    i = pos
    limit = min(len(text), pos + 80)
    while i < limit:
        if text[i] == "`":
            return None  # a lead-in does not hold code
        if text[i] == ":":
            colon = i
            break
        if text[i] == "\n":
            return None
        i += 1
    if colon < 0 or not is_generic(text[pos:colon]):
        return None
    j = colon + 1
    while j < len(text) and text[j] in "*_":
        j += 1
    return _skip_space(text, j)


# --------------------------------------------------------------------------- subject

def _capitalize(s: str) -> str:
    """First letter upper-cased, unless the first word is code (``parse_args``, ``x.y``)."""
    first = s.split(" ", 1)[0].replace("'", "").replace("\u2019", "")
    return s[:1].upper() + s[1:] if s[:1].islower() and first.isalpha() else s


def _clean_subject(sentence: str) -> str:
    """A sentence as subject text: markup removed, no trailing period or colon."""
    s = strip_markup(sentence[:_SUBJECT_SCAN])
    s = s.rstrip(" .:;,!")
    words = s.split(" ")
    rest = _after_preamble([w.lower().replace("\u2019", "'") for w in words])
    if rest is not None:
        # "Here's the fix for the crash" -> "Fix for the crash"
        skip = len(words) - len(rest)
        while skip < len(words) - 1 and words[skip].lower() in _ARTICLES:
            skip += 1
        if words[skip].lower().strip("`") in _PREAMBLE_NOUNS | _PREAMBLE_ADJECTIVES:
            s = _capitalize(" ".join(words[skip:]))
    return s


def fit_subject(text: str, limit: int = SUBJECT_MAX) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters at a word boundary, ending with '…' when cut.

    Returns (subject, was_cut).
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text, False
    room = max(1, limit - 1)
    cut = text.rfind(" ", 0, room + 1)
    if cut < room // 2:
        cut = room  # one very long word: cut inside it
    head = text[:cut].rstrip(" ,;:-\u2014\u2013(")
    if head.count("`") % 2:  # do not leave a code span open
        tick = head.rfind("`")
        space = head.rfind(" ", 0, tick)
        head = head[:space].rstrip(" ,;:-\u2014\u2013(") if space > 0 else head.replace("`", "")
    return head + ELLIPSIS, True


@record
class _Subject:
    """The subject line and whether it was cut."""

    text: str
    cut: bool


def _take_subject(chunks: list[Chunk], limit: int) -> tuple[_Subject | None, list[Chunk]]:
    """The subject, and the chunks left for the body (the subject's sentence removed
    unless the subject was cut; generic chunks before the subject dropped)."""
    body: list[Chunk] = []
    for idx, chunk in enumerate(chunks):
        if chunk.kind in ("code", "table", "quote", "break"):
            body.append(chunk)
            continue
        if chunk.kind == "heading":
            if is_generic(chunk.text) or not strip_markup(chunk.text):
                continue
            subject, cut = _subject_from(chunk.text, limit)
            if cut:
                body.append(chunk)
            return _Subject(subject, cut), body + chunks[idx + 1:]
        if chunk.kind == "prose":
            if _is_closing(chunk.text):
                continue
            start = _drop_lead_ins(chunk.text)
            text = chunk.text[start:]
            if not text.strip():
                continue
            end = sentence_end(text)
            subject, cut = _subject_from(text[:end], limit)
            if not subject:
                continue
            if start:  # a lead-in was dropped: "fix: handle None" -> "Handle None"
                subject = _capitalize(subject)
            rest = text if cut else text[end:]
            if cut and start:
                rest = _capitalize(rest)
            if rest.strip():
                body.append(Chunk("prose", chunk.lines, chunk.blank_before, text=rest.strip()))
            return _Subject(subject, cut), body + chunks[idx + 1:]
        if chunk.kind == "list":
            item = next((it for it in chunk.items if it.marker), None)
            if item is None or not strip_markup(item.text()):
                body.append(chunk)
                continue
            # an item holding a fence gives only its first line; the code stays in the body
            text = item.text().split("\n", 1)[0] if item.verbatim else item.text()
            if text[:4].lower() in ("[ ] ", "[x] "):  # a task list item
                text = text[4:]
            end = sentence_end(text)
            subject, cut = _subject_from(text[:end], limit)
            if not subject:
                body.append(chunk)
                continue
            if not cut:
                items = list(chunk.items)
                pos = items.index(item)
                rest = text[end:].strip()
                if item.verbatim:
                    # the first sentence moves to the subject; the rest of the item stays as written
                    keep = ([f"{item.indent}{item.marker} {rest}"] if rest else []) + item.lines[1:]
                    items[pos] = ListItem(item.indent, item.marker if rest else "", keep,
                                          item.blank_before, True)
                elif rest:
                    items[pos] = ListItem(item.indent, item.marker,
                                          [f"{item.indent}{item.marker} {rest}"], item.blank_before)
                else:
                    del items[pos]
                if items:
                    items[0] = ListItem(items[0].indent, items[0].marker, items[0].lines,
                                        False, items[0].verbatim)
                    body.append(Chunk("list", [ln for it in items for ln in it.lines],
                                      chunk.blank_before, items=items))
            else:
                body.append(chunk)
            return _Subject(subject, cut), body + chunks[idx + 1:]
    return None, body


def _subject_from(sentence: str, limit: int) -> tuple[str, bool]:
    cleaned = _clean_subject(sentence)
    if not cleaned:
        return "", False
    return fit_subject(cleaned, limit)


def describe_changes(changed: list[tuple[str, str]], limit: int = SUBJECT_MAX) -> str:
    """A subject naming what changed, for a response without prose.

    ``changed`` holds (verb, path) pairs such as ("update", "src/app.py") or
    ("rename", "a -> b").  Paths of consecutive equal verbs are grouped, "a -> b" reads
    "a to b", and only the first verb is capitalised:
    ``Update src/app.py and src/b.py, add src/util.py``.  When that is longer than
    ``limit``, the first files are named and the others counted
    (``Update src/app.py, src/b.py and 5 more files``); if even one path does not fit,
    its base name is used, and as a last resort ``Change N files``.
    """
    items = [(verb.strip().lower() or "change", path.replace(" -> ", " to ")) for verb, path in changed]
    if not items:
        return "Apply AI response"
    full = _render_changes(items, len(items))
    if len(full) <= limit:
        return full
    for shown in range(len(items) - 1, 0, -1):
        text = _render_changes(items, shown)
        if len(text) <= limit:
            return text
    short = [(verb, path.rsplit("/", 1)[-1]) for verb, path in items]
    for shown in range(len(items), 0, -1):
        text = _render_changes(short, shown)
        if len(text) <= limit:
            return text
    count = len(items)
    verbs = {v for v, _ in items}
    verb = verbs.pop().capitalize() if len(verbs) == 1 else "Change"
    return fit_subject(f"{verb} {count} file{'s' if count != 1 else ''}", limit)[0]


def _render_changes(items: list[tuple[str, str]], shown: int) -> str:
    groups: list[tuple[str, list[str]]] = []
    for verb, path in items[:shown]:
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(path)
        else:
            groups.append((verb, [path]))
    more = len(items) - shown
    phrases = []
    for verb, paths in groups:
        if more or len(paths) == 1:
            joined = ", ".join(paths)
        else:
            joined = ", ".join(paths[:-1]) + " and " + paths[-1]
        phrases.append(f"{verb} {joined}")
    text = ", ".join(phrases)
    if more:
        text += f" and {more} more file{'s' if more != 1 else ''}"
    return _capitalize(text)


# --------------------------------------------------------------------------- body

def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    import textwrap  # imported here: only needed when a commit is written

    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def _render_list(chunk: Chunk, width: int) -> list[str]:
    out: list[str] = []
    for item in chunk.items:
        if item.blank_before and out:
            out.append("")
        lines = [ln.rstrip() for ln in item.lines]
        if item.verbatim or all(len(ln) <= width for ln in lines):
            out.extend(lines)
            continue
        if item.marker:
            first = f"{item.indent}{item.marker} "
            out.extend(_wrap(item.text(), width, first, " " * len(first.expandtabs(4))))
        else:
            out.extend(_wrap(item.text(), width, item.indent, item.indent))
    return out


def _render_chunk(chunk: Chunk, width: int) -> list[str]:
    if chunk.kind == "prose":
        return _wrap(chunk.text, width)
    if chunk.kind == "heading":
        return [strip_markup(chunk.text)]
    if chunk.kind == "list":
        return _render_list(chunk, width)
    if chunk.kind == "break":
        return []
    return [ln.rstrip() for ln in chunk.lines]


def render_body(chunks: list[Chunk], width: int = BODY_WIDTH) -> str:
    out: list[str] = []
    prev: Chunk | None = None
    for chunk in chunks:
        if chunk.kind == "prose" and _is_closing(chunk.text):
            continue
        lines = _render_chunk(chunk, width)
        if not lines:
            if chunk.kind == "break" and prev is not None:
                prev = Chunk("break", [])  # forces a blank line before what follows
            continue
        if out:
            separate = (chunk.blank_before or prev is None or "heading" in (chunk.kind, prev.kind)
                        or prev.kind == "break" or (chunk.kind == prev.kind == "prose"))
            if separate:
                out.append("")
        out.extend(lines)
        prev = chunk
    return "\n".join(out).strip("\n")


def _description_bullets(descriptions: list[tuple[str, str]], width: int) -> list[str]:
    out: list[str] = []
    seen = set()
    for path, text in descriptions:
        text = " ".join(text.split())
        if not text or (path, text) in seen:
            continue
        seen.add((path, text))
        out.extend(_wrap(f"{path}: {text}", width, "- ", "  "))
    return out


# --------------------------------------------------------------------------- message

def build_message(explanation: str, *, formats: list[str], response_id: str, model: str | None,
                  descriptions: list[tuple[str, str]], changed: list[tuple[str, str]],
                  subject_max: int = SUBJECT_MAX, trailers: bool = True) -> str:
    """The commit message for one response (BEHAVIOR.md §8), ending with a newline."""
    chunks = parse_chunks(explanation or "")
    subject, body_chunks = _take_subject(chunks, subject_max)
    subject_text = subject.text if subject else describe_changes(changed, subject_max)
    paragraphs = [subject_text]
    body = render_body(body_chunks)
    if body:
        paragraphs.append(body)
    bullets = _description_bullets(descriptions, BODY_WIDTH)
    if bullets:
        paragraphs.append("\n".join(bullets))
    if trailers:
        block = trailer_lines(formats, response_id, model)
        if block:
            paragraphs.append("\n".join(block))
    return "\n\n".join(paragraphs) + "\n"


def trailer_lines(formats: list[str], response_id: str, model: str | None) -> list[str]:
    lines = []
    if formats:
        lines.append("AI-Format: " + ", ".join(formats))
    if response_id:
        lines.append(f"AI-Response: {response_id}")
    if model and model.strip():
        lines.append("AI-Model: " + " ".join(model.split()))
    return lines


def subject_of(message: str) -> str:
    """The subject as git shows it (``%s``): the first paragraph, lines joined by spaces."""
    lines = []
    for line in message.lstrip("\n").split("\n"):
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def parse_trailers(message: str) -> dict[str, str]:
    """The trailers of a commit message: its last paragraph, when every line of it is
    ``Key: value`` (a key of letters, digits and '-') or a continuation line starting
    with whitespace.  The first paragraph (the subject) never holds trailers.  Keys are
    as written; when one repeats, the first value is kept.  ``{}`` when there are none.
    """
    lines = message.replace("\r\n", "\n").rstrip().split("\n")
    start = len(lines)
    while start > 0 and lines[start - 1].strip():
        start -= 1
    if start == 0:
        return {}  # only one paragraph: the subject
    found: dict[str, str] = {}
    last_key = None  # the trailer a continuation line extends (None: a repeated key)
    seen_trailer = False
    for line in lines[start:]:
        if line[:1] in (" ", "\t") and seen_trailer:
            if last_key is not None:
                found[last_key] = (found[last_key] + " " + line.strip()).strip()
            continue
        key, sep, value = line.partition(":")
        key = key.rstrip()
        if not sep or not key or not all(c.isalnum() or c == "-" for c in key):
            if line.startswith("(cherry picked from commit "):
                continue
            return {}
        seen_trailer = True
        if key in found:
            last_key = None
            continue
        found[key] = value.strip()
        last_key = key
    return found
