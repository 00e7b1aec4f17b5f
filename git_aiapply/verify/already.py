"""Whether the files still hold what a response did (BEHAVIOR.md §8 "already applied").

A commit carrying the response's ``AI-Response`` trailer says the response was applied
once; it is still applied only while the files hold its result: after a revert, or when
that commit took only some of its edits (``--include``, ``-p``), the response applies
again.  So every edit of the response is looked for in the files it would apply to; an
edit whose result is shown missing makes the trailer no proof.

Only what can be shown is used: an edit of a kind whose result cannot be read back from
the files (a hashline edit, a tool call's insert) never counts as missing, so the trailer
keeps deciding for it (applying such an edit twice would not fail, it would double it).
A hunk that only removes lines leaves nothing of its own to find (its new side is
context that was there before), so a revert of such hunks alone is not seen.
"""
from __future__ import annotations

from collections.abc import Callable

from ..locate.matching import LineIndex
from ..ops import DeleteFile, EditFile, NewFile, Operation, RenameFile
from ..text import FileText

# what placing an edit may have tolerated: whitespace around, typographic punctuation
_LOOSE = 3  # the loosest matching tier (matching.norm_line)


def missing_edit(ops: list[Operation], entry: Callable[[str], tuple[int, bytes] | None],
                 normalize: Callable[[str], str]) -> str | None:
    """The first edit of ``ops`` whose result the files do not hold, in words (for the
    note), or None when none is shown missing.  ``entry(path)`` gives a file's (mode,
    bytes) as the response would find it, or None; ``normalize`` makes a response's path
    a repository path.  A path that several operations touch is not judged: a later one
    may have changed what an earlier one wrote."""
    touched = _touch_counts(ops, normalize)
    for op in ops:
        if any(touched.get(normalize(p), 0) > 1 for p in (getattr(op, "path", None),
                                                         getattr(op, "new_path", None)) if p):
            continue
        missing = _missing_result(op, entry, normalize)
        if missing is not None:
            return missing
    return None


def _touch_counts(ops: list[Operation], normalize: Callable[[str], str]) -> dict[str, int]:
    """How many times the operations name each repository path (as a path, a rename's
    source or its target)."""
    touched: dict[str, int] = {}
    for op in ops:
        for raw in (getattr(op, "path", None), getattr(op, "old_path", None),
                    getattr(op, "new_path", None)):
            if raw:
                touched[normalize(raw)] = touched.get(normalize(raw), 0) + 1
    return touched


def _missing_result(op: Operation, entry: Callable[[str], tuple[int, bytes] | None],
                    normalize: Callable[[str], str]) -> str | None:
    """What of one operation's result the files do not hold, in words, or None."""
    if isinstance(op, (EditFile, NewFile)):
        path = normalize(op.path)
        found = entry(path)
        if found is None:
            return f"{path} does not exist"
        if isinstance(op, EditFile):
            return _missing_hunk(op, path, found[1])
    elif isinstance(op, DeleteFile) and entry(normalize(op.path)) is not None:
        return f"{normalize(op.path)} still exists"
    elif isinstance(op, RenameFile) and entry(normalize(op.new_path)) is None:
        return f"{normalize(op.new_path)} does not exist"
    return None


def _missing_hunk(op: EditFile, path: str, data: bytes) -> str | None:
    """The first hunk of ``op`` whose new side ``data`` does not hold (tolerating what
    placing it may have tolerated), in words, or None."""
    # one index of the file for all its hunks, as locating builds it
    index = LineIndex(FileText.from_bytes(data).lines, [t for h in op.hunks for t in h.new])
    for h in op.hunks:
        # a block read several ways (h.readings) may have applied another one
        if h.new and not h.readings and not index.fits(h.new, _LOOSE):
            return f"{path} does not hold edit {h.number}"
    return None
