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
file's own bytes.  An empty SEARCH creates the file.  The tag is read line by line: a
tag must begin its line (a ``<CodeChange`` mentioned inside prose is not a tag).
"""
from __future__ import annotations

from ..errors import ParseError
from ..ops import ADD, CONTEXT, REMOVE, EditFile, Hunk, NewFile, Operation, Source
from .base import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, new_file_text, scan_blocks, strip_fence

NAME = "codechange"

_OPEN = "<codechange"
_CLOSE = "</codechange>"
_DESC_OPEN = "<description>"
_DESC_CLOSE = "</description>"
_PATH_ATTRIBUTES = ("filepath", "file", "path")
# Files whose content legitimately is fenced markdown: a fence around their SEARCH and
# REPLACE may be the file's own, so it is never stripped.
_DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc")


def _marker(line: str, char: str, word: str) -> bool:
    """``line`` is a conflict-style marker: 5-9 ``char`` then ``word`` (spaces tolerated)."""
    s = line.strip()
    n = len(s) - len(s.lstrip(char))
    if not 5 <= n <= 9:
        return False
    return s[n:].strip().upper() == word


def _is_search(line: str) -> bool:
    return _marker(line, "<", "SEARCH")


def _is_divider(line: str) -> bool:
    return _marker(line, "=", "")


def _is_replace(line: str) -> bool:
    return _marker(line, ">", "REPLACE")


def _looks_like_marker(line: str) -> bool:
    s = line.lstrip()
    return s.startswith(("<<<<<", "=====", ">>>>>"))


def _parse_attributes(text: str) -> dict[str, str]:
    """``name="value"`` / ``name='value'`` / ``name=value`` pairs, names lower-cased."""
    attrs: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        while i < n and (text[i].isspace() or text[i] == "/"):
            i += 1
        start = i
        while i < n and not text[i].isspace() and text[i] not in "=/":
            i += 1
        name = text[start:i].lower()
        if not name:
            i += 1
            continue
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != "=":
            attrs.setdefault(name, "")
            continue
        i += 1
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] in "\"'":
            quote = text[i]
            end = text.find(quote, i + 1)
            if end < 0:
                end = n
            value = text[i + 1:end]
            i = end + 1
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            value = text[start:i]
        attrs.setdefault(name, value)
    return attrs


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




def _diff_lines(search: list[str], replace: list[str]) -> list[tuple[str, str]]:
    """SEARCH vs REPLACE as hunk lines: shared lines are context, the rest removed/added."""
    import difflib  # only needed when a CodeChange is present

    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, search, replace, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.extend((CONTEXT, t) for t in search[a1:a2])
        else:
            out.extend((REMOVE, t) for t in search[a1:a2])
            out.extend((ADD, t) for t in replace[b1:b2])
    return out


def _unfence_pair(path: str, search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    """Drop markdown fences a model put around both SEARCH and REPLACE.

    Only when both sides are fenced (a consistent wrapper, not content) and the file is
    not a document whose own content may be fenced code."""
    if path.lower().endswith(_DOCUMENT_SUFFIXES):
        return search, replace
    s2, r2 = strip_fence(search), strip_fence(replace)
    search_fenced, replace_fenced = s2 is not search, r2 is not replace
    search_empty = not any(t.strip() for t in search)
    replace_empty = not any(t.strip() for t in replace)
    if search_fenced and (replace_fenced or replace_empty):
        return s2, r2
    if search_empty and replace_fenced:  # a new file whose content the model fenced
        return search, r2
    return search, replace


class _Tag:
    """One ``<CodeChange>`` tag being read."""

    def __init__(self, path: str, line: int):
        self.path = path
        self.line = line
        self.source = Source(NAME, f"CodeChange {path}", line=line)
        # (number, search lines, replace lines, response line of the SEARCH marker)
        self.blocks: list[tuple[int, list[str], list[str], int]] = []
        self.descriptions: list[str] = []

    def error(self, reason: str, line: int, hint: str | None = None) -> ParseError:
        return ParseError(reason, line=line, directive=self.source.directive, file=self.path,
                          hint=hint)

    def operations(self) -> list[Operation]:
        if not self.blocks:
            raise self.error("the tag holds no SEARCH/REPLACE block", self.line,
                             hint="give at least one <<<<<<< SEARCH / ======= / >>>>>>> REPLACE "
                                  "block (an empty SEARCH creates the file)")
        new_file: NewFile | None = None
        hunks: list[Hunk] = []
        for number, search, replace, line in self.blocks:
            search, replace = _unfence_pair(self.path, search, replace)
            if not any(t.strip() for t in search):
                if new_file is not None:
                    raise self.error(f"block {number} has an empty SEARCH too; only one block of a "
                                     "tag may create the file", line,
                                     hint="put the whole new file in one block with an empty SEARCH")
                new_file = NewFile(self.path, new_file_text(replace), self.source, replace=False)
                continue
            hunks.append(Hunk(_diff_lines(search, replace), number=number, kind="search"))
        ops: list[Operation] = []
        if new_file is not None:
            ops.append(new_file)
        if hunks:
            ops.append(EditFile(self.path, hunks, self.source))
        return ops


def _opens(line: str) -> bool:
    lowered = line.lstrip().lower()
    return lowered.startswith(_OPEN) and (len(lowered) == len(_OPEN) or lowered[len(_OPEN)] in " \t>/")


class CodeChange(Format):
    """``<CodeChange ...>`` tags; a tag must begin its line."""

    name = NAME
    triggers = "<"
    markers = ("<CodeChange",)

    def opens(self, scan: Scan, i: int) -> bool:
        return _opens(scan.lines[i])

    def parse(self, scan: Scan, i: int) -> Block:
        return _read_tag(scan.text, scan.lines, scan.starts, i)[0]


FORMAT = CodeChange()


def find_blocks(text: str) -> list[Block]:
    return scan_blocks(text, [FORMAT]).blocks


def _read_tag(text: str, lines: list[str], starts: list[int], i: int) -> tuple[Block, int]:
    """Read the tag opening on line ``i``; return its block and the line after it."""
    n = len(lines)
    open_line = i + 1
    tag_start = starts[i] + (len(lines[i]) - len(lines[i].lstrip()))
    gt = _tag_end(text, tag_start + len(_OPEN))
    attrs = _parse_attributes(text[tag_start + len(_OPEN):gt if gt >= 0 else starts[i] + len(lines[i])])
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
    i = text.count("\n", starts[i], gt) + i
    rest = text[gt + 1:starts[i] + len(lines[i])]
    if self_closing:
        raise tag.error("the tag is empty (self-closing) and holds no SEARCH/REPLACE block", open_line)

    # Content lines as (response line index, text); the remainder of the opening line first.
    def content():
        if rest.strip():
            yield i, rest
        for k in range(i + 1, n):
            yield k, lines[k]

    state = "between"  # 'between', 'description', 'search', 'replace'
    desc: list[str] = []
    search: list[str] = []
    replace: list[str] = []
    search_line = 0
    number = 0
    for k, line in content():
        lowered = line.lower()
        close_at = lowered.find(_CLOSE)
        if close_at >= 0:
            before = line[:close_at]
            if state in ("search", "replace") and before.strip() and not _is_replace(before):
                # a content line mentioning the closing tag: stays content
                close_at = -1
        if close_at >= 0:
            before = line[:close_at]
            if state == "description":
                raise tag.error("<Description> is never closed", k + 1)
            if state == "search":
                raise tag.error(f"SEARCH block {number} has no '=======' line before </CodeChange>",
                                search_line, hint="separate SEARCH and REPLACE with a ======= line")
            if state == "replace":
                if not _is_replace(before):
                    raise tag.error(f"SEARCH block {number} has no '>>>>>>> REPLACE' line before "
                                    "</CodeChange>", search_line,
                                    hint="end every block with >>>>>>> REPLACE")
                tag.blocks.append((number, search, replace, search_line))
            elif before.strip() and _looks_like_marker(before):
                raise tag.error(f"unexpected {before.strip()!r} outside a SEARCH/REPLACE block", k + 1)
            end = starts[k] + close_at + len(_CLOSE)
            ops = tag.operations()
            block = Block(NAME, tag_start, end, ops,
                          descriptions=[(path, d) for d in tag.descriptions])
            return block, k + 1

        if state == "description":
            at = lowered.find(_DESC_CLOSE)
            if at < 0:
                desc.append(line)
                continue
            desc.append(line[:at])
            _add_description(tag, desc)
            state = "between"
            line = line[at + len(_DESC_CLOSE):]
            if not line.strip():
                continue
            lowered = line.lower()
        if state == "search":
            if _is_divider(line):
                state = "replace"
            elif _is_search(line) or _is_replace(line):
                raise tag.error(f"SEARCH block {number} has no '=======' line", search_line,
                                hint="separate SEARCH and REPLACE with a ======= line")
            else:
                search.append(line)
            continue
        if state == "replace":
            if _is_replace(line):
                tag.blocks.append((number, search, replace, search_line))
                state = "between"
            elif _is_search(line):
                raise tag.error(f"SEARCH block {number} has no '>>>>>>> REPLACE' line", search_line,
                                hint="end every block with >>>>>>> REPLACE")
            else:
                replace.append(line)
            continue
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
            continue
        if _is_search(line):
            number += 1
            search, replace = [], []
            search_line = k + 1
            state = "search"
            continue
        if stripped.startswith(_OPEN) and (len(stripped) == len(_OPEN) or stripped[len(_OPEN)] in " \t>/"):
            raise tag.error("<CodeChange is never closed (a new <CodeChange> starts at response "
                            f"line {k + 1})", open_line, hint="end every tag with </CodeChange>")
        if _is_divider(line) or _is_replace(line) or _looks_like_marker(line):
            raise tag.error(f"unexpected {line.strip()!r} outside a SEARCH/REPLACE block", k + 1,
                            hint="every block starts with a <<<<<<< SEARCH line")
        # fences around the blocks and stray prose between them are not content
    where = {"description": "<Description> is never closed",
             "search": f"SEARCH block {number} has no '=======' line",
             "replace": f"SEARCH block {number} has no '>>>>>>> REPLACE' line"}.get(state)
    reason = f"{CUT_OFF}: <CodeChange> is never closed (the response ends before </CodeChange>)"
    if where:
        reason += f"; {where}"
    raise tag.error(reason, open_line, hint=f"end every tag with </CodeChange>; {CUT_OFF_HINT}")


def _add_description(tag: _Tag, parts: list[str]) -> None:
    text = "\n".join(parts).strip()
    if text:
        tag.descriptions.append(text)
