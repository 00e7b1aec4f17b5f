"""A model's reasoning left in a text answer (BEHAVIOR.md §2).

A reasoning model's raw answer (DeepSeek-R1, QwQ, a model behind a server without a
reasoning parser) may begin with its reasoning, ``<think>`` ... ``</think>`` (or
``<thinking>``): drafts it tried and dropped.  It is not the answer: the scanner
(``scan.skip_reasoning``) reads no change block in it, and it is not explanation.  Only a
tag that opens a line of prose counts; one inside a change block or a code fence is that
block's content.  These helpers read lines only; the scanner decides what they mean.
"""
from __future__ import annotations

import re

from ..text import fence_open, is_fence_close

REASONING_TAGS = ("thinking", "think")  # longest first: "<thinking>" starts with "<think"
# After an opening tag, a word that names the tag itself: the line is a sentence ABOUT
# the tag ("<think> blocks come from DeepSeek-R1"), not reasoning (asked only when the
# tag is never closed: a closed block is reasoning whatever its first words).
_ABOUT_THE_TAG = re.compile(r"\s*(?:blocks?|tags?|sections?|elements?|markers?|tokens?)\b\W*\w",
                            re.IGNORECASE)


def reasoning_tag(line: str) -> str | None:
    """The reasoning tag's name (``think``, ``thinking``) when ``line`` opens with one."""
    s = line.lstrip()[:10].lower()
    for name in REASONING_TAGS:
        if s.startswith(f"<{name}>"):
            return name
    return None


def is_lone_close(line: str) -> bool:
    """``line`` is a reasoning block's closing tag and nothing else."""
    said = line.strip().lower()
    return any(said == f"</{name}>" for name in REASONING_TAGS)


def reasoning_span(lines: list[str], i: int) -> tuple[str, tuple[int, int] | None] | None:
    """None when line ``i`` opens no reasoning block; else (its tag's name, where it ends:
    (closing line, column past the closing tag and the spaces after it), or None when it
    is never closed)."""
    name = reasoning_tag(lines[i])
    if name is None:
        return None
    column = lines[i].lower().index(f"<{name}>") + len(name) + 2
    found = _reasoning_close(lines, i, column, f"</{name}>")
    if found is None:
        return None if _ABOUT_THE_TAG.match(lines[i][column:]) else (name, None)
    j, end = found
    rest = lines[j][end:]
    return name, (j, end + len(rest) - len(rest.lstrip(" \t")))  # the spaces, not the prose


def _reasoning_close(lines: list[str], i: int, column: int,
                     close: str) -> tuple[int, int] | None:
    """(line, column just past it) of the tag ``close`` that ends the reasoning opened on
    line ``i`` (its text starts at ``column``).  A close inside a code fence the reasoning
    opened is an example it quotes, not its end; when the reasoning's fences never
    balance, a line that is the closing tag alone ends it."""
    fence: tuple[str, int] | None = None
    for j in range(i, len(lines)):
        line = lines[j]
        if fence is not None:
            if is_fence_close(line, *fence):
                fence = None
            continue
        at = line.lower().find(close, column if j == i else 0)
        if at >= 0:
            return j, at + len(close)
        if j > i and line.lstrip()[:1] in ("`", "~"):
            fence = fence_open(line.strip())
    if fence is None:
        return None
    for j in range(i + 1, len(lines)):
        if lines[j].strip().lower() == close:
            return j, len(lines[j].rstrip())
    return None
