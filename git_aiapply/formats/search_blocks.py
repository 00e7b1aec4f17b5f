"""SEARCH/REPLACE block bodies, shared by ``codechange`` and ``search-replace``.

    <<<<<<< SEARCH
    old lines
    =======
    new lines
    >>>>>>> REPLACE

Markers are 5 to 9 marker characters (aider's rule), whitespace around them tolerated.
A block runs from its SEARCH marker to the first ``>>>>>>> REPLACE`` line; every
``=======`` line before it is a *divider candidate*.  One candidate is the divider.  With
several (a setext heading underline or a conflict marker in the file's text), parsing
cannot tell which one splits the block, so every reading is kept on the hunk
(``Hunk.readings``) and the file decides: only a reading whose SEARCH fits is taken
(``locate.choose_readings``), none or several fitting refuses the block.  A divider right
after the SEARCH marker is always the divider (an empty SEARCH: a new file).

Aider also ends REPLACE at a second ``=======`` when ``>>>>>>> REPLACE`` never comes; that
reading is taken only when the closing ``=======`` is followed by the end of the block's
region (a fence line, the next SEARCH marker, or the container's close), never by more
text, so a REPLACE holding a setext underline is never cut there.
"""
from __future__ import annotations

import re

from collections.abc import Callable, Sequence

from ..ops import ADD, CONTEXT, REMOVE, EditFile, Hunk, NewFile, Operation, Source
from ..record import record
from .scan import new_file_text
from ..lazy_re import lazy_compile
from ..text import fence_open, strip_fence

_LINE_HINT = lazy_compile(r'[ \t]*SEARCH[ \t]+line=("?)(\d+)\1[ \t]*', re.IGNORECASE)

# Files whose content legitimately is fenced markdown: a fence around their SEARCH and
# REPLACE may be the file's own, so it is never stripped.
DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc")


def _marker(line: str, char: str, word: str) -> bool:
    """``line`` is a conflict-style marker: 5-9 ``char`` then ``word`` (spaces tolerated)."""
    s = line.strip()
    n = len(s) - len(s.lstrip(char))
    if not 5 <= n <= 9:
        return False
    return s[n:].strip().upper() == word


def is_search(line: str) -> bool:
    return _marker(line, "<", "SEARCH") or search_line_hint(line) is not None


def search_line_hint(line: str) -> int | None:
    """The line hint of a SEARCH marker that carries one, as Zed's edit agent writes it
    (``<<<<<<< SEARCH line=42``, its diff-fenced format): the 1-based line the SEARCH
    text starts on, evidence of place that breaks a tie; None for a plain marker."""
    s = line.strip()
    n = len(s) - len(s.lstrip("<"))
    if not 5 <= n <= 9:
        return None
    m = _LINE_HINT.fullmatch(s[n:])
    return int(m.group(2)) or None if m else None


def is_divider(line: str) -> bool:
    return _marker(line, "=", "")


def is_replace(line: str) -> bool:
    return _marker(line, ">", "REPLACE")


def looks_like_marker(line: str) -> bool:
    s = line.lstrip()
    return s.startswith(("<<<<<", "=====", ">>>>>"))


class BlockError(Exception):
    """A block that cannot be read; ``index`` is its SEARCH marker's line (0-based, in the
    caller's lines).  ``missing`` is ``'divider'`` or ``'replace'``; ``stopped_by`` what
    came instead: ``'end'`` (of the text), ``'search'`` (the next block), ``'stop'`` (the
    region's close), or ``'replace'`` (the REPLACE marker, for a missing divider)."""

    def __init__(self, reason: str, index: int, hint: str, missing: str, stopped_by: str):
        super().__init__(reason)
        self.reason = reason
        self.index = index
        self.hint = hint
        self.missing = missing
        self.stopped_by = stopped_by


@record
class Reading:
    """One way to split a block: the divider line and the two sides."""

    divider: int  # 0-based index of the divider line
    search: list[str]
    replace: list[str]


@record
class RawBlock:
    """A SEARCH/REPLACE block as written: where it is and its possible readings."""

    head: int  # 0-based index of the SEARCH marker line
    end: int  # index of the line that closed it (the REPLACE marker or the closing =======)
    readings: list[Reading]


def read_block(lines: Sequence[str], head: int, *,
               stop: Callable[[str], bool] | None = None,
               closes: Callable[[str], bool] = is_replace,
               aider_close: bool = False) -> RawBlock:
    """The block whose SEARCH marker is ``lines[head]``.

    ``stop(line)`` marks the end of the region the block lives in (``</CodeChange>``);
    ``closes(line)`` recognises the closing marker; ``aider_close`` accepts aider's second
    ``=======`` as the close when no REPLACE marker comes (see the module's doc).  Raises
    BlockError for a block that has no divider or is never closed."""
    dividers, j, closer = _scan_block(lines, head, stop, closes)
    if closer is not None:
        if not dividers:
            raise BlockError(_NO_DIVIDER, head, _DIVIDER_HINT, "divider", "replace")
        return RawBlock(head, closer, _readings(lines, head, dividers, closer))
    stopped_by = "end" if j >= len(lines) else "search" if is_search(lines[j]) else "stop"
    if aider_close:
        block = _aider_closed(lines, head, dividers, j)
        if block is not None:
            return block
    raise _never_closed(lines, head, dividers, j, stopped_by)


_NO_DIVIDER = "the block has no '=======' line between SEARCH and REPLACE"
_DIVIDER_HINT = "separate SEARCH and REPLACE with a ======= line"


def _scan_block(lines: Sequence[str], head: int, stop: Callable[[str], bool] | None,
                closes: Callable[[str], bool]) -> tuple[list[int], int, int | None]:
    """The divider candidates after ``head``, the line the scan stopped on, and that
    line's index again when it is the closing marker (None when the block never closed:
    the text's end, the next SEARCH or the region's close came first)."""
    n = len(lines)
    dividers: list[int] = []
    j = head + 1
    while j < n:
        line = lines[j]
        if closes(line):
            return dividers, j, j
        if (stop is not None and stop(line)) or is_search(line):
            break
        if is_divider(line):
            dividers.append(j)
        j += 1
    return dividers, j, None


def _readings(lines: Sequence[str], head: int, dividers: list[int], close: int) -> list[Reading]:
    """One reading per divider candidate of the block closed at ``close``; a divider
    right after the SEARCH marker (an empty SEARCH) is the only one."""
    if dividers[0] == head + 1:
        dividers = dividers[:1]
    return [Reading(d, list(lines[head + 1:d]), list(lines[d + 1:close])) for d in dividers]


def _aider_closed(lines: Sequence[str], head: int, dividers: list[int],
                  region_end: int) -> RawBlock | None:
    """The block closed by aider's second ``=======``, when one is followed by only the
    end of the block's region (see the module's doc); None when none is."""
    for k, d in enumerate(dividers):
        if k == 0 or not _region_ends_after(lines, d, region_end):
            continue
        return RawBlock(head, d, _readings(lines, head, dividers[:k], d))
    return None


def _never_closed(lines: Sequence[str], head: int, dividers: list[int], j: int,
                  stopped_by: str) -> BlockError:
    """The error for a block that no closing marker ended (line ``j`` came instead)."""
    if not dividers:
        reason = _NO_DIVIDER if stopped_by != "end" else \
            "the block is never closed (no '=======' and no '>>>>>>> REPLACE' line; truncated response?)"
        return BlockError(reason, head, _DIVIDER_HINT, "divider", stopped_by)
    if stopped_by == "end":
        reason = "the block is never closed (no '>>>>>>> REPLACE' line; truncated response?)"
    else:
        following = "the next <<<<<<< SEARCH" if stopped_by == "search" else repr(lines[j].strip())
        reason = f"the block has no '>>>>>>> REPLACE' line before {following}"
    return BlockError(reason, head, "end every block with >>>>>>> REPLACE", "replace", stopped_by)


def _region_ends_after(lines: Sequence[str], d: int, region_end: int) -> bool:
    """Only blank lines between ``lines[d]`` and a fence line or the region's end."""
    for k in range(d + 1, region_end):
        line = lines[k]
        if not line.strip():
            continue
        return fence_open(line) is not None
    return region_end < len(lines)  # the end of the text: a cut-off answer, never a close


def diff_lines(search: list[str], replace: list[str]) -> list[tuple[str, str]]:
    """SEARCH vs REPLACE as hunk lines: shared lines are context, the rest removed/added."""
    import difflib  # only needed when a SEARCH/REPLACE block is present

    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, search, replace, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.extend((CONTEXT, t) for t in search[a1:a2])
        else:
            out.extend((REMOVE, t) for t in search[a1:a2])
            out.extend((ADD, t) for t in replace[b1:b2])
    return out


def unfence_pair(path: str, search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    """Drop markdown fences a model put around both SEARCH and REPLACE.

    Only when both sides are fenced (a consistent wrapper, not content) and the file is
    not a document whose own content may be fenced code."""
    if path.lower().endswith(DOCUMENT_SUFFIXES):
        return search, replace
    s2, r2 = strip_fence(search), strip_fence(replace)
    search_fenced, replace_fenced = s2 is not search, r2 is not replace
    search_empty = is_blank(search)
    replace_empty = is_blank(replace)
    if search_fenced and (replace_fenced or replace_empty):
        return s2, r2
    if search_empty and replace_fenced:  # a new file whose content the model fenced
        return search, r2
    return search, replace


def is_blank(lines: list[str]) -> bool:
    return not any(t.strip() for t in lines)


@record
class NumberedBlock:
    """A block of one file as the format numbered it, for ``file_operations``."""

    number: int  # 1-based edit number within the file's directive
    line: int  # response line of its SEARCH marker
    readings: list[Reading]
    divider_lines: list[int]  # response line of each reading's divider
    line_hint: int | None = None  # the SEARCH marker's ``line=N`` (Zed)


def file_operations(path: str, blocks: list[NumberedBlock], source: Source,
                    error: Callable[[str, int, str | None], Exception],
                    in_turn: bool = False) -> list[Operation]:
    """The operations of one file's consecutive blocks: a NewFile for an empty SEARCH
    (at most one, first), then one EditFile holding a hunk per other block (``in_turn``:
    see ``EditFile.in_turn``).

    ``error(reason, response_line, hint)`` makes the exception to raise."""
    new_file: NewFile | None = None
    hunks: list[Hunk] = []
    for b in blocks:
        readings = [unfence_pair(path, r.search, r.replace) for r in b.readings]
        if len(readings) == 1 and is_blank(readings[0][0]):
            if new_file is not None:
                raise error(f"block {b.number} has an empty SEARCH too; only one block of "
                            f"{path} may create the file", b.line,
                            "put the whole new file in one block with an empty SEARCH")
            new_file = NewFile(path, new_file_text(readings[0][1]), source, replace=False)
            continue
        hunk = Hunk(diff_lines(*readings[0]), number=b.number, kind="search",
                    line_hint=b.line_hint)
        if len(readings) > 1:
            hunk.readings = [(f"the ======= at response line {at} as the divider", diff_lines(s, r))
                             for at, (s, r) in zip(b.divider_lines, readings)]
        hunks.append(hunk)
    ops: list[Operation] = []
    if new_file is not None:
        ops.append(new_file)
    if hunks:
        ops.append(EditFile(path, hunks, source, in_turn=in_turn))
    return ops
