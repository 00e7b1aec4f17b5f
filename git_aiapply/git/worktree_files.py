"""One worktree file written or put back safely: a new file never over an existing one
(O_EXCL) and never through a link (O_NOFOLLOW), short writes continued, exact permission
bits restored.  Used by the transaction's WorktreeWriter and by `recover`."""
from __future__ import annotations

import errno
import os
import stat

from ..plan.plan import MODE_EXEC, MODE_LINK, FileState
from .faults import fault, remove_file
from .journal import temp_name


def open_new(full: str, mode: int) -> int:
    """A file descriptor of a new file at ``full``: never over an existing file (O_EXCL),
    never through a link (O_NOFOLLOW)."""
    perm = 0o777 if mode == MODE_EXEC else 0o666
    return os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, perm)


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` (short writes continued), then close it."""
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)


# errors of link() on a file system without hard links
NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS}


def perm_of(full: str) -> int | None:
    """The permission bits of the regular file at ``full`` (None: a link, or nothing)."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def restore_file(workdir: str, path: str, st: FileState, perm: int | None = None,
                 pid: int | None = None) -> None:
    """Put ``st`` (bytes exactly as they were on disk) back at ``path``, with the
    permission bits ``perm`` when known (else as git would make the file).  The temporary
    is named for ``pid`` (default this process): `recover` gives the interrupted run's, so
    that a recover killed here leaves a name the next one looks for."""
    full = os.path.join(workdir, path)
    tmp = os.path.join(workdir, temp_name(path, os.getpid() if pid is None else pid, "restore"))
    remove_file(tmp)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    try:
        if st.mode == MODE_LINK:
            os.symlink(os.fsdecode(st.data), tmp)
        else:
            with open(tmp, "wb") as f:
                f.write(st.data)
            if perm is None or bool(perm & 0o100) != (st.mode == MODE_EXEC):
                perm = git_perm(st.mode == MODE_EXEC)
            os.chmod(tmp, perm)
        fault("restore-temp")  # written, not yet renamed into place (the crash tests)
        os.replace(tmp, full)
    except BaseException:
        remove_file(tmp)
        raise


def git_perm(executable: bool) -> int:
    """The permission bits git gives a file it writes: 0777 or 0666 less the umask."""
    return (0o777 if executable else 0o666) & ~_umask()


_UMASK = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0)
        os.umask(_UMASK)
    return _UMASK
