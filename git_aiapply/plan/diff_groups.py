"""The operations of one git diff apply together, as `git apply` applies them
(BEHAVIOR.md §5): its renames read their sources as the diff found them (a swap
a -> b, b -> a exchanges the files), and a file it deletes or renames away may become a
folder (x -> x/y), whichever section comes first.  The planner (plan.py) asks these
questions of the operation list; docs/DECISIONS.md has the details."""
from __future__ import annotations

from ..errors import ApplyError, Problem
from ..ops import DeleteFile, Operation, RenameFile


def diff_key(op: Operation) -> int | None:
    """Which git diff ``op`` belongs to (its response block), or None."""
    return op.source.block if op.source.format == "unified-diff" else None


def leaving_paths(ops: list[Operation], normalize):
    """The files each git diff deletes or renames away (diff -> paths), so that a path of
    the same diff may put a folder there; and where each path is a rename's source
    (path -> [(operation index, its diff or None)]), so that a rename in order over a
    file that a later rename moves away can be refused."""
    leaving: dict[int, set[str]] = {}
    renamed_away: dict[str, list[tuple[int, int | None]]] = {}
    for i, op in enumerate(ops):
        if not isinstance(op, (DeleteFile, RenameFile)):
            continue
        key = diff_key(op)
        try:
            path = normalize(op.path if isinstance(op, DeleteFile) else op.old_path)
        except ApplyError:
            continue  # refused where the operation runs
        if key is not None:
            leaving.setdefault(key, set()).add(path)
        if isinstance(op, RenameFile):
            renamed_away.setdefault(path, []).append((i, key))
    return leaving, renamed_away


def files_under_files(final: dict) -> list[Problem]:
    """A final file under a path that is also a final file (a diff that deletes x,
    writes x/y and writes x again): refused, nothing can hold both."""
    problems = []
    for p, st in final.items():
        cut = p.find("/") if st is not None else -1
        while cut >= 0:
            if final.get(p[:cut]) is not None:
                problems.append(Problem(f"cannot create {p}: {p[:cut]} is a file", file=p))
                break
            cut = p.find("/", cut + 1)
    return problems
