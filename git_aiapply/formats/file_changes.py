"""The ``file-changes`` format: ``<FILE_CHANGES>`` containers of directives.

    <FILE_CHANGES>
    <FILE_NEW file_path="a.py">content</FILE_NEW>
    <FILE_APPEND file_path="log.md">lines added at the end</FILE_APPEND>
    <FILE_PATCH file_path="b.py">numberless unified diff</FILE_PATCH>
    <FILE_HASHLINE_PATCH file_path="c.py">hashline ops</FILE_HASHLINE_PATCH>
    <FILE_RENAME from_path="d.py" to_path="e.py" />
    <FILE_DELETE file_path="f.py" />
    </FILE_CHANGES>

The text is scanned once, left to right: a container opens at a line that starts with
``<FILE_CHANGES>``; inside it, directives follow one another (blank lines, fence lines
and ``<!-- -->`` comments between them are tolerated, anything else is refused); a
directive's content ends at its closing tag found at the start or the end of a line.
"""
from __future__ import annotations

import re

from ..locate import hashline
from .apply_patch import BEGIN, END, UPDATE_FILE, marker as patch_marker
from .diff_hunks import PLACELESS_HINT, placeless_addition
from ..errors import ParseError
from ..ops import ADD, CONTEXT, REMOVE, AppendFile, DeleteFile, EditFile, HashlineEdit, Hunk, NewFile, \
    Operation, RenameFile, Source
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, Tag, new_file_text, parse_tag, \
    skip_space
from ..text import content_span, fence_open, read_hunk_header, strip_fence

NAME = "file-changes"
HASHLINE = "hashline"

CONTAINER = "FILE_CHANGES"
NEW, PATCH, HASHLINE_PATCH = "FILE_NEW", "FILE_PATCH", "FILE_HASHLINE_PATCH"
RENAME, DELETE = "FILE_RENAME", "FILE_DELETE"
APPEND = "FILE_APPEND"  # udiffx's later directive: lines added at the end, file created if missing
DIRECTIVES = (NEW, PATCH, HASHLINE_PATCH, RENAME, DELETE, APPEND)

# Attribute names, compared lower-cased with '_' and '-' removed.
PATH_KEYS = ("filepath", "path", "file")
FROM_KEYS = ("frompath", "from", "oldpath")
TO_KEYS = ("topath", "to", "newpath")

_CONTAINER_OPEN = re.compile(r"<[ \t]*FILE_CHANGES[ \t]*>", re.I)

_FORMAT_HINT = ("inside <FILE_CHANGES> use FILE_NEW, FILE_PATCH, FILE_HASHLINE_PATCH, "
                "FILE_APPEND, FILE_RENAME and FILE_DELETE directives, each closed")


def _attr(tag: Tag, keys: tuple[str, ...], what: str, line: int) -> str | None:
    attrs = tag.attrs
    values = {attrs[k].strip() for k in keys if k in attrs}
    if len(values) > 1:
        raise ParseError(f"<{tag.name}> gives two different {what}s: "
                         + ", ".join(sorted(repr(v) for v in values)), line=line,
                         directive=tag.name)
    if not values:
        return None
    value = values.pop()
    if not value:
        raise ParseError(f"<{tag.name}> has an empty {what}", line=line, directive=tag.name)
    return value


def _find_close(text: str, pos: int, name: str) -> tuple[int, int] | None:
    """(start, end) of the tag closing directive ``name`` whose content starts at ``pos``.

    A closing tag counts at the start or at the end of a line (so a ``</FILE_NEW>``
    inside a string of the content is not taken for it); an opening tag of the same name
    at the start of a line nests (a file that itself holds a FILE_CHANGES example).
    Every character is looked at a bounded number of times, however long the lines.
    """
    depth = 0
    scanned = pos  # text before this offset has been searched for newlines
    line_start = pos if pos == 0 or text[pos - 1] == "\n" else -1  # -1: not known blank
    for m in _TAG_RES[name].finditer(text, pos):
        nl = text.rfind("\n", scanned, m.start())
        if nl >= 0:
            line_start = nl + 1
        scanned = m.end()
        # only whitespace between the line start and the tag?  (a second tag on the same
        # line never is, so each stretch is checked once)
        at_line_start = line_start >= 0 and not text[line_start:m.start()].strip()
        line_start = -1  # nothing after this tag on the same line starts the line
        if m.group(1):  # closing
            gt = skip_space(text, m.end(), " \t")
            if gt >= len(text) or text[gt] != ">":
                continue
            at_line_end = _REST_BLANK.match(text, gt + 1) is not None
            if not (at_line_start or at_line_end):
                continue
            if depth == 0:
                return m.start(), gt + 1
            depth -= 1
        elif at_line_start:
            try:
                tag = parse_tag(text, m.start(), 0)
            except ParseError:
                continue
            if tag is not None and not tag.self_closing:
                depth += 1
    return None


_REST_BLANK = re.compile(r"[ \t]*(?:\n|\Z)")
# '/' with its own spaces, so the two runs of blanks cannot trade characters (backtracking)
_TAG_RES = {name: re.compile(r"<[ \t]*(?:(/)[ \t]*)?" + name + r"(?![A-Za-z0-9_])", re.I)
            for name in DIRECTIVES}


def _content_lines(text: str, start: int, end: int, first: int) -> tuple[list[str], int]:
    """The lines of a directive's content ``text[start:end]`` and the response line of the
    first one: the rest of the opening tag's line and the indentation before the closing
    tag are dropped when blank."""
    lines = text[start:end].split("\n")
    if len(lines) > 1 and not lines[0].strip():
        lines.pop(0)
        first += 1
    if lines and not lines[-1].strip():
        lines.pop()
    return lines, first


def _unfenced(lines: list[str], first: int) -> tuple[list[str], int]:
    """Content without a markdown fence wrapping it, and the response line of its first line."""
    body = strip_fence(lines)
    if body is lines:
        return lines, first
    return body, first + next(i for i, l in enumerate(lines) if l.strip()) + 1




def _header_path(line: str) -> str:
    """The path of a ``---``/``+++`` header line (a/ b/ prefix and timestamp dropped)."""
    p = line[3:].strip().split("\t")[0].strip()
    if p.startswith(("a/", "b/")):
        p = p[2:]
    return p


def _old_start(header: str) -> int | None:
    """The old start line of an ``@@ -3,4 +3,5 @@`` header; None for a bare ``@@``."""
    m = read_hunk_header(header)
    return m.old_start if m else None


def _parse_patch(lines: list[str], first: int, path: str, source: Source) -> list[Hunk]:
    """The hunks of a FILE_PATCH body (a unified diff, line numbers optional)."""
    lines, first = _unfenced(lines, first)
    lines, first = _without_envelope(lines, first, path, source)
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    i = _skip_headers(lines, i, path)

    hunks: list[Hunk] = []
    # hunk being read: its lines, which of them were untagged blank lines, response line
    cur: list[tuple[str, str]] = []
    bare: list[bool] = []
    cur_line = first + i
    cur_hint: int | None = None
    explicit = False  # whether the current hunk has an '@@' header
    cur_header = ""

    def finish() -> None:
        while cur and bare[-1]:  # blank lines before the next '@@' or the closing tag
            cur.pop()
            bare.pop()
        unplaced = placeless_addition(cur_header, cur)
        if unplaced:
            raise ParseError(f"hunk {len(hunks) + 1}: {unplaced}", line=cur_line,
                             directive=source.directive, file=path, hint=PLACELESS_HINT)
        if cur:
            hunk = Hunk(list(cur), number=len(hunks) + 1, line_hint=cur_hint)
            hunk.old_no_newline, hunk.new_no_newline = flags
            hunks.append(hunk)
        elif explicit:
            raise ParseError(f"hunk {len(hunks) + 1} has no lines", line=cur_line,
                             directive=source.directive, file=path,
                             hint="give every '@@' hunk its context, '-' and '+' lines")

    flags = [False, False]
    for k in range(i, len(lines)):
        line = lines[k]
        if line.startswith("@@"):
            finish()
            cur, bare, flags = [], [], [False, False]
            cur_line, cur_hint, explicit = first + k, _old_start(line), True
            cur_header = line
        elif line.startswith(("\\", )) and cur:
            # '\ No newline at end of file' after the last line of a side
            tag = cur[-1][0]
            if tag in (CONTEXT, REMOVE):
                flags[0] = True
            if tag in (CONTEXT, ADD):
                flags[1] = True
        elif line[:1] in (CONTEXT, REMOVE, ADD):
            cur.append((line[0], line[1:]))
            # a whitespace-only context line is kept inside the hunk but, like a bare
            # empty line, dropped just before the next '@@' or the closing tag
            bare.append(line[0] == CONTEXT and not line.strip())
        elif not line.strip():
            cur.append((CONTEXT, ""))  # a bare empty line is an empty context line
            bare.append(True)
        else:
            raise ParseError(f"line {line!r} has no diff tag (' ', '-' or '+')",
                             line=first + k, directive=source.directive, file=path,
                             hint="start context lines with a space, removed lines with '-', "
                                  "added lines with '+'")
    finish()
    if not hunks:
        raise ParseError("FILE_PATCH holds no hunk lines", line=source.line or None,
                         directive=source.directive, file=path,
                         hint="write the change as context, '-' and '+' lines")
    return hunks


def _without_envelope(lines: list[str], first: int, path: str,
                      source: Source) -> tuple[list[str], int]:
    """A FILE_PATCH body without an apply-patch envelope a model wrapped it in:
    ``*** Begin Patch`` / ``*** Update File: <this path>`` as its first lines and
    ``*** End Patch`` as its last (BEHAVIOR.md §3).  An envelope naming another file is
    refused rather than guessed at."""
    lo, hi = content_span(lines)
    changed = False
    h = patch_marker(lines[lo]) if lo < hi else None
    if h is not None and h.kind == BEGIN:
        lo += 1
        changed = True
        while lo < hi and not lines[lo].strip():
            lo += 1
        h = patch_marker(lines[lo]) if lo < hi else None
    if h is not None and h.kind == UPDATE_FILE:
        if _strip_dot(h.arg) != _strip_dot(path):
            raise ParseError(f"the apply-patch line {h.text!r} inside FILE_PATCH names another "
                             "file", line=first + lo, directive=source.directive, file=path,
                             hint="give each file its own FILE_PATCH, without '***' lines")
        lo += 1
        changed = True
    end = patch_marker(lines[hi - 1]) if hi > lo else None
    if end is not None and end.kind == END:
        hi -= 1
        changed = True
    if not changed:
        return lines, first
    return lines[lo:hi], first + lo


def _strip_dot(path: str) -> str:
    path = path.strip()
    return path[2:] if path.startswith("./") else path


def _skip_headers(lines: list[str], i: int, path: str) -> int:
    """Skip ``diff``/``index`` lines and a ``---``/``+++`` header pair at the top of a
    patch.  The pair counts as a header only when an ``@@`` follows or it names the file:
    otherwise it may be a removed ``-- x`` and an added ``++ y`` line."""
    j = i
    while j < len(lines) and lines[j].startswith(("diff ", "index ")):
        j += 1
    if j + 1 < len(lines) and lines[j].startswith("---") and lines[j + 1].startswith("+++"):
        k = j + 2
        while k < len(lines) and not lines[k].strip():
            k += 1
        names = {_header_path(lines[j]), _header_path(lines[j + 1])}
        if (k < len(lines) and lines[k].startswith("@@")) or path in names:
            return j + 2
    return i


def _directive_words(name: str, *paths: str) -> str:
    return " ".join((name,) + paths)


def _parse_container(text: str, open_start: int, open_end: int,
                     line_of) -> tuple[Block, int]:
    """Parse the container whose opening tag spans ``text[open_start:open_end]``."""
    container_line = line_of(open_start)
    ops: list[Operation] = []
    kinds: list[str] = []  # directive names in order
    pos = open_end
    while True:
        skipped_from, pos = pos, skip_space(text, pos)
        if pos >= len(text):
            raise ParseError(f"{CUT_OFF}: <FILE_CHANGES> opened at response line "
                             f"{container_line} is never closed", line=container_line,
                             directive=CONTAINER, hint=CUT_OFF_HINT)
        line = line_of(pos)
        at_line_start = text.rfind("\n", skipped_from, pos) >= 0
        if at_line_start and text[pos] in "`~":
            nl = text.find("\n", pos)
            if fence_open(text[pos:len(text) if nl < 0 else nl]):
                # a markdown fence around a directive inside the container
                pos = len(text) if nl < 0 else nl + 1
                continue
        if text.startswith("<!--", pos):
            close = text.find("-->", pos + 4)
            if close < 0:
                raise ParseError("an <!-- comment inside <FILE_CHANGES> is never closed",
                                 line=line, directive=CONTAINER)
            pos = close + 3
            continue
        tag = parse_tag(text, pos, line) if text[pos] == "<" else None
        if tag is None:
            nl = text.find("\n", pos, pos + 200)
            snippet = text[pos:pos + 200 if nl < 0 else nl].strip()
            if len(snippet) > 60:
                snippet = snippet[:57] + "..."
            raise ParseError(f"unexpected text inside <FILE_CHANGES>: {snippet!r}", line=line,
                             directive=CONTAINER, hint=_FORMAT_HINT)
        if tag.name == CONTAINER:
            if tag.closing:
                formats = _block_formats(kinds)
                return Block(formats[0], open_start, tag.end, ops, formats=formats), tag.end
            raise ParseError(f"<FILE_CHANGES> opened at line {container_line} is not closed "
                             "before the next <FILE_CHANGES>", line=container_line,
                             directive=CONTAINER, hint="end each change block with </FILE_CHANGES>")
        if tag.closing:
            raise ParseError(f"unexpected </{tag.name}> (no matching opening tag)", line=line,
                             directive=CONTAINER, hint=_FORMAT_HINT)
        if tag.name not in DIRECTIVES:
            raise ParseError(f"unknown directive <{tag.name}> inside <FILE_CHANGES>", line=line,
                             directive=tag.name, hint=_FORMAT_HINT)
        op, pos = _parse_directive(text, tag, line, line_of)
        ops.append(op)
        kinds.append(tag.name)


def _block_formats(kinds: list[str]) -> list[str]:
    """file-changes, hashline, or both in order of first appearance (BEHAVIOR §2)."""
    if HASHLINE_PATCH not in kinds:
        return [NAME]
    if PATCH not in kinds:
        return [HASHLINE]
    return [NAME, HASHLINE] if kinds.index(PATCH) < kinds.index(HASHLINE_PATCH) else [HASHLINE, NAME]


def _parse_directive(text: str, tag: Tag, line: int,
                     line_of) -> tuple[Operation, int]:
    """The operation of the directive whose opening tag is ``tag``, and where parsing goes on."""
    name = tag.name
    if name == RENAME:
        old = _attr(tag, FROM_KEYS, "from_path", line) or _attr(tag, PATH_KEYS, "from_path", line)
        new = _attr(tag, TO_KEYS, "to_path", line)
        if not old or not new:
            missing = "from_path" if not old else "to_path"
            raise ParseError(f"<FILE_RENAME> has no {missing} attribute", line=line,
                             directive=name, hint='write <FILE_RENAME from_path="old" to_path="new" />')
        op: Operation = RenameFile(old, new, Source(NAME, _directive_words(name, old, "->", new),
                                                    line=line))
        return op, _after_empty_directive(text, tag, line)

    path = _attr(tag, PATH_KEYS, "file_path", line)
    if not path:
        raise ParseError(f"<{name}> has no file_path attribute", line=line, directive=name,
                         hint=f'write <{name} file_path="path/to/file">')
    words = _directive_words(name, path)
    if name == DELETE:
        return DeleteFile(path, Source(NAME, words, line=line)), _after_empty_directive(text, tag, line)

    if tag.self_closing:
        lines, first, end = [], line, tag.end
    else:
        close = _find_close(text, tag.end, name)
        if close is None:
            raise ParseError(f"{CUT_OFF}: <{name}> is opened and never closed", line=line,
                             directive=words, file=path,
                             hint=f"end the directive with </{name}>; {CUT_OFF_HINT}")
        # the content's first response line matters only to the formats that report
        # lines inside it (a bisect per directive saved for 100,000 new files)
        first_line = line_of(tag.end) if name in (PATCH, HASHLINE_PATCH) else line
        lines, first = _content_lines(text, tag.end, close[0], first_line)
        end = close[1]

    if name == NEW:
        lines, _ = _unfenced(lines, first)
        return NewFile(path, new_file_text(lines), Source(NAME, words, line=line), replace=True), end
    if name == APPEND:
        lines, _ = _unfenced(lines, first)
        return AppendFile(path, new_file_text(lines), Source(NAME, words, line=line)), end
    if name == PATCH:
        source = Source(NAME, words, line=line)
        return EditFile(path, _parse_patch(lines, first, path, source), source), end
    # FILE_HASHLINE_PATCH
    source = Source(HASHLINE, words, line=line)
    try:
        ops = hashline.parse_ops(lines, source, first_line=first)
    except ParseError as e:
        for problem in e.problems:  # every problem that concerns a file names it
            problem.file = problem.file or path
        raise
    return HashlineEdit(path, ops, source), end


def _after_empty_directive(text: str, tag: Tag, line: int) -> int:
    """Where parsing goes on after a RENAME/DELETE tag: past ``</NAME>`` when the tag was
    not self-closing and the closing tag follows (only whitespace between)."""
    if tag.self_closing:
        return tag.end
    p = skip_space(text, tag.end)
    if p < len(text) and text[p] == "<":
        close = parse_tag(text, p, line)
        if close is not None and close.closing and close.name == tag.name:
            return close.end
    return tag.end


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then one <FILE_CHANGES> block holding directives:

<FILE_CHANGES>
<FILE_NEW file_path="src/config.py">
GREETING = "Hello"
</FILE_NEW>

<FILE_PATCH file_path="src/app.py">
@@
 def greet(name):
-    print("Hi " + name)
+    print(GREETING + ", " + name)
</FILE_PATCH>

<FILE_RENAME from_path="docs/NOTES.txt" to_path="docs/notes.md" />

<FILE_DELETE file_path="old_config.ini" />
</FILE_CHANGES>

- FILE_NEW gives a file's whole content (it creates the file or replaces it).
- FILE_PATCH holds unified-diff hunks without line numbers: each hunk starts with `@@`;
  lines start with a space (unchanged), `-` (removed) or `+` (added). Copy unchanged and
  removed lines exactly from the file.
- FILE_APPEND adds its content at the end of a file (creating the file when missing).
- FILE_RENAME moves a file; FILE_DELETE removes one. Directives apply in order, so a
  patch after a rename names the new path.
"""

HASHLINE_PROMPT = """\
Files are shown to you with an id on every line, as `LINE#ID:text`, inside
<FILE_CONTENT path="..."> blocks, for example:

<FILE_CONTENT path="src/app.py">
1#1f:import sys
2#05:
3#52:def greet(name):
4#15:    print("Hi " + name)
5#05:
6#04:def unused():
7#84:    pass
</FILE_CONTENT>

Edit them by those ids. Answer with your explanation, then:

<FILE_CHANGES>
<FILE_HASHLINE_PATCH file_path="src/app.py">
4#15:    print(GREETING + ", " + name)
<+1#1f:from config import GREETING
5#05-7#84:
</FILE_HASHLINE_PATCH>
</FILE_CHANGES>

Operations, one per line (line numbers and ids are those of the file as shown):
- `L#ID:text` replaces line L with text; `L1#ID-L2#ID:text` replaces lines L1 to L2.
  An empty text deletes them. Lines that follow an operation and start no operation of
  their own continue its text (several new lines).
- `>+L#ID:text` inserts text after line L; `<+L#ID:text` inserts it before line L.
  Empty text inserts a blank line.
- Copy every `L#ID` exactly as shown: an id that does not match the current line makes
  the whole answer be refused, and you get the current lines back to retry.
FILE_NEW, FILE_RENAME and FILE_DELETE directives (see the file-changes format) may be
used in the same block.
"""


class FileChanges(Format):
    """``<FILE_CHANGES>`` containers, opened by a line that starts with the tag."""

    name = NAME
    selects = (NAME, HASHLINE)
    prompts = {"file-changes": PROMPT, "hashline": HASHLINE_PROMPT}
    new_file_hint = 'a <FILE_NEW file_path="PATH"> directive'
    leftover_markup = (
        (r"^\s*</?(?:" + "|".join((CONTAINER, *DIRECTIVES)) + r")\b", "a <FILE_CHANGES> directive"),
        *hashline.LEFTOVER_MARKUP,
    )
    triggers = "<"
    markers = ("<FILE_CHANGES",)
    tells = ("<FILE_CHANGES",)

    def opens(self, scan: Scan, i: int) -> bool:
        line = scan.lines[i]
        p = len(line) - len(line.lstrip(" \t"))
        return _CONTAINER_OPEN.match(line, p) is not None

    def parse(self, scan: Scan, i: int) -> Block:
        line = scan.lines[i]
        p = len(line) - len(line.lstrip(" \t"))
        m = _CONTAINER_OPEN.match(line, p)
        start = scan.starts[i] + p
        block, _end = _parse_container(scan.text, start, scan.starts[i] + m.end(),
                                       scan.line_of)
        return block


FORMAT = FileChanges()


