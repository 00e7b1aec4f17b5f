"""One worktree file written or put back safely: a new file never over an existing one
(O_EXCL) and never through a link (O_NOFOLLOW), short writes continued, exact permission
bits restored; and the transaction's WorktreeWriter, which writes a run's files and
puts back what it wrote.  Used by the transaction (transaction.py) and by `recover`."""
from __future__ import annotations

import errno
import os
import stat

from ..errors import ApplyError, Problem
from ..plan.plan import MODE_EXEC, MODE_LINK, FileState
from ..record import record
from .faults import fault, remove_file
from .journal import backup_dir, backup_name, temp_name
TYPE_CHECKING = False  # `typing` stays off the start-up path
if TYPE_CHECKING:
    from .repo import Repo

from .state import blob_id, read_disk, read_disk_here, refuse_symlinked_parent


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


# --------------------------------------------------------------------------- the writer


@record
class _Saved:
    """A worktree path as it was before the writer touched it."""

    path: str
    state: FileState | None  # what was on disk before we touched it
    perm: int | None = None  # its permission bits (0o600 stays 0o600 on rollback)
    backup: str | None = None  # a hard link to the very file, in the git dir (see _backup)


class WorktreeWriter:
    """Writes files through a temporary file and a rename, converted as ``git checkout``
    writes them (eol, smudge filters), never through a symlinked folder; remembers what
    it replaced so that everything can be put back."""

    def __init__(self, repo: Repo):
        self.repo = repo
        self.workdir = repo.workdir
        self.backup_dir = backup_dir(repo.gitdir, os.getpid())
        self.saved: list[_Saved] = []
        self.made_dirs: list[str] = []
        self.stats: dict[str, os.stat_result] = {}
        # path -> what this run left there (a FileState: the bytes on disk; None: it
        # removed the file): a rollback puts back only a file that still holds it
        self.wrote: dict[str, FileState | None] = {}

    def _full(self, path: str) -> str:
        return os.path.join(self.workdir, path)

    def disk_bytes(self, path: str, st: FileState) -> bytes:
        """What ``git checkout`` would put on disk for ``st`` at ``path``."""
        if st.mode == MODE_LINK:
            return st.data
        from .filters import filters_of

        return filters_of(self.repo).to_worktree(path, st.data)

    def _makedirs(self, path: str) -> None:
        parent = os.path.dirname(self._full(path))
        missing = []
        while parent and not os.path.isdir(parent):
            missing.append(parent)
            parent = os.path.dirname(parent)
        for d in reversed(missing):
            os.mkdir(d)
            self.made_dirs.append(d)

    def write(self, path: str, st: FileState, data: bytes | None = None) -> None:
        """Write ``st`` (blob content) at ``path``; ``data``: the bytes for disk when
        already converted.  Always through a temporary file (``temp_name``: short, so any
        file name fits), so that a kill never leaves a half file under the final name."""
        refuse_symlinked_parent(self.workdir, path)
        if data is None:
            data = self.disk_bytes(path, st)
        full = self._full(path)
        before = read_disk_here(self.workdir, path)
        if before is None:
            return self._create(path, st, data, full)
        self.saved.append(_Saved(path, before, perm_of(full), self._backup(path, full)))
        self._makedirs(path)
        refuse_symlinked_parent(self.workdir, path)  # a folder swapped meanwhile
        tmp = self._temp(path, st, data)
        try:
            if os.path.isdir(full) and not os.path.islink(full):
                raise ApplyError(f"cannot write {path}: a folder is in the way")
            os.replace(tmp, full)
        except BaseException:
            remove_file(tmp)
            raise
        self.wrote[path] = FileState(st.mode, data)
        self.stats[path] = os.lstat(full)

    def _backup(self, path: str, full: str) -> str | None:
        """A hard link to the file at ``full`` in the git dir (``backup_dir``), so that a
        rollback puts back the very file (bytes, mode, owner) by a rename, which needs no
        free space; None where no hard link can be made (another file system, no hard
        links), and the rollback then rewrites the file from its saved bytes."""
        name = os.path.join(self.backup_dir, backup_name(path))
        try:
            try:
                os.link(full, name, follow_symlinks=False)
            except FileNotFoundError:  # the folder, made at the first backup
                os.makedirs(self.backup_dir, exist_ok=True)
                os.link(full, name, follow_symlinks=False)
        except OSError:
            return None
        return name

    def drop_backups(self) -> None:
        """Remove the backups (the run is complete, or rolled back): the ones made by
        name, then the folder; anything else found in it goes too."""
        for s in self.saved:
            if s.backup is not None:
                try:
                    os.unlink(s.backup)
                except OSError:
                    pass  # already gone (put back by a rollback), or the rmtree below
        try:
            os.rmdir(self.backup_dir)
        except FileNotFoundError:
            pass  # no backup was made
        except OSError:
            import shutil

            shutil.rmtree(self.backup_dir, ignore_errors=True)

    def _temp(self, path: str, st: FileState, data: bytes) -> str:
        """A temporary file (or link) next to ``path`` holding ``data``; its name."""
        tmp = os.path.join(self.workdir, temp_name(path, os.getpid(), "tmp"))
        remove_file(tmp)
        if st.mode == MODE_LINK:
            os.symlink(os.fsdecode(data), tmp)
        else:
            fd = open_new(tmp, st.mode)
            try:
                write_all(fd, data)
            except BaseException:
                remove_file(tmp)
                raise
        fault("worktree-temp")
        return tmp

    def _create(self, path: str, st: FileState, data: bytes, full: str) -> None:
        """A new file (nothing at ``path``): written to a temporary file, then hard-linked
        to its name, which fails when anything is there (a file that appeared since, a
        link: never followed, never replaced), then the temporary name is removed.  Where
        the file system has no hard links, created in place with O_EXCL|O_NOFOLLOW."""
        self._makedirs(path)
        refuse_symlinked_parent(self.workdir, path)  # a folder swapped meanwhile
        tmp = self._temp(path, st, data)
        try:
            os.link(tmp, full, follow_symlinks=False)
        except FileExistsError:
            remove_file(tmp)
            if os.path.isdir(full) and not os.path.islink(full):
                # a folder the response empties of tracked files, still holding others
                raise ApplyError(Problem(
                    f"cannot write {path}: the folder {path} is in the way; it still holds "
                    "files that git does not track", file=path,
                    hint=f"move the untracked files out of {path}/ first")) from None
            raise appeared(path) from None
        except OSError as e:
            remove_file(tmp)
            if e.errno not in NO_HARD_LINKS:
                raise
            return self._create_in_place(path, st, data, full)
        except BaseException:
            remove_file(tmp)
            raise
        self.saved.append(_Saved(path, None))  # ours from here: rollback removes it
        self.wrote[path] = FileState(st.mode, data)
        remove_file(tmp)
        self.stats[path] = os.lstat(full)  # after the unlink: the link count is in ctime

    def _create_in_place(self, path: str, st: FileState, data: bytes, full: str) -> None:
        """``_create`` on a file system without hard links (FAT, some FUSE mounts): a
        kill while writing may leave a half file here, which `recover` then explains."""
        try:
            if st.mode == MODE_LINK:
                os.symlink(os.fsdecode(data), full)  # whole at once, never over anything
                self.saved.append(_Saved(path, None))
                self.wrote[path] = FileState(st.mode, data)
                self.stats[path] = os.lstat(full)
                return
            fd = open_new(full, st.mode)
        except FileExistsError:
            raise appeared(path) from None
        self.saved.append(_Saved(path, None))
        write_all(fd, data)
        self.wrote[path] = FileState(st.mode, data)
        self.stats[path] = os.lstat(full)

    def delete(self, path: str) -> None:
        refuse_symlinked_parent(self.workdir, path)
        full = self._full(path)
        before = read_disk(self.workdir, path)
        if before is None:
            self.saved.append(_Saved(path, None))
        else:
            backup = self._backup(path, full)
            self.saved.append(_Saved(path, before, perm_of(full), backup))
            os.unlink(full)
        self.wrote[path] = None
        # git removes folders that the deletion left empty
        d = os.path.dirname(full)
        while d and os.path.normpath(d) != os.path.normpath(self.workdir):
            try:
                os.rmdir(d)
            except OSError:
                break
            self.saved.append(_Saved(os.path.relpath(d, self.workdir), FileState(-1, b"")))
            d = os.path.dirname(d)

    def still_ours(self, path: str, hooked=None) -> bool:
        """Whether ``path`` still holds what this run left there (state.holds_run_state:
        the bytes written, or nothing where it removed the file), or what ``hooked``
        (path -> [mode, blob id]: what the run's pre-commit hook staged) names."""
        from .state import holds_run_state

        wrote = self.wrote[path]
        mark = None if wrote is None else [wrote.mode, blob_id(wrote.data)]
        return holds_run_state(self.repo, path, read_disk(self.workdir, path), on_disk=[mark],
                               blobs=[(hooked or {}).get(path)])

    def rollback(self, hooked=None) -> tuple[list[str], list[str]]:
        """Put back everything written that still holds what this run wrote (``still_ours``;
        ``hooked`` as there); returns the paths it could not restore, and those it left
        alone because someone changed them during the run (a user's edit is never
        overwritten)."""
        failed, kept = [], []
        for s in reversed(self.saved):
            full = self._full(s.path)
            folder = s.state is not None and s.state.mode == -1  # one the deletions emptied
            if not folder and s.path in self.wrote and not self.still_ours(s.path, hooked):
                kept.append(s.path)
                continue
            try:
                self._put_back(s, full)
            except OSError:
                failed.append(s.path)
        for d in reversed(self.made_dirs):
            try:
                os.rmdir(d)
            except OSError:
                pass
        return failed, sorted(kept)

    def _put_back(self, s: _Saved, full: str) -> None:
        if s.state is not None and s.state.mode == -1:  # a folder we removed
            os.makedirs(full, exist_ok=True)
        elif s.state is None:
            if os.path.lexists(full):
                os.unlink(full)
        else:
            if full in self.made_dirs and os.path.isdir(full) and not os.path.islink(full):
                os.rmdir(full)  # a file replaced by a folder (x -> x/y): x again
            if s.backup is not None and os.path.lexists(s.backup):
                os.replace(s.backup, full)  # the very file, kept as a hard link
            else:
                restore_file(self.workdir, s.path, s.state, s.perm)


def appeared(path: str) -> ApplyError:
    return ApplyError(Problem(f"{path} appeared on disk while the response was being applied; "
                              "ai-apply never overwrites an untracked file", file=path,
                              hint="move it away and run the command again"))
