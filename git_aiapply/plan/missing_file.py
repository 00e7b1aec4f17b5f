"""What a refusal of an edit to a missing file suggests (plan.py): the tracked files it
probably meant (the same name in another folder, or a close spelling), else how the
response's format creates a file.  Only on the error path."""
from __future__ import annotations

from ..ops import Source


def _new_file_hint(format_name: str) -> str:
    """How the format ``format_name`` creates a file (its own words, formats/)."""
    from ..formats import format_named
    from ..locate.text_edits import TOOL_CALL, TOOL_CALL_NEW_FILE_HINT

    if format_name == TOOL_CALL:
        return TOOL_CALL_NEW_FILE_HINT

    fmt = format_named(format_name)
    return fmt.new_file_hint if fmt is not None and fmt.new_file_hint else "a new-file directive"


def missing_file_hint(base, path: str, source: Source) -> str:
    """What to do about an edit of a missing file: the tracked files it probably meant
    (same name elsewhere, or a close spelling), else how this format creates a file."""
    paths_under = getattr(base, "paths_under", None)  # a test's plain base has none
    tracked = paths_under("", _LOOKED_AT) if paths_under is not None else None
    similar = _similar_paths([p for p, kind in tracked or () if kind != "submodule"], path)
    create = _new_file_hint(source.format).replace("PATH", path)
    if similar:
        names = ", ".join(similar)
        return f"did you mean {names}? Use the path as git tracks it; to create {path}, use {create}"
    return f"check the path (relative to the repository root); to create the file, use {create}"


def namesakes(base, path: str, limit: int = 3) -> list[str]:
    """Tracked files with the file name of ``path`` in another folder."""
    paths_under = getattr(base, "paths_under", None)  # a test's plain base has none
    tracked = paths_under("", _LOOKED_AT) if paths_under is not None else None
    name = path.rsplit("/", 1)[-1]
    return sorted(p for p, kind in tracked or ()
                  if kind != "submodule" and p != path and p.rsplit("/", 1)[-1] == name)[:limit]


_LOOKED_AT = 200_000  # tracked paths an error message looks through at most


def _similar_paths(all_paths: list[str], path: str, limit: int = 3) -> list[str]:
    """Tracked files named like ``path``: the same file name in another folder first, then
    close spellings of the whole path.  Only on the error path."""
    if not all_paths:
        return []
    import difflib

    name = path.rsplit("/", 1)[-1]
    same_name = sorted(p for p in all_paths if p.rsplit("/", 1)[-1] == name and p != path)
    if same_name:
        return same_name[:limit]
    return difflib.get_close_matches(path, all_paths, n=limit, cutoff=0.75)
