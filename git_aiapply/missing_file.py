"""What a refusal of an edit to a missing file suggests (plan.py): the tracked files it
probably meant (the same name in another folder, or a close spelling), else how the
response's format creates a file.  Only on the error path."""
from __future__ import annotations

from .ops import Source


def _new_file_hint(format_name: str) -> str:
    """How the format ``format_name`` creates a file (its own words, formats/)."""
    from .formats import format_named
    from .text_edits import TOOL_CALL, TOOL_CALL_NEW_FILE_HINT

    if format_name == TOOL_CALL:
        return TOOL_CALL_NEW_FILE_HINT

    fmt = format_named(format_name)
    return fmt.new_file_hint if fmt is not None and fmt.new_file_hint else "a new-file directive"


def missing_file_hint(base, path: str, source: Source) -> str:
    """What to do about an edit of a missing file: the tracked files it probably meant
    (same name elsewhere, or a close spelling), else how this format creates a file."""
    similar = _similar_paths(getattr(base, "tree", None), path)
    create = _new_file_hint(source.format).replace("PATH", path)
    if similar:
        names = ", ".join(similar)
        return f"did you mean {names}? Use the path as git tracks it; to create {path}, use {create}"
    return f"check the path (relative to the repository root); to create the file, use {create}"


def _similar_paths(tree, path: str, limit: int = 3, budget: int = 200_000) -> list[str]:
    """Tracked files named like ``path``: the same file name in another folder first, then
    close spellings of the whole path.  Only on the error path; at most ``budget`` entries
    are looked at."""
    if tree is None:
        return []
    import difflib

    name = path.rsplit("/", 1)[-1]
    all_paths: list[str] = []
    stack = [(tree, "")]
    while stack and len(all_paths) < budget:
        t, prefix = stack.pop()
        for e in t:
            full = prefix + e.name
            if e.type_str == "tree":
                stack.append((e, full + "/"))
            elif e.type_str == "blob":
                all_paths.append(full)
    same_name = sorted(p for p in all_paths if p.rsplit("/", 1)[-1] == name and p != path)
    if same_name:
        return same_name[:limit]
    return difflib.get_close_matches(path, all_paths, n=limit, cutoff=0.75)
