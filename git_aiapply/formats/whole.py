"""The ``whole`` format (aider's ``whole`` edit format): a path line, then a fenced block
holding the file's whole new content.

    src/app.py
    ```python
    the whole file
    ```

Only looked for when ``--format whole`` asks for it: any fenced code after a one-word
line would match, so it is never auto-detected as such (without ``--format``, the same
shape is read only as a tracked file's lazy snippet holding placeholders:
``lazy_snippet.py``).  The path is the line before the fence
(blank lines between tolerated), with the markup ``search_replace.strip_path`` drops, or
a path in the fence's info string.  A fence without a path is not a file (a shell
command, an example) and is left to the explanation.  Inside the block, a fence line with
an info string opens a nested fence that the next bare fence line closes (a markdown
file's own code blocks); the block's fence is closed by a bare fence line of its
character at least as long, or, for aider's tag fences (``<source>python`` ...
``</source>``), by the closing tag, everything between being content.  A document whose
own bare fence line may be the close is refused (``_refuse_inner_bare_fences``).  Each
file replaces the tracked file's content or creates it.
"""
from __future__ import annotations

import re

from ..errors import ParseError
from ..ops import NewFile, Source
from ..text import fence_close_line
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, new_file_text
from .search_blocks import DOCUMENT_SUFFIXES
from .search_replace import (closes, cut_in_a_path_line, fence_of, is_closing_tag, names_file,
                             path_in_info, stops_mid_word, strip_path)

NAME = "whole"


def _path_before(lines: list[str], fence_line: int, floor: int) -> tuple[str | None, int]:
    """The path named before the fence on ``lines[fence_line]``, and its line."""
    info_path = path_in_info(fence_of(lines[fence_line])[2])
    if info_path:
        return info_path, fence_line
    k = fence_line - 1
    while k >= floor and k >= fence_line - 3 and not lines[k].strip():
        k -= 1
    if k < floor or not lines[k].strip() or fence_of(lines[k]):
        return None, fence_line
    # a file named in a sentence ("Run `main.py`:") is not this fence's path: the
    # fence may well be a command, and here any fence after a path is a whole file
    path = strip_path(lines[k], sentences=False)
    return (path, k) if path else (None, fence_line)


_NEW_WORDS = re.compile(r"\bnew\b|\bcreat(?:e|es|ed|ing)\b", re.IGNORECASE)


def _says_new(lines: list[str], path_line: int, floor: int, path: str) -> bool:
    """Whether the response says this file is new: "new" or "create" on its path line
    (outside the path: ``app.py (new file)``) or in the sentence just before it ("Create
    this file:").  Only that close: a word further up may be about anything."""
    if _NEW_WORDS.search(lines[path_line].replace(path, " ")):
        return True
    k = path_line - 1
    while k >= floor and not lines[k].strip():
        k -= 1
    return k >= floor and fence_of(lines[k]) is None and bool(_NEW_WORDS.search(lines[k]))


def _close(lines: list[str], start: int, fence: tuple[str, int, str]) -> int | None:
    """The line closing the fence opened on ``lines[start]``, or None: fences pair as
    everywhere else (``text.fence_close_line``), but inside one of aider's tag fences
    every other line is content (that is why aider chose it)."""
    if fence[0].startswith("<"):
        return next((k for k in range(start + 1, len(lines)) if closes(lines[k], fence)), None)
    return fence_close_line(lines, start, (fence[0], fence[1]))


def _refuse_inner_bare_fences(lines: list[str], start: int, close: int,
                              fence: tuple[str, int, str], path: str) -> None:
    """Refuse a document whose fence may be closed by one of its own bare fence lines:
    the content goes on right after the closing line, and the next fence line of its
    character is bare too (it may be the real close).  Read either way, part of the
    file would land in another file or the commit message: never guessed."""
    info = fence[2].strip().lower()
    if fence[0].startswith("<") or not (path.lower().endswith(DOCUMENT_SUFFIXES)
                                        or info in ("markdown", "md")):
        return
    if close + 1 >= len(lines) or not lines[close + 1].strip():
        return
    later = None
    for line in lines[close + 1:]:
        later = fence_of(line)
        if later is not None and later[0] == fence[0]:
            break
    if later is None or later[0] != fence[0] or later[2] or later[1] < fence[1]:
        return
    bare = fence[0] * fence[1]
    raise ParseError(
        f"the fenced block of {path} (response line {start + 1}) is ambiguous: the {bare} "
        f"line at response line {close + 1} may close it or be one of the file's own code "
        f"fences, since the text goes on right after it and a later bare {bare} line may be "
        "the real close", line=start + 1, directive=f"whole file {path}", file=path,
        hint=f"fence the file with a longer fence ({fence[0] * (fence[1] + 1)}) than any "
             "fence inside it")


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then every file you change or create in full: the file's
path alone on a line, then a fenced block holding the file's whole new content:

src/config.py
```python
import os

GREETING = os.environ.get("GREETING", "Hello")
```

- Give every line of the file, unchanged ones included: the block replaces the file.
- When the content holds lines of ``` fences, fence the file with ```` instead.
- This format is used with `git ai-apply --format whole`: fenced code without a path
  line before it is taken as part of the explanation.
"""


class Whole(Format):
    """A fence with a path before it (or in its info string), read only with --format."""

    name = NAME
    prompts = {"whole": PROMPT}
    new_file_hint = "the file's path and its whole content in a fenced block"
    explicit_only = True
    triggers = "`~<"

    def opens(self, scan: Scan, i: int) -> bool:
        # inside a fence that names no file everything is its content (a prose fence)
        if scan.fence is not None:
            return False
        fence = fence_of(scan.lines[i])
        return (fence is not None and not is_closing_tag(fence)
                and _path_before(scan.lines, i, scan.floor)[0] is not None)

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        """After a file (the blocks before would land without the rest), a last line
        naming a file, or cut mid-line in what may be a path line (``app.``, ``src/ut``),
        begins the next file (its fence, once opened, is a block never closed)."""
        if scan.floor == 0:
            return False
        line = scan.lines[k]
        if mid_line:
            return cut_in_a_path_line(line, after_a_block=True) or stops_mid_word(line)
        return names_file(line)

    def parse(self, scan: Scan, i: int) -> Block:
        lines = scan.lines
        fence = fence_of(lines[i])
        path, first = _path_before(lines, i, scan.floor)
        close = _close(lines, i, fence)
        if close is None:
            raise ParseError(f"{CUT_OFF}: the fenced block of {path} is never closed (the "
                             "response ends inside it)", line=i + 1,
                             directive=f"whole file {path}", file=path,
                             hint=f"end the file's content with a closing ``` line; {CUT_OFF_HINT}")
        _refuse_inner_bare_fences(lines, i, close, fence, path)
        source = Source(NAME, f"whole file {path}", line=first + 1)
        op = NewFile(path, new_file_text(lines[i + 1:close]), source, replace=True,
                     says_new=_says_new(lines, first, scan.floor, path))
        return Block(NAME, scan.starts[first], scan.end_of(close), [op])


FORMAT = Whole()


