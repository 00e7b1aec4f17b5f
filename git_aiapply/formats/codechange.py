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
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParseError
from ..ops import Operation, Source
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, read_attributes, scan_blocks
from .search_blocks import (BlockError, NumberedBlock, file_operations, is_divider, is_replace,
                            is_search, looks_like_marker, read_block)

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

    def error(self, reason: str, line: int, hint: str | None = None) -> ParseError:
        return ParseError(reason, line=line, directive=self.source.directive, file=self.path,
                          hint=hint)

    def operations(self) -> list[Operation]:
        if not self.blocks:
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


def find_blocks(text: str) -> list[Block]:
    return scan_blocks(text, [FORMAT]).blocks


def _read_tag(scan: Scan, i: int) -> tuple[Block, int]:
    """Read the tag opening on line ``i``; return its block and the line after it."""
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

    content = _Content(lines, i, rest)
    state = "between"  # 'between', 'description'
    desc: list[str] = []
    number = 0
    c = 0
    while c < len(content):
        line = content[c]
        k = content.response_index(c)
        lowered = line.lower()
        close_at = lowered.find(_CLOSE)
        if close_at >= 0:
            before = line[:close_at]
            if state == "description":
                raise tag.error("<Description> is never closed", k + 1)
            if before.strip() and looks_like_marker(before):
                raise tag.error(f"unexpected {before.strip()!r} outside a SEARCH/REPLACE block", k + 1)
            end = starts[k] + close_at + len(_CLOSE)
            return _finish(tag, tag_start, end, path), k + 1

        if state == "description":
            at = lowered.find(_DESC_CLOSE)
            if at < 0:
                desc.append(line)
                c += 1
                continue
            desc.append(line[:at])
            _add_description(tag, desc)
            state = "between"
            line = line[at + len(_DESC_CLOSE):]
            if not line.strip():
                c += 1
                continue
            lowered = line.lower()
        # between blocks
        stripped = lowered.strip()
        if stripped.startswith(_DESC_OPEN):
            body = line[line.lower().find(_DESC_OPEN) + len(_DESC_OPEN):]
            at = body.lower().find(_DESC_CLOSE)
            if at >= 0:
                _add_description(tag, [body[:at]])
            else:
                desc = [body]
                state = "description"
            c += 1
            continue
        if is_search(line):
            number += 1
            try:
                raw = read_block(content, c, stop=_stops_block, closes=_closes_block)
            except BlockError as e:
                raise _block_error(tag, e, number, k + 1, open_line) from None
            tag.blocks.append(NumberedBlock(number, k + 1, raw.readings,
                                            [content.response_index(r.divider) + 1
                                             for r in raw.readings]))
            closer = content[raw.end]
            close_at = _close_at(closer)
            if close_at >= 0 and not is_replace(closer):  # '>>>>>>> REPLACE</CodeChange>'
                ck = content.response_index(raw.end)
                end = starts[ck] + (len(lines[ck]) - len(closer)) + close_at + len(_CLOSE)
                return _finish(tag, tag_start, end, path), ck + 1
            c = raw.end + 1
            continue
        if _opens(line):
            raise tag.error("<CodeChange is never closed (a new <CodeChange> starts at response "
                            f"line {k + 1})", open_line, hint="end every tag with </CodeChange>")
        if is_divider(line) or is_replace(line) or looks_like_marker(line):
            raise tag.error(f"unexpected {line.strip()!r} outside a SEARCH/REPLACE block", k + 1,
                            hint="every block starts with a <<<<<<< SEARCH line")
        # fences around the blocks and stray prose between them are not content
        c += 1
    reason = f"{CUT_OFF}: <CodeChange> is never closed (the response ends before </CodeChange>)"
    if state == "description":
        reason += "; <Description> is never closed"
    raise tag.error(reason, open_line, hint=f"end every tag with </CodeChange>; {CUT_OFF_HINT}")


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
