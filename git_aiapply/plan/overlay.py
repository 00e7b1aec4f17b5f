"""A planning snapshot with the changes of earlier responses laid over it: ``--check`` and
``--diff`` over a series judge each response on top of the ones before it, as the real
run (one commit after the other) would apply it.  Pure."""
from __future__ import annotations

from .plan import MODE_LINK


class Overlay:
    """``base`` (a plan.Snapshot) as the states in ``changed`` (path -> FileState or None for
    removed) leave it."""

    def __init__(self, base, changed: dict):
        self._base = base
        self._changed = changed

    def entry(self, path: str):
        if path in self._changed:
            st = self._changed[path]
            return None if st is None else (st.mode, st.data)
        return self._base.entry(path)

    def kind(self, path: str) -> str | None:
        if path in self._changed:
            st = self._changed[path]
            if st is not None:
                return "symlink" if st.mode == MODE_LINK else "file"
        else:
            k = self._base.kind(path)
            if k is not None and k != "dir":
                return k
        prefix = path + "/"
        if any(p.startswith(prefix) and s is not None for p, s in self._changed.items()):
            return "dir"
        if path in self._changed:
            return None
        if self._base.kind(path) == "dir":
            # a folder stays one unless the earlier responses removed everything in it
            # (counting only the files the base holds: a path an earlier response made and
            # removed again empties nothing)
            removed = [p for p, s in self._changed.items() if p.startswith(prefix) and s is None
                       and self._base.kind(p) not in (None, "dir")]
            if not removed or not _emptied(self._base, path, removed):
                return "dir"
            return None
        return None

    def disk_kind(self, path: str) -> str | None:
        return self._base.disk_kind(path)

    def __getattr__(self, name):  # everything else (the tree, the worktree) as the base's
        return getattr(self._base, name)


def _emptied(base, folder: str, removed: list[str]) -> bool:
    """Whether removing ``removed`` (files of ``base``'s tree) empties ``folder`` of ``base``'s tree (the git layer's
    snapshot counts the tree's files: no pygit2 object here)."""
    files_under = getattr(base, "files_under", None)
    count = files_under(folder) if files_under is not None else None
    return count is not None and count <= len(removed)
