"""The ``apply-patch`` format: OpenAI Codex's ``apply_patch`` envelope.

    *** Begin Patch
    *** Add File: PATH          then '+' lines (the whole content)
    *** Delete File: PATH
    *** Update File: PATH       optionally '*** Move to: NEW', then chunks:
    @@ anchor                   '@@' alone or with an anchor; consecutive '@@' lines nest
     context / -removed / +added
    *** End of File             the chunk fits only at the end of the file
    *** End Patch

What Codex accepts is accepted too: markers padded with whitespace, a heredoc wrapper
(``apply_patch <<'EOF'`` ... ``EOF``), a first chunk without ``@@``, a bare empty line as
an empty context line.  Beyond Codex: consecutive ``@@`` lines are nested anchors, blank
lines between sections and just before the next ``@@`` / ``***`` line / the end are
ignored, header keywords are matched without regard to case or a missing colon, and a
unified-diff hunk header written in place of an anchor (``@@ -12,7 +12,8 @@ def f():``)
gives a line hint (and its trailing section text as the anchor) instead of an anchor that
could never be found.

The parser walks the response line by line once; nothing backtracks.
"""
from __future__ import annotations

import re
from ..record import field, record

from ..errors import ParseError
from ..ops import ADD, CONTEXT, REMOVE, DeleteFile, EditFile, Hunk, NewFile, Operation, RenameFile, Source
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan
from ..text import read_hunk_header

NAME = "apply-patch"

# Header kinds, by the keyword that follows '***'.
BEGIN, END, EOF_MARK = "begin patch", "end patch", "end of file"
ADD_FILE, DELETE_FILE, UPDATE_FILE, MOVE_TO = "add file", "delete file", "update file", "move to"
UNKNOWN = "unknown"
_BARE_MARKERS = (BEGIN, END, EOF_MARK)
_PATH_MARKERS = (ADD_FILE, DELETE_FILE, UPDATE_FILE, MOVE_TO)
_SECTION_STARTS = (ADD_FILE, DELETE_FILE, UPDATE_FILE)

_DIRECTIVE_WORDS = {
    ADD_FILE: "Add File", DELETE_FILE: "Delete File", UPDATE_FILE: "Update File", MOVE_TO: "Move to",
}
_HEADER_HINT = ("valid headers are '*** Add File: PATH', '*** Delete File: PATH' and "
                "'*** Update File: PATH' (optionally followed by '*** Move to: PATH')")

# 'apply_patch <<'EOF'' and friends: an optional command word, '<<' (or '<<-'), and a
# delimiter word, bare or quoted.  No nested quantifiers, so matching is linear.
_HEREDOC_RE = re.compile(
    r"(?:\$[ \t]*)?(?:(?:apply_patch|applypatch)[ \t]*)?<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1"
)


@record
class _Header:
    """One *** marker line of an apply-patch block."""

    kind: str  # one of the keywords above, or UNKNOWN
    arg: str = ""  # the path, for the path markers
    text: str = ""  # the line, stripped, for messages


def _header(line: str) -> _Header | None:
    """The '*** ...' marker a line holds (surrounding whitespace ignored), or None."""
    s = line.strip()
    if not s.startswith("***"):
        return None
    rest = s[3:].strip()
    low = rest.lower()
    if low in _BARE_MARKERS:
        return _Header(low, text=s)
    for kind in _PATH_MARKERS:
        if rest[:len(kind)].lower() != kind:
            continue
        tail = rest[len(kind):]
        if tail.startswith(":"):
            return _Header(kind, tail[1:].strip(), s)
        if tail[:1].isspace():  # the colon forgotten: '*** Update File src/app.py'
            return _Header(kind, tail.strip(), s)
    return _Header(UNKNOWN, text=s)


def marker(line: str) -> _Header | None:
    """The '*** ...' marker ``line`` holds (surrounding whitespace ignored), or None."""
    return _header(line)


def _is_marker(line: str, kind: str) -> bool:
    h = _header(line)
    return h is not None and h.kind == kind


def heredoc_delimiter(line: str) -> str | None:
    """The delimiter when ``line`` is a heredoc opener such as ``apply_patch <<'EOF'``."""
    m = _HEREDOC_RE.fullmatch(line.strip())
    return m.group(2) if m else None


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then one patch:

*** Begin Patch
*** Add File: tests/test_app.py
+from app import greet
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    greet("world")
+    greet(sys.argv[1])
*** Delete File: old_config.ini
*** End Patch

- Add File: every content line starts with `+`.
- Update File: chunks start with `@@`, optionally followed by a line of the file (a class
  or function header) that comes before the chunk; several `@@` lines in a row narrow
  down step by step. Lines start with a space (unchanged), `-` or `+`. `*** End of File`
  after a chunk pins it to the end of the file.
- `*** Move to:` right after `*** Update File:` renames the file.
"""


class ApplyPatch(Format):
    """``*** Begin Patch`` ... ``*** End Patch``; a heredoc line just above belongs to it."""

    name = NAME
    prompts = {"apply-patch": PROMPT}
    new_file_hint = '`*** Add File: PATH`'
    leftover_markup = (
        (r"^\s*\*\*\* (Begin Patch|End Patch|Update File:|Add File:|Delete File:|Move to:)",
         "an apply-patch envelope line"),
    )
    triggers = "*"
    markers = ("*** Begin Patch", "apply_patch <<")
    tells = ("*** Begin Patch",)

    def opens(self, scan: Scan, i: int) -> bool:
        return _is_marker(scan.lines[i], BEGIN)

    def parse(self, scan: Scan, i: int) -> Block:
        lines = scan.lines
        parser = _BlockParser(scan, i)
        ops = parser.parse()
        end = parser.k  # the '*** End Patch' line
        # A heredoc wrapper around the patch belongs to the block.
        span_start, span_last = i, end
        if i - 1 >= scan.floor:
            delimiter = heredoc_delimiter(lines[i - 1])
            if delimiter is not None:
                span_start = i - 1
                if end + 1 < len(lines) and lines[end + 1].strip() == delimiter:
                    span_last = end + 1
        return Block(NAME, scan.starts[span_start], scan.end_of(span_last), ops)


FORMAT = ApplyPatch()


def parse_patch(lines: list[str]) -> list[Operation]:
    """The operations of one whole patch given as lines, ``*** Begin Patch`` first and
    ``*** End Patch`` last (a tool call's V4A diff wrapped as a section)."""
    parser = _BlockParser(Scan("\n".join(lines)), 0)
    ops = parser.parse()
    if parser.k != len(lines) - 1:
        raise ParseError("'*** End Patch' before the end of the patch", line=parser.k + 1,
                         hint="end the patch once, with its last line")
    return ops



@record
class _Chunk:
    """One @@ chunk of an Update File section."""

    number: int
    line: int  # response line where the chunk starts
    anchors: list[str] = field(default_factory=list)
    line_hint: int | None = None
    # (tag, text, blank): blank marks a line that is empty or whitespace only as written,
    # which is dropped when it ends the chunk
    lines: list[tuple[str, str, bool]] = field(default_factory=list)
    at_eof: bool = False

    def has_content(self) -> bool:
        return any(not blank for _tag, _text, blank in self.lines)

    def first_text(self) -> str:
        if self.anchors:
            return "@@ " + self.anchors[0]
        for _tag, text, blank in self.lines:
            if not blank:
                return text
        return ""


class _ChunkRun:
    """The chunks of one Update File section as they are read: those closed, the one
    open (``cur``), and whether the last ended with ``*** End of File``."""

    def __init__(self, path: str, words: str):
        self.path = path
        self.words = words
        self.chunks: list[_Chunk] = []
        self.cur: _Chunk | None = None
        self.after_eof = False  # the last chunk ended with '*** End of File'

    def close(self) -> None:
        """Close the open chunk, its trailing blank lines (before '@@', '***' or the end)
        dropped; a chunk left with no lines is refused."""
        cur = self.cur
        if cur is None:
            return
        while cur.lines and cur.lines[-1][2]:
            cur.lines.pop()
        if not cur.lines:
            raise ParseError(f"chunk {cur.number} has no lines", line=cur.line,
                             directive=self.words, file=self.path,
                             hint="a chunk holds ' ', '-' and '+' lines after its '@@'")
        self.chunks.append(cur)
        self.cur = None

    def end_of_file(self, lineno: int) -> None:
        """'*** End of File': the open chunk ends the file."""
        if self.cur is None or not self.cur.has_content():
            raise ParseError("'*** End of File' with no chunk lines before it",
                             line=lineno, directive=self.words, file=self.path)
        self.cur.at_eof = True
        self.close()
        self.after_eof = True

    def start_chunk(self, line: str, lineno: int) -> None:
        """An '@@' line: a new chunk, or one more anchor of a chunk with no lines yet
        (consecutive '@@' lines)."""
        anchor, hint = _anchor(line)
        if self.cur is not None and self.cur.has_content():
            self.close()
        if self.cur is None:
            self.cur = _Chunk(len(self.chunks) + 1, lineno)
        else:
            self.cur.lines.clear()  # only blank lines so far: still consecutive '@@' lines
        if anchor:
            self.cur.anchors.append(anchor)
        if hint is not None:
            self.cur.line_hint = hint
        self.after_eof = False

    def hunks(self) -> list[Hunk]:
        return [
            Hunk([(tag, text) for tag, text, _blank in c.lines], number=c.number, kind="chunk",
                 anchors=c.anchors, at_eof=c.at_eof, line_hint=c.line_hint)
            for c in self.chunks
        ]


class _BlockParser:
    """Parses the patch whose '*** Begin Patch' is response line index ``begin``, through
    its '*** End Patch' (left at ``self.k``), into operations.

    The end is found by parsing, not by searching: inside an Update chunk a line is
    read by its first character (as Codex does), so an indented ``  *** End Patch``
    that documents the format is a context line."""

    def __init__(self, scan: Scan, begin: int):
        self.scan = scan
        self.lines = scan.lines
        self.begin = begin
        self.n = len(scan.lines)
        self.k = begin + 1  # the next line to read (response index)
        self.ops: list[Operation] = []

    def _never_closed(self) -> ParseError:
        # the file whose section was being read when the patch stopped
        last = self.ops[-1] if self.ops else None
        file = getattr(last, "new_path", None) or getattr(last, "path", None)
        directive = last.source.directive if last is not None else None
        if self.k >= self.n:
            return ParseError(f"{CUT_OFF}: '*** Begin Patch' is never closed (the response ends "
                              "before '*** End Patch')", line=self.begin + 1, file=file,
                              directive=directive, hint=CUT_OFF_HINT)
        return ParseError("'*** Begin Patch' is never closed: its code fence ends at response "
                          f"line {self.k + 1} before any '*** End Patch'", line=self.begin + 1,
                          file=file, directive=directive,
                          hint="end every patch with '*** End Patch'")

    def parse(self) -> list[Operation]:
        try:
            return self._parse()
        except ParseError as e:
            if CUT_OFF in str(e) or self.scan.ends_whole or not self._response_ends_inside():
                raise  # the answer is known to end where its author stopped: no cut
            # the last section's complaint (an empty update, a chunk without lines) is
            # where the response stopped: the patch never got its '*** End Patch'
            raise ParseError(f"{CUT_OFF}: '*** Begin Patch' is never closed (the response ends "
                             f"before '*** End Patch'; {e.problems[0].reason})",
                             line=self.begin + 1, file=e.problems[0].file,
                             directive=e.problems[0].directive, hint=CUT_OFF_HINT) from None

    def _response_ends_inside(self) -> bool:
        """No '*** End Patch' line and no fence closing the patch follow its beginning."""
        for j in range(self.begin + 1, self.n):
            h = _header(self.lines[j])
            if self.scan.ends_fence(j) or (h is not None and h.kind in (END, BEGIN)):
                return False
        return True

    def _parse(self) -> list[Operation]:
        while True:
            if self.k >= self.n or self.scan.ends_fence(self.k):
                raise self._never_closed()
            line = self.lines[self.k]
            if not line.strip():
                self.k += 1  # blank lines between sections
                continue
            h = _header(line)
            if h is None:
                raise self._unexpected(line, "outside any file section",
                                       hint="a patch holds only '*** Add File:', '*** Delete File:' "
                                            "and '*** Update File:' sections")
            if h.kind == END:
                break
            if h.kind == BEGIN:
                raise ParseError(
                    f"'*** Begin Patch' is never closed: another '*** Begin Patch' starts at "
                    f"response line {self.k + 1} before any '*** End Patch'",
                    line=self.begin + 1, hint="end every patch with '*** End Patch'")
            if h.kind == ADD_FILE:
                self._add_file(h)
            elif h.kind == DELETE_FILE:
                self._delete_file(h)
            elif h.kind == UPDATE_FILE:
                self._update_file(h)
            elif h.kind == MOVE_TO:
                raise ParseError("'*** Move to:' must directly follow an '*** Update File:' header",
                                 line=self.k + 1)
            elif h.kind == EOF_MARK:
                raise ParseError("'*** End of File' outside an '*** Update File:' chunk",
                                 line=self.k + 1)
            else:
                raise self._unknown_header(h)
        if not self.ops:
            raise ParseError("empty patch: nothing between '*** Begin Patch' and '*** End Patch'",
                             line=self.begin + 1,
                             hint="add at least one '*** Add File:', '*** Delete File:' or "
                                  "'*** Update File:' section")
        return self.ops

    def _padded_end(self, k: int, chunk: "_Chunk | None") -> bool:
        """Whether the indented ``*** End Patch`` on line ``k`` of a chunk ends the patch
        (Codex accepts a padded last line): it does when nothing after it continues the
        patch and the chunk it would end already changes something; otherwise it is a
        context line (a chunk of only context so far is a file that documents the
        format, quoted in an answer that was cut off there)."""
        if chunk is not None and not any(tag != CONTEXT for tag, _t, _b in chunk.lines):
            return False
        j = k + 1
        while j < self.n and not self.lines[j].strip():
            j += 1
        if j >= self.n:
            return True
        nxt = self.lines[j]
        if nxt[:1] in (CONTEXT, REMOVE, ADD) or nxt.startswith("@@"):
            return False
        h = _header(nxt)
        return not (h is not None and h.kind in (END, EOF_MARK) + _SECTION_STARTS)

    # -- sections ---------------------------------------------------------------------

    def _path(self, h: _Header) -> tuple[str, str, Source]:
        words = f"{_DIRECTIVE_WORDS[h.kind]}: {h.arg}"
        if not h.arg:
            raise ParseError(f"'*** {_DIRECTIVE_WORDS[h.kind]}:' without a path", line=self.k + 1,
                             directive=_DIRECTIVE_WORDS[h.kind])
        return h.arg, words, Source(NAME, words, line=self.k + 1)

    def _add_file(self, h: _Header) -> None:
        path, words, source = self._path(h)
        self.k += 1
        content: list[str] = []
        pending_blank = 0  # bare blank lines seen since the last '+' line
        while self.k < self.n and not self.scan.ends_fence(self.k):
            line = self.lines[self.k]
            if line.startswith("+"):
                # a bare empty line between '+' lines is an empty line the model left
                # without its '+'; blank lines after the last '+' line are not content
                content.extend([""] * pending_blank)
                pending_blank = 0
                content.append(line[1:])
            elif not line.strip():
                pending_blank += 1
            else:
                if _header(line) is None:
                    raise self._unexpected(line, f"in '*** {words}'", directive=words, file=path,
                                           hint="every line of an added file starts with '+'")
                break
            self.k += 1
        text = "".join(c + "\n" for c in content)
        self.ops.append(NewFile(path, text, source, replace=True))

    def _delete_file(self, h: _Header) -> None:
        path, _words, source = self._path(h)
        self.ops.append(DeleteFile(path, source))
        self.k += 1

    def _update_file(self, h: _Header) -> None:
        path, words, source = self._path(h)
        self.k += 1
        # an optional '*** Move to:' right after the header (blank lines allowed)
        move: tuple[str, Source] | None = None
        probe = self.k
        while probe < self.n and not self.lines[probe].strip():
            probe += 1
        if probe < self.n:
            mh = _header(self.lines[probe])
            if mh is not None and mh.kind == MOVE_TO:
                self.k = probe
                new_path, _move_words, move_source = self._path(mh)
                move = (new_path, move_source)
                self.k += 1

        hunks = self._chunks(path, words)
        if not hunks and move is None:
            raise ParseError(f"empty update: '*** {words}' has no chunk and no '*** Move to:'",
                             line=source.line, directive=words, file=path,
                             hint="give the changes as '@@' chunks of ' ', '-' and '+' lines")
        if hunks:
            self.ops.append(EditFile(path, hunks, source, ensure_final_newline=True))
        if move is not None:
            self.ops.append(RenameFile(path, move[0], move[1]))

    # -- chunks -----------------------------------------------------------------------

    def _chunks(self, path: str, words: str) -> list[Hunk]:
        """Read the chunks of an Update File section, up to the next section or the end."""
        run = _ChunkRun(path, words)
        # a line that starts with a space is a context line even when it would close the
        # fence around the patch (a Markdown file's own ' ```' quoted as context)
        while self.k < self.n and not (self.lines[self.k][:1] != CONTEXT
                                       and self.scan.ends_fence(self.k)):
            line = self.lines[self.k]
            lineno = self.k + 1
            h = _header(line)
            # As in Codex, a line of a chunk is read by its first character: one that
            # starts with a space is a context line even when it looks like a marker (a
            # file that documents the format), unless it is a padded '*** End Patch'
            # after which nothing continues the patch.
            if h is not None and (not line.startswith(CONTEXT)
                                  or (h.kind == END and self._padded_end(self.k, run.cur))):
                if h.kind != EOF_MARK:
                    self._refuse_in_chunks(h, lineno, path, words)
                    break  # the next section or the end of the patch
                run.end_of_file(lineno)
            elif line.startswith("@@"):
                run.start_chunk(line, lineno)
            else:
                self._chunk_line(run, line, lineno)
            self.k += 1
        run.close()
        return run.hunks()

    def _refuse_in_chunks(self, h: _Header, lineno: int, path: str, words: str) -> None:
        """A header among an Update File section's chunks that may not stand there."""
        if h.kind == MOVE_TO:
            raise ParseError("'*** Move to:' must directly follow the '*** Update File:' header",
                             line=lineno, directive=words, file=path)
        if h.kind == UNKNOWN:
            raise self._unknown_header(h)

    def _chunk_line(self, run: "_ChunkRun", line: str, lineno: int) -> None:
        """A context, removed or added line (a bare empty line is an empty context line);
        outside a chunk, blank lines are skipped and a first line without '@@' begins
        the first chunk."""
        blank = not line.strip()
        if line[:1] in (CONTEXT, REMOVE, ADD):
            tag, text = line[0], line[1:]
        elif blank:
            tag, text = CONTEXT, ""
        else:
            number = run.cur.number if run.cur is not None else len(run.chunks) + 1
            raise self._unexpected(
                line, f"in chunk {number}", directive=run.words, file=run.path,
                hint="every chunk line starts with ' ' (context), '-' (removed) or '+' (added); "
                     "a new chunk starts with '@@'")
        if run.cur is None:
            if blank:
                return  # blank lines before a chunk are not part of it
            if run.chunks or run.after_eof:
                raise self._unexpected(
                    line, f"after chunk {len(run.chunks)} ended with '*** End of File'",
                    directive=run.words, file=run.path, hint="start a new chunk with '@@'")
            run.cur = _Chunk(1, lineno)  # a first chunk without '@@'
        run.cur.lines.append((tag, text, blank))

    # -- errors -----------------------------------------------------------------------

    def _unexpected(self, line: str, where: str, *, directive: str | None = None,
                    file: str | None = None, hint: str | None = None) -> ParseError:
        shown = line if len(line) <= 80 else line[:77] + "..."
        return ParseError(f"unexpected line {where}: {shown!r}", line=self.k + 1,
                          directive=directive, file=file, hint=hint)

    def _unknown_header(self, h: _Header) -> ParseError:
        return ParseError(f"invalid header {h.text!r}", line=self.k + 1, hint=_HEADER_HINT)


def _anchor(line: str) -> tuple[str, int | None]:
    """The anchor text of an '@@' line (empty for a bare '@@') and any line hint.

    The anchor keeps its leading whitespace after the one space following '@@' (it may
    be an indented method), trailing whitespace dropped."""
    rest = line[2:]
    if rest.startswith(" "):
        rest = rest[1:]
    rest = rest.rstrip()
    m = read_hunk_header(line.strip())
    if m is not None and m.section is not None:
        # a unified-diff header ('@@ -12,7 +12,8 @@ section'): its old start only breaks
        # ties; what follows the closing '@@' is the enclosing section, a real anchor
        return m.section, m.old_start
    return rest, None
