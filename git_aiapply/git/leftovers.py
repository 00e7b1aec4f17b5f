"""What a killed process leaves in the git dir that no name of ours marks as its own: the
loose objects libgit2 was writing (``objects/tmp_object_git2_*``, linked to their final
name and removed once whole) and the lock of the ref being moved (``<ref>.lock``).  They
carry no pid, so a file counts as left over only when no running process has it open
and it has not changed for a while (a writer keeps its file open until it is whole, then
renames or links it away at once).  Where open files cannot be listed (no ``/proc``),
nothing counts as left over: nothing is removed on a guess."""
from __future__ import annotations

import os
import time

OBJECT_TEMP_PREFIX = "tmp_object_git2_"  # libgit2's name for a loose object being written
QUIET_SECONDS = 1.0  # unchanged this long and open nowhere: its writer is gone


def open_by(paths) -> dict[str, list[tuple[int, str]]] | None:
    """path -> [(pid, command line)] of the running processes that have one of ``paths``
    open (real paths compared); None when that cannot be told (no ``/proc``)."""
    targets = {os.path.realpath(p): p for p in paths}
    out: dict[str, list[tuple[int, str]]] = {p: [] for p in paths}
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target in targets:
                out[targets[target]].append((int(pid), _command(pid)))
    return out


def with_environment(name: str, path: str) -> list[tuple[int, str]]:
    """(pid, command line) of the running processes whose environment sets ``name`` to
    the file ``path`` (compared as real paths; processes of this user only:
    /proc/PID/environ is readable to its owner), e.g. the commit hooks of a killed run,
    which outlive it and are given its hooks' index as ``GIT_INDEX_FILE``."""
    key = name.encode() + b"="
    want = os.path.realpath(path)
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        for item in env.split(b"\0"):
            if item.startswith(key) and os.path.realpath(os.fsdecode(item[len(key):])) == want:
                out.append((int(pid), _command(pid)))
                break
    return out


def _command(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:80]
    except OSError:
        return ""


def left_over(paths, now: float | None = None) -> list[str]:
    """Those of ``paths`` that no running process has open and that have not changed for
    QUIET_SECONDS (none when open files cannot be listed)."""
    now = time.time() if now is None else now
    quiet = []
    for p in paths:
        try:
            if now - os.lstat(p).st_mtime >= QUIET_SECONDS:
                quiet.append(p)
        except OSError:
            continue
    holders = open_by(quiet) if quiet else {}
    if holders is None:
        return []
    return sorted(p for p in quiet if not holders[p])


def object_temps(objects_dir: str) -> list[str]:
    """libgit2's temporary loose objects in ``objects_dir`` that are left over."""
    try:
        names = os.listdir(objects_dir)
    except OSError:
        return []
    return left_over([os.path.join(objects_dir, n) for n in names
                      if n.startswith(OBJECT_TEMP_PREFIX)])


def ref_lock(gitdir: str, commondir: str, refname: str | None) -> str | None:
    """The lock of the loose ref ``refname`` (``refs/heads/...``, or HEAD: the worktree's
    own) when it is left over, else None."""
    if not refname or not (refname == "HEAD" or refname.startswith("refs/heads/")):
        return None
    lock = os.path.join(gitdir if refname == "HEAD" else commondir, *refname.split("/")) + ".lock"
    return lock if os.path.lexists(lock) and left_over([lock]) else None
