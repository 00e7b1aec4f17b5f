"""Three-way text merge of one file, through libgit2's ``git_merge_file_from_index`` (the
merge `git apply -3` and git's ll-merge make).  pygit2's wrapper decodes the result as
UTF-8 and fails on any other bytes, so the result is read here as bytes."""
from __future__ import annotations

from ..record import record


@record
class MergedFile:
    """The merged content, and whether libgit2 merged it without conflicts (when not, the
    content holds conflict markers and must never reach a commit)."""

    data: bytes
    clean: bool


def merge_file(repo, path: str, ancestor: tuple[int, bytes] | None,
               ours: tuple[int, bytes] | None, theirs: tuple[int, bytes] | None) -> MergedFile:
    """Merge ``theirs`` into ``ours`` with ``ancestor`` as their common base; each side is
    (mode, content) or None (absent).  The sides are written as blobs (unreachable objects,
    as `git apply -3` writes them; `git gc` prunes them)."""
    import pygit2
    from pygit2._libgit2 import ffi, lib

    r = repo.repo

    def entry(side):
        if side is None:
            return None
        mode, data = side
        return pygit2.IndexEntry(path, r.create_blob(data), mode)

    keep = [e._to_c() if e is not None else (ffi.NULL, ffi.NULL)
            for e in (entry(ancestor), entry(ours), entry(theirs))]
    result = ffi.new("git_merge_file_result *")
    err = lib.git_merge_file_from_index(result, r._repo, keep[0][0], keep[1][0], keep[2][0],
                                        ffi.NULL)
    if err < 0:
        from pygit2.errors import check_error

        check_error(err)
    try:
        data = bytes(ffi.buffer(result.ptr, result.len)) if result.ptr != ffi.NULL else b""
        return MergedFile(data, result.automergeable != 0)
    finally:
        lib.git_merge_file_result_free(result)


def commits_touching(repo, start, paths: list[str], depth: int) -> list[str]:
    """Up to ``depth`` commits of ``start``'s first-parent history (``start`` excluded,
    newest first) that changed any of ``paths``: where an answer written against an
    older version of those files may have started."""
    from .state import tree_entry

    r = repo.repo
    out: list[str] = []
    if start is None or not paths or depth <= 0:
        return out
    commit = r[start]
    # a bound on the walk too, so that a long history that never touched the files stays cheap
    for _step in range(depth * 20):
        if not commit.parents:
            if commit.id != start and any(tree_entry(commit.tree, p) is not None for p in paths):
                out.append(str(commit.id))
            break
        parent = commit.parents[0]
        if commit.id != start and any(
                tree_entry(commit.tree, p) != tree_entry(parent.tree, p) for p in paths):
            out.append(str(commit.id))
            if len(out) >= depth:
                break
        commit = parent
    return out


def renamed_since(repo, base_id: str, tree_id, paths: list[str]) -> dict[str, str]:
    """Where each of ``paths`` (files of commit ``base_id`` gone from tree ``tree_id``) is
    now, as git's rename detection finds it; paths it does not find are left out."""
    import pygit2

    r = repo.repo
    new_tree = r[tree_id] if tree_id is not None else None
    if new_tree is None or not paths:
        return {}
    diff = r[base_id].tree.diff_to_tree(new_tree)
    diff.find_similar(flags=pygit2.enums.DiffFind.FIND_RENAMES)
    wanted = set(paths)
    return {d.old_file.path: d.new_file.path for d in diff.deltas
            if d.status == pygit2.enums.DeltaStatus.RENAMED and d.old_file.path in wanted}


def unchanged_runs(old: bytes, new: bytes) -> list[tuple[int, int, int]]:
    """(old start, new start, length) of each run of lines git's diff (xdiff, no context)
    leaves unchanged between ``old`` and ``new``, 0-based: where a base's lines are now."""
    import pygit2

    runs, at_old, at_new = [], 0, 0
    for h in pygit2.Patch.create_from(old, new, context_lines=0).hunks:
        # a side with no lines names the line after which the change is
        old_begin = h.old_start - 1 if h.old_lines else h.old_start
        new_begin = h.new_start - 1 if h.new_lines else h.new_start
        runs.append((at_old, at_new, old_begin - at_old))
        at_old, at_new = old_begin + h.old_lines, new_begin + h.new_lines
    total = old.count(b"\n") + (0 if old.endswith(b"\n") or not old else 1)
    runs.append((at_old, at_new, total - at_old))
    return [r for r in runs if r[2] > 0]
