"""Finding every change block in a response, whatever its format.

One module per format (``file_changes``, ``apply_patch``, ``codechange``,
``unified_diff``; hashline directives live inside FILE_CHANGES and are parsed by
``hashline``).  Formats are tried in priority order; the regions a format claims are
blanked out for the ones after it, so a diff inside a FILE_PATCH is never read twice.
"""
from __future__ import annotations

import importlib
from ..record import field, record, replace

from ..errors import ApplyError, Problem
from ..ops import Operation
from .base import Block, fence_open, is_fence_close, blank_out

# Format name -> module, in the order they are tried.
FORMAT_MODULES = {
    "file-changes": "file_changes",
    "apply-patch": "apply_patch",
    "codechange": "codechange",
    "search-replace": "search_replace",
    "unified-diff": "unified_diff",
    "whole": "whole",
}
# Names accepted by --format; hashline is found by the file-changes module.
FORMAT_NAMES = ["file-changes", "hashline", "apply-patch", "codechange", "search-replace",
                "unified-diff", "whole"]
# Formats looked for only when --format names them (any fenced code would match ``whole``).
EXPLICIT_ONLY = {"whole"}


@record
class ParsedResponse:
    """Every change block of a response as operations, plus the prose."""

    ops: list[Operation]
    blocks: list[Block]
    explanation: str  # the prose outside every change block
    formats: list[str]  # in order of first appearance
    descriptions: list[tuple[str, str]] = field(default_factory=list)


def _module(fmt: str):
    return importlib.import_module(f".{FORMAT_MODULES[fmt]}", __name__)


def _widen_to_fence(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a block's span to a markdown fence that encloses exactly it."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start, end  # the block does not begin its line
    # the previous non-blank line
    p = line_start
    while True:
        if p == 0:
            return start, end
        prev_start = text.rfind("\n", 0, p - 1) + 1
        prev = text[prev_start:p - 1]
        if prev.strip():
            break
        p = prev_start
    fence = fence_open(prev)
    if not fence:
        return start, end
    # the rest of the block's last line must be blank, then the next non-blank line closes
    q = end
    if q > 0 and text[q - 1] != "\n":
        nl = text.find("\n", q)
        if text[q:(len(text) if nl < 0 else nl)].strip():
            return start, end
        q = len(text) if nl < 0 else nl + 1
    while q < len(text):
        nl = text.find("\n", q)
        line_end = len(text) if nl < 0 else nl
        line = text[q:line_end]
        if line.strip():
            if is_fence_close(line, *fence):
                return prev_start, min(len(text), line_end + 1)
            return start, end
        q = line_end + 1
    return start, end


def parse_response(text: str, only: str | None = None) -> ParsedResponse:
    """Every change block of ``text`` (LF line endings) as operations, plus the prose."""
    if only and only not in FORMAT_NAMES:
        raise ApplyError(f"unknown format {only!r}; known formats: {', '.join(FORMAT_NAMES)}")
    blocks: list[Block] = []
    masked = text
    for fmt in FORMAT_MODULES:
        if only and only != fmt and not (only == "hashline" and fmt == "file-changes"):
            continue
        if fmt in EXPLICIT_ONLY and only != fmt:
            continue
        found = _module(fmt).find_blocks(masked)
        if not found:
            continue
        spans = []
        for b in found:
            b.start, b.end = _widen_to_fence(masked, b.start, b.end)
            spans.append((b.start, b.end))
            blocks.append(b)
        masked = blank_out(masked, spans)
    if only == "hashline":
        blocks = [b for b in blocks if "hashline" in b.formats]
    blocks.sort(key=lambda b: b.start)
    ops: list[Operation] = []
    formats: list[str] = []
    descriptions: list[tuple[str, str]] = []
    for n, b in enumerate(blocks, 1):
        for op in b.ops:
            op.source = replace(op.source, block=n)
            ops.append(op)
        for f in b.formats:
            if f not in formats:
                formats.append(f)
        descriptions.extend(b.descriptions)
    explanation = _outside(text, [(b.start, b.end) for b in blocks])
    return ParsedResponse(ops, blocks, explanation, formats, descriptions)


def _outside(text: str, spans: list[tuple[int, int]]) -> str:
    parts = []
    pos = 0
    for s, e in sorted(spans):
        if s > pos:
            parts.append(text[pos:s])
        pos = max(pos, e)
    parts.append(text[pos:])
    return "\n\n".join(p.strip("\n") for p in parts if p.strip())


def no_changes_problem(only: str | None) -> Problem:
    looked = [only] if only else [f for f in FORMAT_NAMES if f not in EXPLICIT_ONLY]
    return Problem(
        "no file changes found",
        hint="looked for " + ", ".join(looked) + " blocks; answer with one of them "
             "(`git ai-apply prompt FORMAT` prints the instructions)",
    )
