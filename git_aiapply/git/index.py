"""The index: ``index.lock`` held from reading to installing, who holds a lock, entries
that carry the written file's stat data, and the index the commit hooks see."""
from __future__ import annotations

import errno
import os

import pygit2

from ..errors import ErrorKind, FatalError
from . import early_index
from .faults import fault, remove_file

TYPE_CHECKING = False  # `typing` stays off the start-up path
if TYPE_CHECKING:
    from typing import Protocol

    from pygit2 import Index as Index  # named here for the library's annotations

    class WarmIndex(Protocol):
        """A warm index kept between transactions (warm_index.IndexCache): Repo.index_cache."""

        def clear(self) -> None: ...
        def note_head(self, head: object) -> None: ...
        def left_head(self, head: object) -> None: ...
        def take(self, path: str) -> Index | None: ...
        def peek(self, path: str) -> Index | None: ...
        def give_back(self, path: str, index: Index) -> None: ...
        def keep(self, path: str, index: Index, staged: os.stat_result) -> None: ...

LOCK_MARKER = "git-ai-apply lock held by pid"


def read_index(path: str, maybe_sparse: bool = False, shown: str | None = None) -> pygit2.Index:
    """The index file at ``path`` (an empty index when there is none yet); an index
    libgit2 cannot read (split or sparse index, a newer format) is a fatal error.
    ``maybe_sparse``: index.sparse is set, so look for folder entries.  ``shown``: the
    index named in errors (``path`` may be our private copy of it)."""
    shown = shown or path
    if not os.path.exists(path):
        return pygit2.Index()
    import gc
    import sys

    # a failed Index() leaves a half-made object whose __del__ complains on stderr
    hook, sys.unraisablehook = sys.unraisablehook, lambda _unraisable: None
    try:
        try:
            index = pygit2.Index(path)
        except (pygit2.GitError, ValueError, OSError) as e:
            error = _unreadable(path, e, shown)
        else:
            error = None
        if error is not None:
            gc.collect()
    finally:
        sys.unraisablehook = hook
    if error is not None:
        raise FatalError(error, kind=ErrorKind.INDEX)
    if maybe_sparse and _is_sparse(index):
        raise FatalError(_SPARSE.format(shown), kind=ErrorKind.INDEX)
    return index


def _is_sparse(index: pygit2.Index) -> bool:
    """A sparse index holds folders as entries (mode 040000) in place of their files."""
    try:
        return any(int(e.mode) == 0o040000 for e in index)
    except (pygit2.GitError, ValueError):
        return False


_SPARSE = ("cannot read the index {}: it is a sparse index (index.sparse), which git "
           "ai-apply cannot read; run `git sparse-checkout set --no-sparse-index` (or "
           "`git sparse-checkout disable`) first")


def _unreadable(path: str, e: Exception, shown: str) -> str:
    gitdir = os.path.dirname(path)
    try:
        shared = any(n.startswith("sharedindex.") for n in os.listdir(gitdir))
    except OSError:
        shared = False
    if shared:
        return (f"cannot read the index {shown}: it is a split index (core.splitIndex), which "
                "git ai-apply cannot read; run `git update-index --no-split-index` first")
    if "'sdir'" in str(e):  # the mandatory extension of a sparse index
        return _SPARSE.format(shown)
    return f"cannot read the index {shown}: {e}"


def entry_with_stat(index: pygit2.Index, path: str, oid: pygit2.Oid, mode: int,
                    st: os.stat_result | None) -> None:
    """Add an index entry carrying the written file's stat data, so `git status` and
    `git diff-files` trust it without re-hashing (IndexEntry has no stat fields)."""
    from pygit2.errors import check_error
    from pygit2.ffi import C, ffi

    centry = ffi.new("git_index_entry *")
    ffi.buffer(ffi.addressof(centry, "id"))[:] = oid.raw
    centry.mode = mode
    if st is not None:
        centry.ctime.seconds = int(st.st_ctime) & 0x7FFFFFFF
        centry.ctime.nanoseconds = st.st_ctime_ns % 1_000_000_000
        centry.mtime.seconds = int(st.st_mtime) & 0x7FFFFFFF
        centry.mtime.nanoseconds = st.st_mtime_ns % 1_000_000_000
        centry.dev = st.st_dev & 0xFFFFFFFF
        centry.ino = st.st_ino & 0xFFFFFFFF
        centry.uid = st.st_uid & 0xFFFFFFFF
        centry.gid = st.st_gid & 0xFFFFFFFF
        centry.file_size = st.st_size & 0xFFFFFFFF
    cpath = ffi.new("char[]", path.encode("utf-8", "surrogateescape"))
    centry.path = cpath
    check_error(C.git_index_add(index._index, centry), io=True)


def remove_entry(index: pygit2.Index, path: str) -> None:
    """Remove ``path`` from ``index`` if it is there."""
    try:
        index.remove(path)
    except (KeyError, OSError, pygit2.GitError):
        pass


def set_entries(index: pygit2.Index, entries: dict, stats: dict | None = None) -> None:
    """Apply ``entries`` (path -> (mode, oid) or None to remove) to ``index``."""
    for path, ent in entries.items():
        if ent is None:
            remove_entry(index, path)
    for path, ent in entries.items():
        if ent is not None:
            oid = ent[1] if isinstance(ent[1], pygit2.Oid) else pygit2.Oid(hex=str(ent[1]))
            entry_with_stat(index, path, oid, int(ent[0]), (stats or {}).get(path))


def entries_hold(entries, final: dict) -> bool:
    """Whether ``entries`` (an Index or a Tree: ``entries[path]`` or KeyError) hold
    ``final`` (path -> [mode, hex id], or None: absent)."""
    for path, want in final.items():
        try:
            e = entries[path]
        except KeyError:
            e = None
        if want is None:
            if e is not None:
                return False
        elif e is None or str(e.id) != str(want[1]) \
                or int(e.mode if isinstance(e, pygit2.IndexEntry) else e.filemode) != int(want[0]):
            return False
    return True


def index_holds(index_path: str, final: dict) -> bool:
    """Whether the index file at ``index_path`` holds ``final`` (see entries_hold)."""
    try:
        idx = pygit2.Index(index_path)
    except (pygit2.GitError, OSError, ValueError):
        return False
    return entries_hold(idx, final)


def entries_of(index_path: str, paths) -> dict:
    """path -> [mode, hex id] of those of ``paths`` the index file at ``index_path`` holds
    (empty when there is no such file, or it cannot be read)."""
    if not os.path.exists(index_path):
        return {}
    try:
        idx = pygit2.Index(index_path)
    except (pygit2.GitError, OSError, ValueError):
        return {}
    out = {}
    for p in paths:
        try:
            e = idx[p]
        except (KeyError, ValueError):
            continue
        out[p] = [int(e.mode), str(e.id)]
    return out


def tree_of_index(repo: pygit2.Repository, index_path: str) -> pygit2.Oid:
    """The tree an index file holds (written to the object database)."""
    return pygit2.Index(index_path).write_tree(repo)


class IndexLock:
    """``index.lock`` held from reading the index to installing the new one.

    libgit2 writes an index only through its own ``<file>.lock``, so the index is read
    and written through a hard link with a private name; the written file then replaces
    our lock file, and finally the lock is renamed over the index, as git does."""

    def __init__(self, index_path: str, cache=None):
        self.path = index_path
        self.cache = cache  # warm_index.IndexCache: take / give back / keep a warm index
        self.lock_path = index_path + ".lock"
        self.work_path = f"{index_path}.ai-apply-{os.getpid()}"
        self.held = False
        self.installed = False
        self._ahead = None  # the thread reading the index ahead, and what it read
        self.maybe_sparse = False  # index.sparse is set (see read_index)
        self.shared_perm = 0  # core.sharedRepository (git/shared_repo.py)
        self._lent = False  # read() handed the index to the transaction (it may change it)
        self._staged = None  # the lock file's stat right after stage(), for the cache

    def acquire(self) -> None:
        """Take ``index.lock``, owner line included, in one step: the line is written to
        a private name first (``owner_path``) and hard-linked to the lock's name, which
        fails when the lock exists (as git's O_EXCL).  So no kill and no full disk leaves
        an empty ``index.lock`` that nobody can tell as ours."""
        owner = self.lock_path + f".ai-apply-{os.getpid()}"
        try:
            remove_file(owner)
            fd = os.open(owner, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
            try:
                # who holds the lock, for `recover` and for a clearer refusal; git never
                # reads a lock file's content, and stage() replaces it with the new index
                _write_fd(fd, f"{LOCK_MARKER} {os.getpid()}\n".encode())
            except BaseException:
                remove_file(owner)
                raise
        except OSError as e:
            raise FatalError(f"Unable to create '{self.lock_path}': {e.strerror}",
                             kind=ErrorKind.IO) from None
        try:
            fault("index-lock")  # the owner line written, the lock not yet taken
            self._link_lock(owner)
        finally:
            remove_file(owner)
        self.held = True

    def _link_lock(self, owner: str) -> None:
        try:
            os.link(owner, self.lock_path)
        except FileExistsError:
            raise self._held_elsewhere() from None
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS):
                raise FatalError(f"Unable to create '{self.lock_path}': {e.strerror}",
                                 kind=ErrorKind.LOCK) from None
            self._create_lock_in_place()  # no hard links here (FAT, some FUSE mounts)

    def _create_lock_in_place(self) -> None:
        try:
            fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            raise self._held_elsewhere() from None
        except OSError as e:
            raise FatalError(f"Unable to create '{self.lock_path}': {e.strerror}",
                             kind=ErrorKind.LOCK) from None
        try:
            _write_fd(fd, f"{LOCK_MARKER} {os.getpid()}\n".encode())
        except OSError as e:
            remove_file(self.lock_path)
            raise FatalError(f"Unable to create '{self.lock_path}': {e.strerror}",
                             kind=ErrorKind.IO) from None

    def _held_elsewhere(self) -> FatalError:
        owner = lock_owner(self.lock_path)
        if owner is not None and not pid_alive(owner):
            return FatalError(
                f"Unable to create '{self.lock_path}': File exists.\n\nIt was left by "
                f"an interrupted git ai-apply (pid {owner}): run `git ai-apply recover`.",
                kind=ErrorKind.LOCK)
        return FatalError(
            f"Unable to create '{self.lock_path}': File exists.\n\nAnother git process "
            "seems to be running in this repository (index.lock exists). If no other git "
            "process is running, remove the file and try again.", kind=ErrorKind.LOCK)

    def read_ahead(self) -> None:
        """Start reading the index in a thread.  libgit2 verifies the index's checksum on
        every read (about 30 ms for 100,000 entries; git skips it) and releases the GIL
        meanwhile, so the read overlaps the parsing and planning of the response.  Not
        when the warm index (a Session's, warm_index.IndexCache) is the file's content
        now: read() then takes it at once, and a thread would only cost its start and
        join (on a busy machine, a wait for the scheduler at each)."""
        if self.cache is not None and self.cache.peek(self.path) is not None:
            return
        import threading

        box: dict = {}

        def work():
            try:
                box["index"] = self._read()
            except BaseException as e:  # handed over by read()
                box["error"] = e

        thread = threading.Thread(target=work, name="ai-apply-index-read", daemon=True)
        self._ahead = (thread, box)
        thread.start()  # the caller holds Ctrl-C back (repo.interrupts_deferred)

    def _join_ahead(self) -> dict | None:
        if self._ahead is None:
            return None
        thread, box = self._ahead
        self._ahead = None
        if thread.ident is None:  # recorded but never started: read it here instead
            return None
        thread.join()
        return box

    def read(self) -> pygit2.Index:
        self._lent = True
        box = self._join_ahead()
        if box is not None:
            if "error" in box:
                raise box["error"]
            return box["index"]
        return self._read()

    def _read(self) -> pygit2.Index:
        early = early_index.take(self.path, self.work_path)
        if early is not None:  # read before the lock, and provably the index now
            if self.maybe_sparse and _is_sparse(early):
                raise FatalError(_SPARSE.format(self.path), kind=ErrorKind.INDEX)
            return early
        remove_file(self.work_path)
        if os.path.exists(self.path):
            try:
                os.link(self.path, self.work_path)
            except OSError:
                import shutil

                shutil.copyfile(self.path, self.work_path)
            if self.cache is not None:
                index = self.cache.take(self.path)
                if index is not None:
                    return index  # bound to work_path already (same process, same name)
            return read_index(self.work_path, self.maybe_sparse, shown=self.path)
        return pygit2.Index(self.work_path)

    def stage(self, index: pygit2.Index) -> None:
        """Write ``index`` into the lock file (not yet installed)."""
        index.write()
        os.replace(self.work_path, self.lock_path)
        if self.shared_perm:  # core.sharedRepository: the modes git gives its index
            from .shared_repo import adjust

            adjust(self.lock_path, self.shared_perm)
        if self.cache is not None:
            self._staged = (index, os.stat(self.lock_path))

    def install(self) -> None:
        os.replace(self.lock_path, self.path)
        self.installed = True
        self.held = False
        if self._staged is not None:
            # kept warm only when the installed file is the one written from memory (a
            # pre-commit hook may have re-staged files into it)
            index, staged = self._staged
            self._staged = None
            self.cache.keep(self.path, index, staged)

    def forget_staged(self) -> None:
        """The lock file is no longer the index stage() wrote (the hooks' index replaced
        it): nothing of it is kept warm."""
        self._staged = None

    def release(self) -> None:
        try:
            box = self._join_ahead()
            if self.cache is not None and box is not None and "index" in box \
                    and not self._lent:
                self.cache.give_back(self.path, box["index"])  # read ahead, never used
        finally:  # whatever the read ahead did, the lock and our files go
            remove_file(self.work_path)
            remove_file(self.work_path + ".lock")
            if self.held:
                remove_file(self.lock_path)
                self.held = False


def _write_fd(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``, then close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def stage_entries(index_path: str, entries: dict) -> None:
    """Set ``entries`` (path -> (mode, blob id) or None) in the index at ``index_path``
    under ``index.lock``, as git writes an index: all of them or, on any error, none."""
    lock = IndexLock(index_path)
    lock.acquire()
    try:
        index = lock.read()
        set_entries(index, entries)
        lock.stage(index)
        lock.install()
    finally:
        lock.release()


def lock_owner(lock_path: str) -> int | None:
    """The pid written into a lock file by IndexLock.acquire, or None (not ours)."""
    try:
        with open(lock_path, "rb") as f:
            head = f.read(len(LOCK_MARKER) + 24)
    except OSError:
        return None
    text = head.decode("ascii", "replace")
    if not text.startswith(LOCK_MARKER + " "):
        return None
    pid = text[len(LOCK_MARKER) + 1:].strip()
    return int(pid) if pid.isdigit() else None


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a running process that may be git ai-apply (a reused pid of
    another program counts as dead)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        return True  # no /proc: assume it is still ours
    return b"ai-apply" in cmd or b"git_aiapply" in cmd or b"ai_apply" in cmd


# --------------------------------------------------------------------------- the hooks' index


def hook_index_name(pid: int) -> str:
    """The name, in the git dir, of the index process ``pid`` gives its commit hooks."""
    return f"next-index-ai-apply-{pid}.lock"


class HookIndex:
    """The index the commit hooks see (``GIT_INDEX_FILE``), never the lock itself, so that
    a hook's ``git add`` (which writes a new file and renames it over the one it was
    given) leaves the lock as the journal describes it.  ``whole``: it is the new index
    (a hard link to the lock, or a copy where no hard link can be made), the usual case;
    otherwise (the index holds more than the commit: staged changes of other files) an
    index of the commit's tree only.  Named for this process in the git dir
    (``hook_index_name``; the journal names it for `recover`)."""

    def __init__(self, repo, lock: IndexLock, tree_id):
        self.path = os.path.join(repo.gitdir, hook_index_name(os.getpid()))
        remove_file(self.path)
        staged = pygit2.Index(lock.lock_path)
        self.whole = staged.write_tree(repo.repo) == tree_id
        if self.whole:
            try:
                os.link(lock.lock_path, self.path)
            except OSError:
                import shutil

                shutil.copyfile(lock.lock_path, self.path)
        else:
            tmp = pygit2.Index(self.path)
            tmp.read_tree(repo.repo[tree_id])
            tmp.write()
        self.start = _stamp(os.stat(self.path))

    def tree(self, repo):
        """The tree it holds now (a pre-commit hook may have re-staged files)."""
        return pygit2.Index(self.path).write_tree(repo.repo)

    def rewritten(self) -> bool:
        """Whether a hook wrote it since (a new file, or other bytes)."""
        try:
            return _stamp(os.stat(self.path)) != self.start
        except OSError:
            return False

    def next_index(self, repo, lock: IndexLock, tree_id, new_tree) -> str | None:
        """The file that is to become the new index after the hooks (None: the lock stays
        as it is): this index itself when it was the whole new index and a hook re-staged;
        else the new index with the hooks' changes of the commit's tree carried into it,
        written to a temporary file of this process."""
        if self.whole:
            return self.path if self.rewritten() else None
        if new_tree == tree_id:
            return None
        path = self.path + ".carry"
        remove_file(path)
        import shutil

        shutil.copyfile(lock.lock_path, path)
        real = pygit2.Index(path)
        for d in repo.repo[tree_id].diff_to_tree(repo.repo[new_tree]).deltas:
            if d.status == pygit2.enums.DeltaStatus.DELETED:
                remove_entry(real, d.old_file.path)
            else:
                entry_with_stat(real, d.new_file.path, d.new_file.id, int(d.new_file.mode),
                                None)
        real.write()
        return path


def _stamp(st: os.stat_result) -> tuple:
    """What tells one version of a file from another: which file, its size, when changed."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
