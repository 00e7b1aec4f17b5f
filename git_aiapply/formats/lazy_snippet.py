"""A tracked file's lazy snippet after its path (BEHAVIOR.md §5 "Lazy edits", issue 31): the
shape of aider's ``whole`` format, read without ``--format whole`` only where it cannot be
an example.

    `src/app.py`
    ```python
    class Client:
        # ... existing code ...
        def get(self, k):
            log(k)
            return self.data[k]
    ```

The path stands on the line before the fence (bare, in backticks, bold, a heading, after
a label, or the one tracked file a sentence is about: ``In `src/app.py`:``), in the fence's
info string, or as a comment alone on the fence's first line (``// src/app.py``,
``# src/app.py``, dropped from the snippet).  The block is read only when all of these hold:

- the repository tracks that path as a file (``paths.tracked_kind``: the command sets it
  around parsing; without a repository nothing is read this way);
- the block holds a placeholder note (``Scan.is_snippet``, the placeholder rules the
  caller passes down: this stage sits below them);
- the block is no block of another format (its content, scanned by the other formats,
  holds no SEARCH/REPLACE, diff, patch...; a ``diff`` or ``patch`` fence never is one).

A fence of example code after a path that is not tracked, or without a placeholder, stays
explanation, as before.  The snippet becomes ``NewFile(lazy=True)``: merged into the file
by the planner (plan/lazy_merge.py), or refused; never written as the whole file.
"""
from __future__ import annotations

import re

from ..errors import ParseError
from ..ops import NewFile, Source
from ..paths import knows_tracked, tracked_kind
from ..record import record
from ..text import fence_close_line
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, new_file_text, scan_blocks
from .search_blocks import looks_like_marker
from .search_replace import fence_of, path_in_info, strip_path, tracked_path

NAME = "whole"  # the shape is aider's whole format: AI-Format names it so

# fences whose content is a change of its own kind, never a snippet
_CHANGE_INFO = frozenset({"diff", "patch", "udiff", "git-diff"})
# a comment alone on the fence's first line, naming the file
_COMMENT_PATH = re.compile(r"[ \t]*(?://|#|--|;|/\*|<!--)[ \t]*(?:file(?:name)?:[ \t]*)?"
                           r"`?([^\s`*]+?)`?[ \t]*(?:\*/|-->)?[ \t]*", re.IGNORECASE)
_LOOKBACK = 3  # blank lines tolerated between the path line and the fence


@record
class _Found:
    path: str
    first: int  # the block's first line (the path line, or the fence's)
    close: int | None  # the fence's closing line (None: the response ends inside it)
    snippet: list[str]


def _tracked(path: str | None) -> str | None:
    if not path:
        return None
    path = path.removeprefix("./")
    return path if tracked_kind(path) == "file" else None


def _path_line(lines: list[str], i: int, floor: int) -> tuple[str | None, int | None]:
    """The path the line before the fence on ``lines[i]`` names by its markup, and that
    line (with None for the path: a sentence, read by what is tracked only later)."""
    k = i - 1
    while k >= floor and k >= i - _LOOKBACK and not lines[k].strip():
        k -= 1
    if k < floor or not lines[k].strip() or fence_of(lines[k]) is not None:
        return None, None
    return strip_path(lines[k]), k


def _sentence_path(line: str, k: int) -> str | None:
    """A tracked name with spaces, or the one tracked file a sentence is about."""
    try:
        return tracked_path(line, False, k + 1)
    except ParseError:
        return None  # a sentence naming several tracked files: none is taken


def _comment_path(line: str) -> str | None:
    m = _COMMENT_PATH.fullmatch(line)
    if m is None or not ("/" in m.group(1) or "." in m.group(1).strip(".")):
        return None
    return m.group(1)


def find(scan: Scan, i: int) -> _Found | None:
    """The lazy snippet whose fence opens on line ``i``, or None (module docstring).  The
    cheap questions first: a fence, a path written before or in it, no other format's
    marker inside; then the placeholder rules; what the repository tracks last (its list
    is read on the first question)."""
    opened = _opened_fence(scan.lines, i)
    if opened is None:
        return None
    info, close, body = opened
    path, said = path_in_info(info), None
    if path is None:
        path, said = _path_line(scan.lines, i, scan.floor)
    top = next((k for k, line in enumerate(body) if line.strip()), None)
    named = _comment_path(body[top]) if top is not None else None
    if path is None and named is None and said is None or _marked(scan, body):
        return None
    if not scan.is_snippet(named or path or "", body):
        return None
    if path is None and said is not None:
        path = _sentence_path(scan.lines[said], said)
        if path is not None and named is None and not scan.is_snippet(path, body):
            return None  # judged again by the file's grammar
    return _resolved(_tracked(path), _tracked(named), said, i, close, body, top)


def _opened_fence(lines: list[str], i: int) -> tuple[str, int | None, list[str]] | None:
    """(info string, closing line, content) of the backtick or tilde fence opening on line
    ``i``; None for no fence, or a fence of a diff or patch."""
    fence = fence_of(lines[i])
    if fence is None or fence[0] not in "`~":
        return None
    if fence[2].strip().lower().split(" ", 1)[0] in _CHANGE_INFO:
        return None
    close = fence_close_line(lines, i, (fence[0], fence[1]))
    return fence[2], close, lines[i + 1:close if close is not None else len(lines)]


def _resolved(path: str | None, named: str | None, said: int | None, i: int,
              close: int | None, body: list[str], top: int | None) -> _Found | None:
    """The snippet of the tracked file the path line (``path``) or the fence's first line
    (``named``) names: both tracked and different, neither is taken."""
    first = said if said is not None and path is not None else i
    if named is not None and top is not None:  # the fence's first line names a tracked file
        if path is not None and path != named:
            return None  # two files named: which one is meant is not guessed
        path, body = named, body[:top] + body[top + 1:]
    return None if path is None else _Found(path, first, close, body)


def _marked(scan: Scan, body: list[str]) -> bool:
    """The fence's content holds another format's marker line or tell (a SEARCH/REPLACE
    block's, a diff's): that format's block, never a snippet (the fast answer; the other
    formats' own reading decides the rest, ``_another_formats_block``)."""
    if any(looks_like_marker(line) for line in body):
        return True
    text = "\n" + "\n".join(body)
    return any(tell in text for f in scan.formats for tell in f.tells)


def _another_formats_block(scan: Scan, body: list[str], me: Format) -> bool:
    """Whether the fence's content holds a block of another format (or one that cannot
    be read: that format's refusal is the answer's, never a snippet's)."""
    others = [f for f in scan.formats if f is not me and f.name != NAME]
    try:
        return bool(scan_blocks("\n".join(body) + "\n", others, inside_fence=True).blocks)
    except ParseError:
        return True


class LazySnippet(Format):
    """A tracked file's path and a fenced block holding placeholders (module docstring)."""

    name = NAME
    triggers = "`~"
    narrow = True
    new_file_hint = "the file's path and its whole content in a fenced block"

    def opens(self, scan: Scan, i: int) -> bool:
        if scan.fence is not None or scan.is_snippet is None or not knows_tracked():
            return False
        found = find(scan, i)
        if found is None or _another_formats_block(scan, found.snippet, self):
            return False
        scan.memo[NAME] = (i, found)
        return True

    def parse(self, scan: Scan, i: int) -> Block:
        at, found = scan.memo.pop(NAME)
        assert at == i, "parse follows its own opens"
        directive = f"lazy snippet of {found.path}"
        if found.close is None:
            raise ParseError(f"{CUT_OFF}: the fenced block of {found.path} is never closed (the "
                             "response ends inside it)", line=i + 1, directive=directive,
                             file=found.path, hint=f"end the block with a closing ``` line; "
                                                   f"{CUT_OFF_HINT}")
        op = NewFile(found.path, new_file_text(found.snippet),
                     Source(NAME, directive, line=found.first + 1), replace=True,
                     says_new=False, lazy=True)
        return Block(NAME, scan.starts[found.first], scan.end_of(found.close), [op])

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        return False  # a path line at the end is prose: this shape is read only when whole


FORMAT = LazySnippet()
