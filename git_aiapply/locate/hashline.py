"""Hashline edits (BEHAVIOR.md §4): lines referenced as ``LINE#ID``.

The ID is a two-digit fingerprint of the line's content (whitespace ignored), so an edit
written against an outdated view of the file is refused instead of landing on the wrong
line.  This module computes the IDs, parses the operations of a FILE_HASHLINE_PATCH,
applies them, and renders the ``<FILE_CONTENT>`` view a prompt shows the model.
"""
from __future__ import annotations

from ..record import record

from ..errors import ApplyError, ParseError, Problem
from ..ops import HashlineEdit, HashlineOp, Source
from ..text import FileText, TextBuilder, strip_fence

# The oh-my-pi letters for nibbles 0..15: 'ZZ' is 0x00, 'PZ' is 0x10, 'ZH' is 0x0f.
NIBBLE_LETTERS = "ZPMQVRWSNKTXJBYH"

# hashline edits left in a file (the commit guard of the hook kit): a view line or set
# `12#ab:text`, a range `12#ab-14#cd:`, an insert `>+12#ab text`
_ID = f"(?:[0-9a-f]{{2}}|[{NIBBLE_LETTERS}]{{2}})"
LEFTOVER_MARKUP = (
    (rf"^\d+#{_ID}[:-]", "a hashline LINE#ID prefix"),
    (rf"^\s*[<>]\+\d+#{_ID}\b", "a hashline insert"),
)
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")

# Whitespace removed before hashing: JavaScript's /\s/ (what oh-my-pi strips), so the ids
# agree with the tools that prompt models in this convention.
_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_DROP_WHITESPACE = {ord(c): None for c in _WHITESPACE}

# Kinds of HashlineOp.
SET = "set"
INSERT_AFTER = "insert_after"
INSERT_BEFORE = "insert_before"

HASHLINE_HINT = ("re-read the current lines shown and write each reference as LINE#ID "
                 "with the ID printed there")


def line_id(line: str) -> str:
    """The two-hex-digit ID of a line: xxh32 (seed 0) of its UTF-8 bytes with all
    whitespace removed, low byte."""
    import xxhash  # small C extension; imported here so plain parsing never needs it

    data = line.translate(_DROP_WHITESPACE).encode("utf-8", "surrogateescape")
    return format(xxhash.xxh32_intdigest(data, 0) & 0xFF, "02x")


def _decode_id(two: str) -> str | None:
    """Lowercase hex for an ID written as hex or as two NIBBLE_LETTERS; None if neither."""
    if len(two) != 2:
        return None
    if two[0] in NIBBLE_LETTERS and two[1] in NIBBLE_LETTERS:
        return format(NIBBLE_LETTERS.index(two[0]) * 16 + NIBBLE_LETTERS.index(two[1]), "02x")
    if two[0] in _HEX_DIGITS and two[1] in _HEX_DIGITS:
        return two.lower()
    return None


def _read_ref(s: str, pos: int) -> tuple[int, str, int] | str:
    """Read ``LINE#ID`` at ``s[pos:]``: (line, id, position after it), or why it is not one."""
    end = pos
    while end < len(s) and s[end] in _DIGITS:
        end += 1
    if end == pos:
        return "expected a line number"
    number = int(s[pos:end])
    if end >= len(s) or s[end] != "#":
        return "expected '#' after the line number"
    ident = _decode_id(s[end + 1:end + 3])
    if ident is None:
        return f"{s[end + 1:end + 3]!r} is not a line ID (two hex digits or two of {NIBBLE_LETTERS})"
    if number < 1:
        return "line numbers start at 1"
    return number, ident, end + 3


@record
class _Draft:
    """An operation being parsed: its first line and the continuation lines after it."""

    kind: str
    start: int
    start_id: str
    end: int
    end_id: str
    first_text: str | None  # None: an insert written without separator
    raw: str
    continuation: list[str]


def _looks_like_op(line: str) -> bool:
    """Whether a line was meant to start an operation (so a malformed one is refused
    rather than silently taken as content): ``>+``/``<+``, or digits then '#'."""
    if line.startswith((">+", "<+")):
        return True
    i = 0
    while i < len(line) and line[i] in _DIGITS:
        i += 1
    return 0 < i < len(line) and line[i] == "#"


def _parse_op_line(line: str) -> _Draft | str:
    """One operation line as a draft, or why it is malformed."""
    if line.startswith(">+") or line.startswith("<+"):
        kind = INSERT_AFTER if line[0] == ">" else INSERT_BEFORE
        got = _read_ref(line, 2)
        if isinstance(got, str):
            return got
        number, ident, pos = got
        if pos == len(line):
            text = None  # no separator: a blank line
        elif line[pos] in " :":
            text = line[pos + 1:]
        else:
            return "expected a space or ':' after the reference"
        return _Draft(kind, number, ident, number, ident, text, line, [])
    got = _read_ref(line, 0)
    if isinstance(got, str):
        return got
    start, start_id, pos = got
    end, end_id = start, start_id
    if pos < len(line) and line[pos] == "-":
        got = _read_ref(line, pos + 1)
        if isinstance(got, str):
            return "range end: " + got
        end, end_id, pos = got
        if end < start:
            return f"range written end-first ({start} to {end}); write the lower line first"
    if pos >= len(line) or line[pos] != ":":
        return "expected ':' after the reference"
    return _Draft(SET, start, start_id, end, end_id, line[pos + 1:], line, [])


def parse_ops(lines: list[str], source: Source, first_line: int | None = None) -> list[HashlineOp]:
    """The operations of a FILE_HASHLINE_PATCH body (``lines`` without endings).

    ``first_line`` is the response line of ``lines[0]`` (default: the line after the
    directive) so errors can point at the exact line.
    """
    if first_line is None:
        first_line = source.line + 1 if source.line else 0
    body = strip_fence(lines)
    if body is not lines:
        # the fence opened on the first non-blank line
        first_line += next(i for i, l in enumerate(lines) if l.strip()) + 1

    def where(i: int) -> int | None:
        return first_line + i if first_line else None

    drafts: list[_Draft] = []
    for i, line in enumerate(body):
        if _looks_like_op(line):
            got = _parse_op_line(line)
            if isinstance(got, str):
                raise ParseError(f"malformed hashline operation {line!r}: {got}",
                                 line=where(i), directive=source.directive, hint=_OPS_HINT)
            drafts.append(got)
        elif drafts:
            drafts[-1].continuation.append(line)
        elif line.strip():
            raise ParseError(f"expected a hashline operation, got {line!r}",
                             line=where(i), directive=source.directive, hint=_OPS_HINT)
    if not drafts:
        raise ParseError("FILE_HASHLINE_PATCH holds no operation", line=source.line or None,
                         directive=source.directive, hint=_OPS_HINT)

    ops = []
    for number, d in enumerate(drafts, 1):
        cont = d.continuation
        while cont and not cont[-1].strip():  # blank lines before the next op / the end
            cont.pop()
        if d.first_text:
            text_lines = [d.first_text] + cont
        elif cont:
            text_lines = list(cont)  # empty first text: the continuation is the whole text
        elif d.kind == SET:
            text_lines = []  # `L#ID:` alone deletes
        else:
            text_lines = [""]  # an insert with no text inserts a blank line
        ops.append(HashlineOp(d.kind, d.start, d.start_id, d.end, d.end_id, text_lines,
                              number, d.raw))
    return ops


_OPS_HINT = ("operations are `L#ID:text` (set), `L1#ID-L2#ID:text` (replace a range), "
             "`>+L#ID text` (insert after), `<+L#ID text` (insert before)")


def _view_line(ft: FileText, number: int) -> str:
    text = ft.lines[number - 1]
    return f"{number}#{line_id(text)}:{text}"


def _nearby(ft: FileText, number: int, radius: int = 2) -> list[tuple[int, str]]:
    """The current lines around ``number`` (the last lines when it is past the end)."""
    n = len(ft.lines)
    centre = min(number, n)
    lo, hi = max(1, centre - radius), min(n, centre + radius)
    return [(k, _view_line(ft, k)) for k in range(lo, hi + 1)]


def _check_refs(ft: FileText, edit: HashlineEdit, path: str) -> list[Problem]:
    problems = []
    n = len(ft.lines)
    for op in edit.ops:
        refs = [(op.start, op.start_id)]
        if op.kind == SET and op.end != op.start:
            refs.append((op.end, op.end_id))
        for number, ident in refs:
            if number > n:
                reason = (f"line {number} does not exist (the file has {n} line"
                          f"{'' if n == 1 else 's'})")
            elif not ident:  # an agent's line-range edit (formats/agent_blocks.py): no id
                continue
            else:
                now = line_id(ft.lines[number - 1])
                if now == ident:
                    continue
                reason = (f"{number}#{ident} is stale: line {number} is now "
                          f"{number}#{now}")
            problems.append(Problem(
                reason, file=path, directive=edit.source.directive, edit=op.number,
                edit_first_line=op.raw,
                nearby=_nearby(ft, number) if n else [], nearby_label="current lines",
                nearby_refs=True))
    if problems:  # said once, after the last problem
        problems[-1].hint = HASHLINE_HINT if any(op.start_id for op in edit.ops) else (
            "the line numbers are those of the file as the edits before this one left it")
    return problems


def _check_overlaps(edit: HashlineEdit, path: str) -> list[Problem]:
    sets = sorted((op for op in edit.ops if op.kind == SET), key=lambda op: (op.start, op.end))
    problems = []
    reach: HashlineOp | None = None  # the set seen so far that reaches furthest down
    for op in sets:
        if reach is not None and op.start <= reach.end:
            problems.append(Problem(
                f"edits {reach.number} and {op.number} overlap (lines {reach.start}-{reach.end} "
                f"and {op.start}-{op.end}); each line may be replaced only once",
                file=path, directive=edit.source.directive, edit=op.number,
                edit_first_line=op.raw, hint="merge them into one range"))
        if reach is None or op.end > reach.end:
            reach = op
    return problems


def apply_hashline(ft: FileText, edit: HashlineEdit, path: str) -> tuple[FileText, int, int]:
    """Apply every operation of ``edit`` to ``ft`` at once.

    Returns the new text, the number of lines added and of lines removed.  Raises
    ``ApplyError`` (one Problem per bad reference, or per overlap) without changing
    anything.
    """
    problems = _check_refs(ft, edit, path)
    if problems:
        raise ApplyError(problems)
    problems = _check_overlaps(edit, path)
    if problems:
        raise ApplyError(problems)

    n = len(ft.lines)
    before: dict[int, list[str]] = {}  # original line -> lines inserted before it, in order
    after: dict[int, list[str]] = {}
    replace: dict[int, HashlineOp] = {}  # first replaced line -> the set/range op
    added = removed = 0
    for op in edit.ops:
        added += len(op.text_lines)
        if op.kind == SET:
            replace[op.start] = op
            removed += op.end - op.start + 1
        elif op.kind == INSERT_BEFORE:
            before.setdefault(op.start, []).extend(op.text_lines)
        else:
            after.setdefault(op.start, []).extend(op.text_lines)

    # the new bytes straight from the old ones (TextBuilder), no per-line copies
    out = TextBuilder(ft, ft.dominant_ending())
    i = 1
    while i <= n:
        op = replace.get(i)
        if op is None:
            out.add(before.get(i, ()))
            out.keep(i - 1, i)
            out.add(after.get(i, ()))
            i += 1
            continue
        # inserts anchored inside a replaced range go before / after the replacement
        for k in range(op.start, op.end + 1):
            out.add(before.get(k, ()))
        out.add(op.text_lines)
        for k in range(op.start, op.end + 1):
            out.add(after.get(k, ()))
        i = op.end + 1
    return out.finish(ft.final_newline), added, removed


def render_view(path: str, data: bytes) -> str:
    """The ``<FILE_CONTENT>`` view of a file with a ``N#ID:`` prefix on every line."""
    ft = FileText.from_bytes(data)
    rows = [f'<FILE_CONTENT path="{path}">']
    rows.extend(f"{k}#{line_id(text)}:{text}" for k, text in enumerate(ft.lines, 1))
    rows.append("</FILE_CONTENT>")
    return "\n".join(rows)
