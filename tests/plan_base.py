"""The planner as a plain function over a dict-backed base (no repository): the helpers the
planner's tests share, in every stage's folder (``from plan_base import DictBase, fc, plan``)."""
from __future__ import annotations

from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_LINK, make_plan


class DictBase:
    """Tracked files as {path: (mode, bytes)}, submodules as mode 0o160000, untracked
    files on disk as a set."""

    def __init__(self, files: dict, untracked: set | None = None):
        self.files = files
        self.untracked = untracked or set()

    def entry(self, path):
        v = self.files.get(path)
        if v is None or v[0] == 0o160000:
            return None
        return v

    def kind(self, path):
        v = self.files.get(path)
        if v is not None:
            return {MODE_LINK: "symlink", 0o160000: "submodule"}.get(v[0], "file")
        if any(p.startswith(path + "/") for p in self.files):
            return "dir"
        return None

    def disk_kind(self, path):
        return "file" if path in self.untracked else None


def plan(text: str, files: dict, untracked=None):
    parsed = parse_response(text)
    return make_plan(parsed.ops, DictBase(files, untracked), lambda p: normalize_path(p, worktree="/w"))


def fc(*directives: str) -> str:
    return "<FILE_CHANGES>\n" + "\n".join(directives) + "\n</FILE_CHANGES>\n"
