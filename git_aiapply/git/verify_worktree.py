"""The temporary worktree of ``--branch --verify`` (githooks.verify_in_worktree): where it
lives and how it goes away, also after a kill.

It lives in the common git dir as ``ai-apply-verify-PID`` (inside the repository, never in
the system's temporary folder), registered by ``git worktree add`` under
``worktrees/ai-apply-verify-PID*``.  Removing one removes its folder and exactly its own
registration: never ``git worktree prune``, which would also drop a user's worktree whose
folder is missing for now (an unmounted drive).  A kill leaves both; ``recover`` and the
next --verify run remove those of dead processes (``stale``)."""
from __future__ import annotations

import os
import re
import shutil

_NAME = re.compile(r"^ai-apply-verify-(\d+)$")


def path_for(commondir: str, pid: int) -> str:
    return os.path.join(commondir, f"ai-apply-verify-{pid}")


def stale(commondir: str) -> list[str]:
    """The temporary worktrees of ai-apply processes that are gone, with a folder or only
    a registration left."""
    from .index import pid_alive

    names = _listdir(commondir)  # folders left
    admin = os.path.join(commondir, "worktrees")
    here = os.path.realpath(commondir)
    for n in _listdir(admin):  # registrations left, whose folder may be gone
        target = _registered_path(os.path.join(admin, n))
        if target and os.path.dirname(target) == here:
            names.append(os.path.basename(target))
    pids = {int(m.group(1)) for m in map(_NAME.match, names) if m}
    return sorted(path_for(commondir, pid) for pid in pids if not pid_alive(pid))


def _listdir(d: str) -> list[str]:
    try:
        return os.listdir(d)
    except OSError:
        return []


def remove(commondir: str, path: str) -> None:
    """Remove the temporary worktree at ``path``: its folder and its registration."""
    shutil.rmtree(path, ignore_errors=True)
    admin = os.path.join(commondir, "worktrees")
    names = _listdir(admin)
    if not names:
        return
    real = os.path.realpath(path)
    for n in names:
        if _registered_path(os.path.join(admin, n)) == real:
            shutil.rmtree(os.path.join(admin, n), ignore_errors=True)
    try:
        os.rmdir(admin)  # as git leaves it when the last linked worktree goes
    except OSError:
        pass


def _registered_path(admin_dir: str) -> str | None:
    """The worktree folder (real path) a ``worktrees/NAME`` registration names (its
    ``gitdir`` file holds ``FOLDER/.git``), or None."""
    try:
        with open(os.path.join(admin_dir, "gitdir")) as f:
            gitfile = f.read().strip()
    except OSError:
        return None
    if not gitfile:
        return None
    if not os.path.isabs(gitfile):  # worktree.useRelativePaths (git 2.48)
        gitfile = os.path.join(admin_dir, gitfile)
    return os.path.dirname(os.path.realpath(gitfile))
