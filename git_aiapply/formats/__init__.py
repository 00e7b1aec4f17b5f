"""Finding every change block in a response, whatever its format.

One module per format (``file_changes``, ``apply_patch``, ``codechange``,
``unified_diff``; hashline directives live inside FILE_CHANGES and are parsed by
``hashline``), each exposing a ``FORMAT`` object of the protocol in ``scan``.  The
blocks are found in one pass, top to bottom, by ``scan.scan_blocks``: a block's content
is opaque to every format, so a diff inside a FILE_PATCH or an example inside a REPLACE
is never read as a block of its own.

Other stages import this package's own names (``parse_response``, ``selected_formats``...)
and the modules named in ``OPEN_MODULES``.
"""
from __future__ import annotations

from ..errors import ApplyError, Problem
from ..ops import Operation
from ..record import field, record, replace
from . import (agent_blocks, agent_text, apply_patch, codechange, file_changes, lazy_snippet,
               search_replace, unified_diff, whole)
from .agent_text import ReadCall
from .scan import Block, Format, SnippetTest, scan_blocks

OPEN_MODULES = ("apply_patch", "scan", "search_blocks")

# The registry: every format, in the order they are asked at each line.  Their opening
# markers differ, so the order only matters for a line two formats could both claim.
FORMATS: list[Format] = [
    file_changes.FORMAT,
    apply_patch.FORMAT,
    codechange.FORMAT,
    agent_text.FORMAT,  # before search_replace: a tool's diff holds SEARCH/REPLACE blocks
    agent_blocks.FORMAT,  # SWE-agent's edit N:M, Mentat's @@start, Plandex's blocks
    search_replace.FORMAT,
    unified_diff.FORMAT,
    whole.FORMAT,
    lazy_snippet.FORMAT,  # after whole: with --format whole, whole reads every path + fence
]


def format_names(formats: "list[Format] | None" = None) -> list[str]:
    """Every name ``--format`` accepts (``formats``: selecting one of these), in registry
    order, each once (two format modules may answer to one name: agent-text)."""
    names: list[str] = []
    for f in FORMATS if formats is None else formats:
        for name in f.selected_by():
            if name not in names:
                names.append(name)
    return names


# Names accepted by --format (hashline is found by the file-changes format).
FORMAT_NAMES = format_names()


def edit_tell(text: str) -> str | None:
    """The first tell of a registered format (registry order, each format's in its
    order) that ``text`` holds, or None: a text holding one carries a change block."""
    for f in FORMATS:
        for tell in f.tells:
            if tell in text:
                return tell
    return None


def format_named(name: str) -> Format | None:
    """The registered format that ``--format NAME`` selects (None: no such format)."""
    return next((f for f in FORMATS if name in f.selected_by()), None)


@record
class ParsedResponse:
    """Every change block of a response as operations, plus the prose."""

    ops: list[Operation]
    blocks: list[Block]
    explanation: str  # the prose outside every change block
    formats: list[str]  # in order of first appearance
    descriptions: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the blocks left out on purpose


def selected_formats(only: str | None) -> list[Format]:
    """The formats to scan for: the one ``--format`` names, or every auto-detected one."""
    if only is None:
        return [f for f in FORMATS if not f.explicit_only]
    chosen = [f for f in FORMATS if only in f.selected_by()]
    if not chosen:
        raise ApplyError(f"unknown format {only!r}; known formats: {', '.join(format_names())}")
    return chosen


def parse_response(text: str, only: str | None = None, *, ends_whole: bool = False,
                   is_snippet: SnippetTest | None = None,
                   read_call: ReadCall | None = None) -> ParsedResponse:
    """Every change block of ``text`` (LF line endings) as operations, plus the prose.

    With ``only`` (``--format``), only that format is looked for.  ``ends_whole``: the
    text is known to end where its author stopped (a chat API's answer whose JSON says
    so), so a last line without a newline is whole, not cut mid-line.  ``is_snippet``:
    whether a tracked file's fenced text holds placeholders (the caller's rules): with
    it, a tracked file's lazy snippet after its path is read (lazy_snippet.py).
    ``read_call``: an agent's tool use written as text to operations (the caller's
    reading of tool calls): with it, such tool uses are read (agent_text.py)."""
    found = scan_blocks(text, selected_formats(only), ends_whole=ends_whole,
                        is_snippet=is_snippet, read_call=read_call)
    blocks = found.blocks
    if only == "hashline":
        blocks = [b for b in blocks if "hashline" in b.formats]
    ops: list[Operation] = []
    formats: list[str] = []
    descriptions: list[tuple[str, str]] = []
    for n, b in enumerate(blocks, 1):
        for op in b.ops:
            if op.source.block != n:  # a frozen record: an equal one need not be copied
                op.source = replace(op.source, block=n)
            ops.append(op)
        for f in b.formats:
            if f not in formats:
                formats.append(f)
        descriptions.extend(b.descriptions)
    spans = [(b.start, b.end) for b in found.blocks] + found.wrappers
    explanation = _outside(text, spans)
    return ParsedResponse(ops, blocks, explanation, formats, descriptions,
                          [note for b in blocks for note in b.notes])


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
    looked = [only] if only else format_names(
        [f for f in FORMATS if not f.explicit_only and not f.narrow])
    return Problem(
        "no file changes found",
        hint="looked for " + ", ".join(looked) + " blocks; answer with one of them "
             "(`git ai-apply prompt FORMAT` prints the instructions)",
    )
