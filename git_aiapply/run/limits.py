"""git apply's path options over a response's operations, after parsing: ``-p N`` (remove
N leading components), ``--directory DIR`` (prepend DIR), ``--include`` / ``--exclude``
PATTERN (the first pattern that matches a path decides; with any --include, a path no
pattern matches is left out).  Pure: the paths are still the response's, not yet checked
(paths.normalize_path does that afterwards, whatever these options made of them)."""
from __future__ import annotations

import re
from fnmatch import fnmatchcase

from ..errors import ApplyError, Problem
from ..ops import DeleteFile, RenameFile
from ..record import replace


def reroot(path: str, strip: int | None, directory: str | None, source, side: int = 1) -> str:
    """``path`` with ``strip`` leading components removed and ``directory`` prepended.
    As in git apply, a git diff's a/ b/ prefix (already taken off) is the first of them:
    ``-p 0`` puts it back (``side``: 0 for the old name, 1 for the new)."""
    given = strip
    if strip == 0 and source.git_prefix:
        path = f"{source.prefixes[side]}/{path}"
    if strip and source.git_prefix:
        strip -= 1
    if strip:
        parts = path.split("/")
        if len(parts) <= strip:
            raise ApplyError(Problem(
                f"cannot remove {given} leading path component{'s' if given != 1 else ''} "
                f"from {('a/' if source.git_prefix else '') + path!r} (-p {given}): it has only "
                f"{len(parts) + (1 if source.git_prefix else 0)}",
                file=path, directive=source.directive, response_line=source.line or None))
        path = "/".join(parts[strip:])
    if directory:
        path = directory.strip("/") + "/" + path if directory.strip("/") else path
    return path


def directory_problem(directory: str | None) -> str | None:
    """Why ``--directory`` cannot be used, or None.  git apply makes every path under an
    absolute or climbing folder an "invalid path" and applies nothing; refused here before
    the response is read (what it would have touched is outside the worktree)."""
    if not directory:
        return None
    if directory.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[\\/]", directory):
        why = "an absolute folder"
    elif ".." in directory.replace("\\", "/").split("/"):
        why = "it climbs out of the worktree ('..')"
    else:
        return None
    return (f"--directory {directory!r}: invalid path: {why}; git apply refuses every path "
            f"under it (error: invalid path '{directory.rstrip('/')}/FILE'). Give a folder "
            "relative to the top of the worktree")


def included(path: str, limits) -> bool:
    """git apply's use_patch: the first --include/--exclude whose pattern matches decides
    (patterns as git's wildmatch without flags: ``*`` crosses ``/``); otherwise a path is
    used unless some --include was given."""
    for kind, pattern in limits:
        if fnmatchcase(path, pattern):
            return kind == "include"
    return not any(kind == "include" for kind, _ in limits)


def limit_ops(ops: list, strip: int | None, directory: str | None, limits) -> list:
    """The operations with their paths re-rooted, without those left out by ``limits``
    (judged on the path after the change: a rename's new path)."""
    out = []
    for op in ops:
        if isinstance(op, RenameFile):
            op = replace(op, old_path=reroot(op.old_path, strip, directory, op.source, 0),
                         new_path=reroot(op.new_path, strip, directory, op.source))
            path = op.new_path
        else:
            side = 0 if isinstance(op, DeleteFile) else 1  # a deletion has only its old name
            op = replace(op, path=reroot(op.path, strip, directory, op.source, side))
            path = op.path
        if included(path, limits):
            out.append(op)
    return out
