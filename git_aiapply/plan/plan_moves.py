"""What the planner (plan.py) checks before a deletion or a rename: that a diff's deletion
lists the file's content, what a rename moves, and whether its target may take it.  A
part of the planner kept in its own module by concept; it works on the planner's state."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Problem
from ..text import FileText, is_binary

if TYPE_CHECKING:
    from ..ops import DeleteFile, Source


class MoveChecks:
    """The checks of deletions and renames, for ``plan._Planner``."""

    def deletion_matches(self, op: DeleteFile, path: str, st) -> bool:
        """A diff's deletion removes exactly the file's content (as `git apply` checks);
        a binary file cannot be written as '-' lines, so its deletion is not checked."""
        if is_binary(st.data):
            return True
        from ..locate.matching import whole_content_difference

        ft = FileText.from_bytes(st.data)
        why = whole_content_difference(ft, op.old_lines)
        if why is None:
            return True
        lines = ft.lines
        self.problems.append(Problem(
            f"the diff deletes {path}, but its removed lines are not the file's content: {why}",
            file=path, directive=op.source.directive,
            nearby=[(i + 1, lines[i]) for i in range(min(len(lines), 8))],
            nearby_label="the file begins",
            hint="a deletion must list every line of the file with '-' (or use a directive "
                 "that deletes by name); check that this is the file you mean"))
        return False

    def rename_source(self, src: str, source: Source) -> object | None:
        """What a rename moves: the file as the running git diff found it (when the diff
        wrote it already), else as it is now; None (problem recorded) when not a file."""
        if src in self.diff_before:
            st = self.diff_before[src]
            if st is None:
                self.fail(source, src, f"cannot rename {src}: no such file (this diff creates it, "
                          "and a rename reads the file as the diff found it, as `git apply`)")
            return st
        k, st = self.current(src)
        if st is None:
            what = {"dir": "it is a folder", "submodule": "it is a submodule"}.get(k or "", "no such file")
            self.fail(source, src, f"cannot rename {src}: {what}")
        return st

    def rename_target_ok(self, src: str, dst: str, source: Source) -> bool:
        dk = self.kind(dst)
        if dk == "dir" and self.emptied_folder(dst):
            return True  # every file of the folder is gone: a file may take its place, as git
        if dk in ("dir", "submodule"):
            self.fail(source, dst, f"cannot rename {src} to {dst}: {dst} is a "
                                   + ("folder" if dk == "dir" else "submodule"))
            return False
        if dk is None and dst not in self.overlay and self.on_disk(dst):
            self.fail(source, dst, f"cannot rename {src} to {dst}: {dst} exists but is "
                                   "not tracked by git")
            return False
        if dk in ("file", "symlink") and any(i > self.index and (key is None or key != self.diff_key)
                                             for i, key in self.renamed_away.get(dst, ())):
            # a swap written as renames in order (a -> b, b -> a) would lose b's content
            self.fail(source, dst, f"cannot rename {src} to {dst}: {dst} exists and a later "
                                   f"rename moves {dst} away; renames apply in order, so its "
                                   "content would be lost",
                      hint="to exchange files, rename one to a new name first, or send one "
                           "git diff with all the renames (they apply together, as git apply)")
            return False
        return True


def net_moves(base: dict, final: dict, renames: list, changes: list,
              change_type) -> tuple[list, list]:
    """The plan's renames and changes as its net change (before -> after), not as the
    steps the response took: renames in a chain are one (a -> b, b -> c is a -> c), and a
    path moved away and back (a -> c, c -> a), as a path deleted and created again, is
    no rename of a file onto itself but what it is from the first state to the last: an
    update (or nothing); every other change too is an add, a delete or an update by the
    path's first and last states.  ``base``/``final``: path -> FileState or None;
    ``change_type``: plan.FileChange (plan.py imports this module)."""
    origin: dict[str, str] = {}  # where each path renamed to came from, first
    for src, dst in renames:
        origin[dst] = origin.pop(src, src)
    net = [(old, new) for new, old in origin.items()  # from a file of the base, to one kept
           if old != new and base.get(old) is not None and final.get(new) is not None]
    kept = {new: old for old, new in net}
    out = [c for c in (_net_change(c, base, final, kept, change_type) for c in changes)
           if c is not None]
    # a file renamed away to a path the result does not hold (renamed, then deleted) is
    # deleted: its change went with the rename
    told = {c.path for c in out} | set(kept.values())
    for old in dict.fromkeys(origin.values()):
        if base.get(old) is not None and final.get(old) is None and old not in told:
            out.append(change_type(old, "delete", None, 0, _lines(base[old].data)))
    return net, out


def _net_change(c, base: dict, final: dict, kept: dict, change_type):
    """Change ``c`` as its path's first and last states say (None: no change)."""
    if c.action == "mode" or (c.action == "rename" and kept.get(c.path) == c.old_path):
        return c
    before, after = base.get(c.path), final.get(c.path)
    if before is None and after is None:
        return None  # made and removed again
    action = "add" if before is None else ("delete" if after is None else "update")
    if action == c.action and c.old_path is None:
        return c
    return change_type(c.path, action, None, c.added, c.removed)


def _lines(data: bytes | None) -> int:
    return 0 if data is None or is_binary(data) else len(FileText.from_bytes(data))
