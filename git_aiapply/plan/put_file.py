"""What the planner (plan.py) checks before it puts a file's whole new state at a path
(ops.PutFile: ``-3``'s merge of an answer applied at its base, threeway/drift.py): the
same questions every write asks of what stands there now.  A part of the planner kept in
its own module by concept; it works on the planner's state."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..text import is_binary, line_count

if TYPE_CHECKING:
    from ..ops import PutFile

MODE_FILE = 0o100644
MODE_EXEC = 0o100755


class PutChecks:
    """The put of a computed file state, for ``plan._Planner``; and what stands in the
    way of any whole file written at a path (``in_the_way``, for creations too)."""

    def put(self, op: PutFile) -> None:
        """``op``'s state at its path, through the planner's checks: the path itself and
        its folders (``open``: outside the tree, `.git`, a link, a file or a submodule on
        the way), then what stands at the path now (``put_refusal``)."""
        path = self.open(op.path, op.source)
        if path is None:
            return
        k, old = self.current(path)
        refusal = self.put_refusal(path, k, old, op.mode)
        if refusal is not None:
            reason, hint = refusal
            return self.fail(op.source, path, reason, hint=hint)
        new = self.state(op.mode, op.data)
        if old == new:
            return
        self.set(path, new)
        if old is None:
            self.record(path, "add", added=0 if is_binary(op.data) else line_count(op.data))
        elif old.data != op.data:
            self.record(path, "update")  # counted as git counts them (pipeline.net_changes)
        else:
            self.record(path, "mode")

    def in_the_way(self, verb: str, path: str, k: str | None,
                   old: FileState | None) -> tuple[str, str | None] | None:
        """(reason, hint) when what stands at ``path`` keeps a file from being written
        there (a folder that keeps files, a submodule, an untracked file), else None."""
        if k == "dir" and not self.emptied_folder(path):
            return f"cannot {verb} {path}: it is a folder", None
        if k == "submodule":
            return f"cannot {verb} {path}: it is a submodule", None
        if old is None and path not in self.overlay and k != "dir" and self.on_disk(path):
            return (f"{path} exists but is not tracked by git; ai-apply never overwrites an "
                    "untracked file", "move it away or `git add` it first")
        return None

    def put_refusal(self, path: str, k: str | None, old, mode: int) -> tuple[str, str | None] | None:
        """(reason, hint) when a computed state cannot go to ``path`` (``k``, ``old``: what
        is there now), else None: a folder that keeps files, a submodule, an untracked
        file, a symbolic link (never written through or over), a mode git cannot hold."""
        standing = self.in_the_way("write", path, k, old)
        if standing is not None:
            return standing
        if k == "symlink" or mode not in (MODE_FILE, MODE_EXEC):
            what = "it is a symbolic link" if k == "symlink" else f"unsupported mode {mode:o}"
            return f"cannot write {path}: {what}", None
        return None
