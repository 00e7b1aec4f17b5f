"""Three-way merge of one file as `git apply -3` makes it: git's ll-merge, which honours
the file's ``merge`` attribute (gitattributes(5)): the text merge (libgit2's
``git_merge_file_from_index``, git's xdiff merge), ``merge=union``, ``merge=binary`` and
``-merge`` (never merged: a change on both sides is a conflict), and a custom driver
(``merge.<name>.driver``), run as git runs it.  Nothing is written to the repository:
the three sides are read by libgit2 from an object database in memory (so ``--check -3``
works in a read-only repository and leaves no object behind).  pygit2's wrapper decodes
the result as UTF-8 and fails on any other bytes, so the result is read here as bytes."""
from __future__ import annotations

from functools import cache

from ..record import record

MARKER_SIZE = 7  # conflict markers, as git writes them unless conflict-marker-size says


@record
class MergedFile:
    """The merged content, and whether it merged without conflicts (when not, the content
    holds conflict markers, or is ours, and must never reach a commit); ``note``: why a
    conflict has no regions to show (the merge attribute, a binary file, a driver)."""

    data: bytes
    clean: bool
    note: str | None = None


Side = tuple[int, bytes]


def merge_file(repo, path: str, ancestor: Side, ours: Side, theirs: Side, *,
               commit: str | None = None) -> MergedFile:
    """Merge ``theirs`` into ``ours`` with ``ancestor`` as their common base; each side is
    (mode, content).  The driver is the one git's ll-merge picks for ``path``: its
    ``merge`` attribute, read from the worktree and the index as `git apply -3` reads it
    (``commit``: from that commit's tree instead, for --branch), else ``merge.default``."""
    from ..text import is_binary

    attr = _attr(repo, path, "merge", commit)
    name = ("text" if attr is True else "binary" if attr is False else
            attr if isinstance(attr, str) else repo.config_get("merge.default") or "text")
    said = ("`-merge` in .gitattributes" if attr is False else
            f"`merge={attr}` in .gitattributes" if isinstance(attr, str) else
            f"merge.default = {name}")
    command = repo.config_get(f"merge.{name}.driver")
    if command:  # a user's driver comes first, even under a built-in name (as git)
        return _run_driver(repo, path, name, command, ancestor, ours, theirs,
                           _attr(repo, path, "conflict-marker-size", commit))
    if name == "binary":
        return MergedFile(ours[1], False, f"{said} keeps it from being merged line by line")
    if any(is_binary(side[1]) for side in (ancestor, ours, theirs)):
        return MergedFile(ours[1], False, "it is a binary file, which is not merged line by line")
    return _xdiff_merge(path, ancestor, ours, theirs, union=name == "union")


def _attr(repo, path: str, name: str, commit: str | None):
    """The attribute ``name`` of ``path`` (None when unspecified or unreadable)."""
    try:
        if commit is None:
            return repo.repo.get_attr(path, name)
        from pygit2.enums import AttrCheck

        return repo.repo.get_attr(path, name, flags=AttrCheck.INDEX_ONLY
                                  | AttrCheck.INCLUDE_COMMIT, commit=commit)
    except Exception:  # an unreadable attributes file: git ignores it too
        return None


def _xdiff_merge(path: str, ancestor: Side, ours: Side, theirs: Side, *,
                 union: bool) -> MergedFile:
    """libgit2's merge of the three sides, read from an object database in memory."""
    import pygit2
    from pygit2._libgit2 import ffi, lib

    sides = (ancestor, ours, theirs)
    blobs = {str(pygit2.hash(data)): data for _mode, data in sides}
    odb = pygit2.Odb()
    odb.add_backend(_blob_class()(blobs), 1)
    scratch = pygit2.Repository()  # no folder: nothing of it is ever written
    scratch.set_odb(odb)
    keep = [pygit2.IndexEntry(path, pygit2.hash(data), mode)._to_c() for mode, data in sides]
    opts = ffi.new("git_merge_file_options *")
    opts.version = 1
    opts.favor = 3 if union else 0  # GIT_MERGE_FILE_FAVOR_UNION / _NORMAL
    result = ffi.new("git_merge_file_result *")
    err = lib.git_merge_file_from_index(result, scratch._repo, keep[0][0], keep[1][0],
                                        keep[2][0], opts)
    if err < 0:
        from pygit2.errors import check_error

        check_error(err)
    try:
        data = bytes(ffi.buffer(result.ptr, result.len)) if result.ptr != ffi.NULL else b""
        return MergedFile(data, result.automergeable != 0)
    finally:
        lib.git_merge_file_result_free(result)


@cache
def _blob_class():
    """The object database backend that serves the three sides from memory (made on first
    use: pygit2 is loaded lazily)."""
    import pygit2
    from pygit2.enums import ObjectType

    class Blobs(pygit2.OdbBackend):
        def __init__(self, blobs: dict[str, bytes]):
            super().__init__()
            self.blobs = blobs

        def read_cb(self, oid):
            return ObjectType.BLOB, self.blobs[str(oid)]

        def read_header_cb(self, oid):
            return ObjectType.BLOB, len(self.blobs[str(oid)])

        def exists_cb(self, oid):
            return str(oid) in self.blobs

        def refresh_cb(self):
            pass
    return Blobs


def _run_driver(repo, path: str, name: str, command: str, ancestor: Side, ours: Side,
                theirs: Side, marker_size) -> MergedFile:
    """A custom merge driver, as git's ll-merge runs it: the three sides in temporary
    files (%O ancestor, %A ours, %B theirs; %L the conflict marker size, %P the path,
    %S %X %Y their labels), the command through the shell, the result read back from %A;
    a non-zero exit is a conflict.  The files live outside the repository."""
    import os
    import re
    import shlex
    import subprocess
    import tempfile

    size = marker_size if isinstance(marker_size, str) and marker_size.isdigit() else str(MARKER_SIZE)
    with tempfile.TemporaryDirectory(prefix="ai-apply-merge-") as folder:
        files = {}
        for key, (_mode, data) in zip("OAB", (ancestor, ours, theirs)):
            files[key] = os.path.join(folder, f".merge_file_{key}")
            with open(files[key], "wb") as f:
                f.write(data)
        values = {"O": files["O"], "A": files["A"], "B": files["B"], "L": size, "P": path,
                  "S": "base", "X": "ours", "Y": "theirs"}
        line = re.sub(r"%(.)", lambda m: "%" if m.group(1) == "%" else
                      shlex.quote(values[m.group(1)]) if m.group(1) in values else m.group(0),
                      command)
        try:
            p = subprocess.run(["sh", "-c", line], cwd=repo.workdir or repo.gitdir,
                               stdin=subprocess.DEVNULL, capture_output=True)
        except OSError as e:
            return MergedFile(ours[1], False, f"its merge driver {name} (merge.{name}.driver) "
                                              f"could not run: {e.strerror}")
        try:
            with open(files["A"], "rb") as f:
                data = f.read()
        except OSError as e:
            return MergedFile(ours[1], False, f"its merge driver {name} (merge.{name}.driver) "
                                              f"left no result: {e.strerror}")
    if p.returncode == 0:
        return MergedFile(data, True)
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    return MergedFile(data, False, f"its merge driver {name} (merge.{name}.driver) exited with "
                                   f"status {p.returncode}" + (f": {err[-1]}" if err else ""))


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


def line_hunks(old: bytes, new: bytes) -> list[tuple[int, int, tuple[bytes, ...],
                                                        tuple[bytes, ...]]]:
    """Each hunk of git's diff (xdiff, no context) from ``old`` to ``new``: (new start,
    new length, as git's ``@@`` header gives them, the lines removed, the lines added)."""
    import pygit2

    return [(h.new_start, h.new_lines,
             tuple(ln.raw_content for ln in h.lines if ln.origin == "-"),
             tuple(ln.raw_content for ln in h.lines if ln.origin == "+"))
            for h in pygit2.Patch.create_from(old, new, context_lines=0).hunks]


def removed_in(repo, start, base_id: str, path: str, depth: int = 1000) -> str | None:
    """``commit <id> (<subject>)`` for the newest commit of ``start``'s first-parent history
    down to ``base_id`` whose tree no longer holds ``path`` where its parent's did (the
    commit that deleted it, moved it, or put a folder or a submodule there); None when
    the walk finds none within ``depth`` commits."""
    from .state import tree_entry

    def holds(tree) -> bool:  # a file (or a link) at ``path``, not a folder or a submodule
        e = tree_entry(tree, path)
        return e is not None and e[0] not in (0o040000, 0o160000)

    if start is None:
        return None
    commit = repo.repo[start]
    for _step in range(depth):
        if str(commit.id) == base_id or not commit.parents:
            return None
        parent = commit.parents[0]
        if not holds(commit.tree) and holds(parent.tree):
            subject = commit.message.split("\n", 1)[0].strip()
            return f"commit {str(commit.id)[:12]}" + (f" ({subject})" if subject else "")
        commit = parent
    return None
