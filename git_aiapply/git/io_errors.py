"""Disk and repository errors while writing (a full disk, a read-only file system or
object store, an I/O error), worded as git words them: ``fatal:``, the real cause, exit
128.  libgit2 sometimes hides the cause ("object not found" after a failed object write);
then a probe write into the folders the run writes to finds it."""
from __future__ import annotations

import errno
import os

from ..errors import ErrorKind, FatalError
from .faults import remove_file


def io_error(what: str, exc: BaseException, dirs=()) -> FatalError:
    """A disk or repository error (full disk, read-only file system, I/O error) as git
    words it: fatal, naming the cause and the file; nothing was changed."""
    return FatalError(f"cannot write the {what}: {write_cause(exc, dirs)}; nothing was changed",
                      kind=ErrorKind.IO)


def probe_dirs(repo) -> list[str]:
    """Where libgit2 writes for a run: the object store, the git dir.  (The worktree is
    written by os calls, whose errors name their cause.)"""
    return [os.path.join(repo.commondir, "objects"), repo.gitdir]


def write_cause(exc: BaseException, dirs=()) -> str:
    """``exc`` in words; when libgit2's words hide the cause ("object not found", "no
    error" after a failed write), the cause found by writing into ``dirs``."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f" ({exc.filename})" if exc.filename else "")
    text = str(exc)
    if any(known in text for known in (os.strerror(errno.ENOSPC), os.strerror(errno.EROFS))):
        return text
    found = _probe_for_cause(dirs)
    return f"{found} (libgit2 said: {text})" if found else text


def _probe_for_cause(dirs) -> str | None:
    """Why writing into one of ``dirs`` fails (a read-only mount, no space left), found by
    writing a probe file there and removing it; None when writing works."""
    for d in dirs:
        try:
            if os.statvfs(d).f_flag & os.ST_RDONLY:
                return f"{os.strerror(errno.EROFS)} ({d})"
        except OSError:
            continue
        probe = os.path.join(d, f".ai-apply-{os.getpid()}.probe")
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                for _ in range(16):  # 1 MiB, in the error path only
                    os.write(fd, bytes(65536))
            finally:
                os.close(fd)
        except OSError as e:
            return f"{e.strerror} ({d})"
        finally:
            remove_file(probe)
    return None
