"""The ``codechange`` format: ``<CodeChange filePath="...">`` tags holding SEARCH/REPLACE blocks.

    <CodeChange filePath="src/app.py">
    <Description>Why this file changes</Description>
    <<<<<<< SEARCH
    old lines
    =======
    new lines
    >>>>>>> REPLACE
    </CodeChange>

Each non-empty SEARCH becomes one hunk (kind ``search``) whose line tags come from
diffing SEARCH against REPLACE, so lines both sides share are context and keep the
file's own bytes.  An empty SEARCH creates the file.  The blocks themselves are read by
``search_blocks``, shared with the ``search-replace`` format.  The tag is read line by line: a
tag must begin its line (a ``<CodeChange`` mentioned inside prose is not a tag).

A tag over a tracked file that holds no SEARCH/REPLACE block but code (fenced or not) is
a lazy snippet of the file (BEHAVIOR.md §5 "Lazy edits"): a ``NewFile(lazy=True)``, merged
into the file by the planner.  Over a path nothing tracks (or parsed without a
repository) it is refused as holding no block, as before.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParseError
from ..ops import NewFile, Operation, Source
from ..paths import tracked_kind
from ..text import fence_close_line, fence_open
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, read_attributes
from .search_blocks import (BlockError, NumberedBlock, file_operations, is_divider, is_replace,
                            is_search, looks_like_marker, read_block, search_line_hint)

NAME = "codechange"

_OPEN = "<codechange"
_CLOSE = "</codechange>"
_DESC_OPEN = "<description>"
_DESC_CLOSE = "</description>"
_PATH_ATTRIBUTES = ("filepath", "file", "path")


def _tag_end(text: str, start: int) -> int:
    """Offset of the ``>`` closing the tag that starts at ``start`` (quotes respected), or -1.

    The tag may continue over lines, but not over a blank line or a line starting with
    ``<`` (the content's own markers), so a missing ``>`` is never found far away."""
    quote = None
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            rest = text[i + 1:text.find("\n", i + 1) if text.find("\n", i + 1) >= 0 else n].strip()
            if not rest or rest.startswith("<"):
                return -1
        elif quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == ">":
            return i
        i += 1
    return -1




class _Tag:
    """One ``<CodeChange>`` tag being read."""

    def __init__(self, path: str, line: int):
        self.path = path
        self.line = line
        self.source = Source(NAME, f"CodeChange {path}", line=line)
        self.blocks: list[NumberedBlock] = []
        self.descriptions: list[str] = []
        self.loose: list[str] = []  # the lines outside blocks and descriptions

    def snippet(self) -> str | None:
        """The tag's loose lines as a lazy snippet of its tracked file (their one fenced
        block's content, when they are one), or None."""
        lines = list(self.loose)
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines or tracked_kind(self.path.removeprefix("./")) != "file":
            return None
        opened = fence_open(lines[0].strip())
        if opened is not None and fence_close_line(lines, 0, opened) == len(lines) - 1:
            lines = lines[1:-1]
        return "\n".join(lines) + "\n" if any(line.strip() for line in lines) else None

    def error(self, reason: str, line: int, hint: str | None = None) -> ParseError:
        return ParseError(reason, line=line, directive=self.source.directive, file=self.path,
                          hint=hint)

    def operations(self) -> list[Operation]:
        if not self.blocks:
            snippet = self.snippet()
            if snippet is not None:
                return [NewFile(self.path, snippet, self.source, replace=True, says_new=False,
                                lazy=True)]
            raise self.error("the tag holds no SEARCH/REPLACE block", self.line,
                             hint="give at least one <<<<<<< SEARCH / ======= / >>>>>>> REPLACE "
                                  "block (an empty SEARCH creates the file)")
        return file_operations(self.path, self.blocks, self.source, self.error)


class _Content(Sequence):
    """The tag's content lines: the rest of the opening line (when it holds text), then
    the response's lines after it; ``response_index`` maps back to the response."""

    def __init__(self, lines: list[str], i: int, rest: str):
        self.lines = lines
        self.rest = rest if rest.strip() else None
        self.offset = i if self.rest is not None else i + 1

    def __len__(self) -> int:
        return len(self.lines) - self.offset

    def __getitem__(self, c):
        if isinstance(c, slice):
            return [self[x] for x in range(*c.indices(len(self)))]
        if c == 0 and self.rest is not None:
            return self.rest
        return self.lines[c + self.offset]

    def response_index(self, c: int) -> int:
        return c + self.offset


def _close_at(line: str) -> int:
    """Where ``</CodeChange>`` starts in ``line``, or -1."""
    return line.lower().find(_CLOSE)


def _stops_block(line: str) -> bool:
    """``</CodeChange>`` at the start of a line inside a block: the tag ends there."""
    at = _close_at(line)
    return at >= 0 and not line[:at].strip()


def _closes_block(line: str) -> bool:
    """The REPLACE marker, alone or with ``</CodeChange>`` after it on its line."""
    if is_replace(line):
        return True
    at = _close_at(line)
    return at >= 0 and is_replace(line[:at])


def _opens(line: str) -> bool:
    lowered = line.lstrip().lower()
    return lowered.startswith(_OPEN) and (len(lowered) == len(_OPEN) or lowered[len(_OPEN)] in " \t>/")


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then one tag per file:

<CodeChange filePath="src/util.py">
<Description>Collapse repeated separators in slugify</Description>
<<<<<<< SEARCH
def slugify(text):
    return text.strip().lower().replace(" ", "-")
=======
def slugify(text):
    return "-".join(text.strip().lower().split())
>>>>>>> REPLACE
</CodeChange>

- SEARCH holds lines copied exactly from the file; REPLACE holds what replaces them.
  A tag may hold several SEARCH/REPLACE blocks.
- An empty SEARCH creates a new file whose content is the REPLACE part.
- The Description becomes part of the commit message.
"""


class CodeChange(Format):
    """``<CodeChange ...>`` tags; a tag must begin its line."""

    name = NAME
    prompts = {"codechange": PROMPT}
    new_file_hint = 'a <CodeChange> block with an empty SEARCH'
    leftover_markup = (
        (r"^\s*</?CodeChange\b", "a <CodeChange> tag"),
    )
    triggers = "<"
    markers = ("<CodeChange",)

    def opens(self, scan: Scan, i: int) -> bool:
        return _opens(scan.lines[i])

    def parse(self, scan: Scan, i: int) -> Block:
        return _read_tag(scan, i)[0]


FORMAT = CodeChange()



def _read_tag(scan: Scan, i: int) -> tuple[Block, int]:
    """Read the tag opening on line ``i``; return its block and the line after it."""
    tag, tag_start, content = _open_tag(scan, i)
    return _TagBody(scan, tag, tag_start, content).read()


def _open_tag(scan: Scan, i: int) -> tuple[_Tag, int, _Content]:
    """The opening tag on line ``i``: the tag, where it starts, and the content after its
    ``>``.  Refuses a tag with no path, two paths, no ``>``, or that closes itself."""
    text, lines, starts = scan.text, scan.lines, scan.starts
    open_line = i + 1
    tag_start = starts[i] + (len(lines[i]) - len(lines[i].lstrip()))
    gt = _tag_end(text, tag_start + len(_OPEN))
    attrs = read_attributes(text[tag_start + len(_OPEN):gt if gt >= 0 else starts[i] + len(lines[i])])
    named = {attrs[a].strip() for a in _PATH_ATTRIBUTES if attrs.get(a, "").strip()}
    if len(named) > 1:  # which file is meant is unknown: never pick one
        raise ParseError("<CodeChange> gives two different paths: "
                         + ", ".join(sorted(repr(v) for v in named)), line=open_line,
                         directive="CodeChange", hint='write one <CodeChange filePath="...">')
    path = next((attrs[a].strip() for a in _PATH_ATTRIBUTES if attrs.get(a, "").strip()), "")
    if not path and gt < 0:
        raise ParseError("<CodeChange is never closed: its opening tag has no '>'", line=open_line,
                         directive="CodeChange")
    if not path:
        raise ParseError("<CodeChange> has no filePath attribute", line=open_line,
                         directive="CodeChange",
                         hint='write <CodeChange filePath="path/to/file">')
    tag = _Tag(path, open_line)
    if gt < 0:
        raise tag.error("<CodeChange is never closed: its opening tag has no '>'", open_line,
                        hint=f'write <CodeChange filePath="{path}">')
    self_closing = text[gt - 1] == "/"
    # the line holding the '>' and what follows it on that line
    i = scan.index_of(gt)
    rest = text[gt + 1:starts[i] + len(lines[i])]
    if self_closing:
        raise tag.error("the tag is empty (self-closing) and holds no SEARCH/REPLACE block", open_line)
    return tag, tag_start, _Content(lines, i, rest)


class _TagBody:
    """A tag's content read line by line up to ``</CodeChange>``: SEARCH/REPLACE blocks,
    ``<Description>`` parts between them, and the fences and prose around them (not
    content)."""

    def __init__(self, scan: Scan, tag: _Tag, tag_start: int, content: _Content):
        self.scan = scan
        self.tag = tag
        self.tag_start = tag_start
        self.content = content
        self.description: list[str] | None = None  # the lines of a <Description> still open
        self.number = 0  # SEARCH blocks read so far

    def read(self) -> tuple[Block, int]:
        """The tag's block and the line after its close."""
        content = self.content
        c = 0
        while c < len(content):
            line = content[c]
            k = content.response_index(c)
            close_at = line.lower().find(_CLOSE)
            if close_at >= 0:
                return self._closed(line[:close_at], self.scan.starts[k] + close_at, k)
            if self.description is not None:
                line = self._description_line(line)
                if not line.strip():
                    c += 1
                    continue
            if line.lower().strip().startswith(_DESC_OPEN):
                self._open_description(line)
                c += 1
                continue
            if is_search(line):
                c, closed = self._search_block(c, k)
                if closed is not None:
                    return closed
                continue
            self._refuse_stray(line, k)
            self.tag.loose.append(line)  # a lazy snippet's, when the tag holds no block
            c += 1  # fences around the blocks and stray prose between them are not content
        reason = f"{CUT_OFF}: <CodeChange> is never closed (the response ends before </CodeChange>)"
        if self.description is not None:
            reason += "; <Description> is never closed"
        raise self.tag.error(reason, self.tag.line,
                             hint=f"end every tag with </CodeChange>; {CUT_OFF_HINT}")

    def _closed(self, before: str, close_at: int, k: int) -> tuple[Block, int]:
        """``</CodeChange>`` at offset ``close_at`` of line ``k``, ``before`` it on its line."""
        if self.description is not None:
            raise self.tag.error("<Description> is never closed", k + 1)
        if before.strip() and looks_like_marker(before):
            raise self.tag.error(f"unexpected {before.strip()!r} outside a SEARCH/REPLACE block",
                                 k + 1)
        if before.strip():
            self.tag.loose.append(before)
        return self._finish(close_at), k + 1

    def _finish(self, close_at: int) -> Block:
        return _finish(self.tag, self.tag_start, close_at + len(_CLOSE), self.tag.path)

    def _description_line(self, line: str) -> str:
        """A line inside an open ``<Description>``: kept as its text; what follows its
        ``</Description>`` is returned to be read as content (a blank for none)."""
        assert self.description is not None
        at = line.lower().find(_DESC_CLOSE)
        if at < 0:
            self.description.append(line)
            return ""
        self.description.append(line[:at])
        _add_description(self.tag, self.description)
        self.description = None
        return line[at + len(_DESC_CLOSE):]

    def _open_description(self, line: str) -> None:
        """A line starting with ``<Description>``: the whole description, or its first line."""
        body = line[line.lower().find(_DESC_OPEN) + len(_DESC_OPEN):]
        at = body.lower().find(_DESC_CLOSE)
        if at >= 0:
            _add_description(self.tag, [body[:at]])
        else:
            self.description = [body]

    def _search_block(self, c: int, k: int) -> tuple[int, tuple[Block, int] | None]:
        """The SEARCH/REPLACE block starting at content line ``c`` (response line ``k``):
        the content line after it, and the tag's block when ``</CodeChange>`` ends its
        REPLACE line."""
        content, tag = self.content, self.tag
        self.number += 1
        try:
            raw = read_block(content, c, stop=_stops_block, closes=_closes_block)
        except BlockError as e:
            raise _block_error(tag, e, self.number, k + 1, tag.line) from None
        tag.blocks.append(NumberedBlock(self.number, k + 1, raw.readings,
                                        [content.response_index(r.divider) + 1
                                         for r in raw.readings],
                                        search_line_hint(content[c])))
        closer = content[raw.end]
        close_at = _close_at(closer)
        if close_at >= 0 and not is_replace(closer):  # '>>>>>>> REPLACE</CodeChange>'
            ck = content.response_index(raw.end)
            lines = self.scan.lines
            at = self.scan.starts[ck] + (len(lines[ck]) - len(closer)) + close_at
            return raw.end + 1, (self._finish(at), ck + 1)
        return raw.end + 1, None

    def _refuse_stray(self, line: str, k: int) -> None:
        """A new tag or a marker between blocks: the tag was never closed, or a block
        lost its SEARCH line."""
        if _opens(line):
            raise self.tag.error("<CodeChange is never closed (a new <CodeChange> starts at "
                                 f"response line {k + 1})", self.tag.line,
                                 hint="end every tag with </CodeChange>")
        if is_divider(line) or is_replace(line) or looks_like_marker(line):
            raise self.tag.error(f"unexpected {line.strip()!r} outside a SEARCH/REPLACE block",
                                 k + 1, hint="every block starts with a <<<<<<< SEARCH line")


def _finish(tag: _Tag, start: int, end: int, path: str) -> Block:
    return Block(NAME, start, end, tag.operations(),
                 descriptions=[(path, d) for d in tag.descriptions])


def _block_error(tag: _Tag, e: BlockError, number: int, line: int, open_line: int) -> ParseError:
    """A block's BlockError in this format's words."""
    what = (f"SEARCH block {number} has no '=======' line" if e.missing == "divider"
            else f"SEARCH block {number} has no '>>>>>>> REPLACE' line")
    if e.stopped_by == "end":
        return tag.error(f"{CUT_OFF}: <CodeChange> is never closed (the response ends before "
                         f"</CodeChange>); {what}", open_line,
                         hint=f"end every tag with </CodeChange>; {CUT_OFF_HINT}")
    if e.stopped_by == "stop":
        what += " before </CodeChange>"
    return tag.error(what, line, hint=e.hint)


def _add_description(tag: _Tag, parts: list[str]) -> None:
    text = "\n".join(parts).strip()
    if text:
        tag.descriptions.append(text)
