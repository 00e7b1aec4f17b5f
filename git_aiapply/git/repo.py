"""The repository as git finds it, its config (``git -c`` settings first), and the history
search for an already-applied response.  (The identity ``git commit`` would use is
git/ident.py's; dates, dates.py's.)"""
from __future__ import annotations

import os
import re
import sys

import pygit2

from ..errors import ApplyError, ErrorKind, FatalError, UsageError
from ..message.trailers import AI_PATHS, AI_RESPONSE, trailer_values
from .config import canonical_key, command_line_settings, parse_bool, parse_int
from .gitfile import gitfile_target
from .promisor import fetch_lazily

TYPE_CHECKING = False  # `typing` stays off the start-up path
if TYPE_CHECKING:
    from pygit2 import Repository as Repository  # named here for the library's annotations

    from .index import WarmIndex

_ABSENT = object()
GitError = pygit2.GitError  # for callers that catch the library's errors by type


class _Repository(pygit2.Repository):
    """pygit2's Repository, with the reference name of a lookup interned: pygit2 1.21's
    ``lookup_reference`` keeps a reference to the name it is given, so each lookup with a
    freshly built name (``repo.head()`` does three a call) leaked it: 66 bytes a request
    in a long-lived server.  An interned name leaks one reference to one string, however
    many lookups (``references[...]``, ``.get`` and ``in`` come through here too).

    Every object the tool writes comes through here (``create_blob``, ``write``,
    ``create_commit_with_signature``, a TreeBuilder's ``write``), and is given the modes
    of ``core.sharedRepository`` (``shared_perm``, set by Repo when it reads the config;
    git/shared_repo.py)."""

    shared_perm = 0  # git's PERM_UMASK: the umask decides
    objects_dir = ""

    def lookup_reference(self, name):
        return super().lookup_reference(sys.intern(name) if type(name) is str else name)

    def TreeBuilder(self, *args):  # noqa: N802 (pygit2's name)
        return _InterningTreeBuilder(super().TreeBuilder(*args), self)

    def create_blob(self, data):
        return self.shared_object(super().create_blob(data))

    def write(self, type, data):  # noqa: A002 (pygit2's name)
        return self.shared_object(super().write(type, data))

    def create_commit_with_signature(self, content, signature, *args):
        return self.shared_object(super().create_commit_with_signature(content, signature, *args))

    def shared_object(self, oid):
        """``oid``'s loose file and its fan-out folder given the shared modes."""
        if self.shared_perm and self.objects_dir:
            from .shared_repo import adjust

            h = str(oid)
            adjust(os.path.join(self.objects_dir, h[:2]), self.shared_perm)
            adjust(os.path.join(self.objects_dir, h[:2], h[2:]), self.shared_perm)
        return oid


class _InterningTreeBuilder:
    """A pygit2 TreeBuilder whose ``get`` and ``remove`` intern the name: pygit2 1.21
    keeps a reference to it, as for lookup_reference above; the tree it writes is given
    the shared modes (_Repository.shared_object)."""

    def __init__(self, builder, repo):
        self._builder = builder
        self._repo = repo

    def write(self):
        return self._repo.shared_object(self._builder.write())

    def get(self, name):
        return self._builder.get(sys.intern(name))

    def remove(self, name):
        return self._builder.remove(sys.intern(name))

    def __getattr__(self, attr):
        return getattr(self._builder, attr)

    def __len__(self):
        return len(self._builder)


def _open(path: str, shown: str) -> pygit2.Repository:
    from pygit2.enums import RepositoryOpenFlag

    try:
        return _Repository(path, RepositoryOpenFlag.NO_SEARCH)
    except (pygit2.GitError, KeyError, ValueError) as e:
        owned = _NOT_OWNED.search(str(e))
        if owned and _safe_by_command_line(owned.group(1)):
            return _open_unvalidated(path, RepositoryOpenFlag.NO_SEARCH)
        raise _unopenable(path, e) or FatalError(f"not a git repository: '{shown}'",
                                                 kind=ErrorKind.REPOSITORY) from None


def _safe_by_command_line(where: str) -> bool:
    """``git -c safe.directory=...`` naming ``where`` (or ``*``): git honours it from the
    command line too, libgit2 only from the config files."""
    value = command_line_settings().get("safe.directory")
    if not value:
        return False
    value = value.rstrip("/")
    return value == "*" or os.path.normpath(value) == os.path.normpath(where)


def _open_unvalidated(path: str, flags) -> pygit2.Repository:
    from pygit2.enums import Option

    pygit2.option(Option.SET_OWNER_VALIDATION, False)
    try:
        return _Repository(path, flags)
    finally:
        pygit2.option(Option.SET_OWNER_VALIDATION, True)


_NOT_OWNED = re.compile(r"repository path '(.*)' is not owned by current user")


def _unopenable(gitdir: str, error: Exception) -> FatalError | None:
    """git's own reason for a repository libgit2 will not open, where git has one: a
    folder another user owns (git's ownership check, in git's words), or an object format
    this build cannot read.  None: it is not a repository."""
    owned = _NOT_OWNED.search(str(error))
    if owned:
        where = owned.group(1)
        return FatalError(f"detected dubious ownership in repository at '{where}'\n"
                          "To add an exception for this directory, call:\n\n"
                          f"\tgit config --global --add safe.directory {where}",
                          kind=ErrorKind.REPOSITORY)
    if _object_format(gitdir) not in ("", "sha1"):
        return FatalError(f"{_object_format(gitdir).upper().replace('SHA', 'SHA-')} "
                          f"repositories are not supported (extensions.objectFormat in "
                          f"{os.path.normpath(gitdir)}); git ai-apply reads SHA-1 "
                          "repositories only",
                          kind=ErrorKind.REPOSITORY)
    return None


def _object_format(gitdir: str) -> str:
    """``extensions.objectFormat`` of the repository at ``gitdir`` ("" when unset or
    unreadable), read without libgit2's repository checks."""
    try:
        value = pygit2.Config(os.path.join(gitdir, "config"))["extensions.objectformat"]
    except (KeyError, ValueError, pygit2.GitError, OSError):
        return ""
    return str(value).strip().lower()


class Repo:
    """A repository found as git finds it from a folder (``GIT_DIR``, ``GIT_WORK_TREE``,
    ``core.worktree``, gitfiles of ``--separate-git-dir`` and linked worktrees, running
    from a subfolder); ``workdir`` is None for a bare repository."""

    def __init__(self, start: str = "."):
        self.overrides = command_line_settings()
        self._config_snapshot = None
        self._config_kept: tuple = (None, None)  # (config_files.config_stamp, settings)
        self.recent_history = None  # recent_history.RecentHistory, made at first use
        self._aligned = False  # libgit2's system and user files replaced (_read_config)
        env = os.environ
        start = os.path.abspath(start)
        git_dir = env.get("GIT_DIR")
        if git_dir:
            gitdir = gitfile_target(os.path.abspath(git_dir))
            self.repo = _open(gitdir, git_dir)
        else:
            across = env.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in TRUE_WORDS
            ceilings = env.get("GIT_CEILING_DIRECTORIES") or None
            try:
                found = pygit2.discover_repository(start, across, ceilings) if ceilings \
                    else pygit2.discover_repository(start, across)
            except (pygit2.GitError, KeyError, ValueError):
                found = None
            if found is None:
                raise FatalError("not a git repository (or any of the parent directories): .git",
                                 kind=ErrorKind.REPOSITORY)
            try:
                # opened from the start folder, libgit2 finds the worktree of a gitfile
                # (--separate-git-dir, linked worktrees) and core.worktree
                self.repo = _Repository(start)
            except (pygit2.GitError, KeyError, ValueError):
                self.repo = _open(found, found)
            if os.path.normpath(self.repo.path) != os.path.normpath(found):
                self.repo = _open(found, found)
        self.gitdir = os.path.normpath(self.repo.path)
        # a warm index kept between transactions by a long-lived caller (serve, the
        # library: git_aiapply.doors.warm_index.IndexCache); None re-reads the index every time
        self.index_cache: WarmIndex | None = None
        self.commondir = self._common_dir()
        self.inside_gitdir = False  # found from inside the git dir: no worktree, as git
        self.workdir = self._worktree(git_dir, start)
        if self.workdir is not None and os.path.normpath(self.repo.workdir or "") != self.workdir:
            self.repo.workdir = self.workdir
        _use_object_directories(self.repo)
        fetch_lazily(self.repo, self._config())

    def _worktree(self, git_dir: str | None, start: str) -> str | None:
        """git's rule: GIT_WORK_TREE, else core.worktree (relative to the git dir; not in a
        linked worktree), else
        none when bare, else the current folder when GIT_DIR is set, else none when the
        command runs inside the git dir (git finds it as a bare repository then, where
        libgit2 would give the folder above), else the folder that holds ``.git``."""
        env_tree = os.environ.get("GIT_WORK_TREE")
        if env_tree:
            return os.path.normpath(os.path.abspath(env_tree))
        # core.worktree (and core.bare) are the main worktree's: git reads them only where
        # the git dir is its own common dir, never in a linked worktree
        linked = self.gitdir != self.commondir
        configured = None if linked else self.config_get("core.worktree")
        if configured:
            return os.path.normpath(os.path.join(self.gitdir, os.path.expanduser(configured)))
        # a linked worktree of a bare repository: the common config's core.bare is the
        # main repository's, not this worktree's (git ignores it there too)
        if not linked and self.config_bool("core.bare", False):
            return None
        if git_dir:
            return os.path.normpath(os.getcwd())
        if self.repo.is_bare:
            return None
        real_start, real_gitdir = os.path.realpath(start), os.path.realpath(self.gitdir)
        if real_start == real_gitdir or real_start.startswith(real_gitdir.rstrip("/") + "/"):
            self.inside_gitdir = True
            return None
        wd = self.repo.workdir
        return os.path.normpath(wd) if wd else None

    def require_worktree(self, bare: str) -> None:
        """Refuse a command that writes the worktree when there is none: ``bare`` says
        so for a bare repository (a usage error: --branch works there); from inside the
        git dir it is git's own fatal error."""
        if self.workdir is not None:
            return
        self.refuse_inside_gitdir()
        raise UsageError(bare)

    def refuse_inside_gitdir(self) -> None:
        """git's fatal error when the command runs inside the git dir (no worktree)."""
        if self.inside_gitdir:
            raise FatalError(f"this operation must be run in a work tree (the current folder "
                             f"is inside the git directory {self.gitdir}); run it from the "
                             "worktree", kind=ErrorKind.REPOSITORY)

    def _common_dir(self) -> str:
        p = os.path.join(self.gitdir, "commondir")
        try:
            with open(p) as f:
                rel = f.read().strip()
        except OSError:
            return self.gitdir
        return os.path.normpath(os.path.join(self.gitdir, rel))

    # -- HEAD ------------------------------------------------------------------------
    def head(self) -> tuple[str | None, str | None]:
        """(branch ref name or None when detached, commit id as hex or None when unborn).
        A branch that is itself a symbolic ref is followed to the ref it names, as git
        does, so that a commit moves the real branch.  Plain values: callers outside git/
        compare and show them, and give them back to the git layer as they are.  A HEAD
        that names no readable commit is fatal (tip_commit)."""
        ref = self.repo.lookup_reference("HEAD")
        if ref.type != pygit2.enums.ReferenceType.SYMBOLIC:
            return None, str(self.tip_commit(ref.target, "HEAD").id)
        name = ref.target
        for _ in range(5):  # git's symref depth limit
            try:
                target = self.repo.lookup_reference(name)
            except (KeyError, pygit2.GitError, ValueError):
                return name, None
            if target.type != pygit2.enums.ReferenceType.SYMBOLIC:
                return name, str(self.tip_commit(target.target, "HEAD").id)
            name = target.target
        raise FatalError(f"HEAD: too many levels of symbolic refs at {name}", kind=ErrorKind.STATE)

    def tip_commit(self, oid, name: str, peel: bool = False) -> pygit2.Commit:
        """The one guard on what HEAD, a branch or a base names: the commit ``oid``, whose
        tree can be read; a broken repository is fatal in git's words, never an internal
        error (a missing object: ``bad object NAME``; a tree or a blob: ``expected commit
        type``; the commit's tree gone: ``bad tree object NAME``).  ``peel``: a tag is
        followed to its commit, as a revision is."""
        r = self.repo
        try:
            obj = r[oid]
            if peel and obj.type == pygit2.enums.ObjectType.TAG:
                obj = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            raise FatalError(f"bad object {name} ({oid})", kind=ErrorKind.REPOSITORY) from None
        if obj.type != pygit2.enums.ObjectType.COMMIT:
            raise FatalError(f"{name}: expected commit type, but the object dereferences to "
                             f"{obj.type_str} type ({oid})", kind=ErrorKind.REPOSITORY)
        try:
            obj.tree  # noqa: B018 (read: a commit whose tree is gone)
        except (KeyError, ValueError, pygit2.GitError):
            raise FatalError(f"bad tree object {name} ({obj.tree_id})",
                             kind=ErrorKind.REPOSITORY) from None
        return obj

    def resolve_commit(self, rev: str) -> pygit2.Commit:
        """The commit ``rev`` names: UsageError when it names nothing, fatal when what
        it names is broken (tip_commit)."""
        try:
            obj = self.repo.revparse_single(rev)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            broken = self._broken_ref_target(rev)
            if broken is not None:  # a branch or tag that names a missing object
                self.tip_commit(broken, rev)
            raise UsageError(f"unknown revision {rev!r}") from None
        if obj.type not in (pygit2.enums.ObjectType.COMMIT, pygit2.enums.ObjectType.TAG):
            if self._broken_ref_target(rev) is not None:  # a branch naming a tree: broken
                self.tip_commit(obj.id, rev)
            # a tree or a blob named: not a commit (git: "object X is a tree, not a commit")
            raise UsageError(f"{rev!r} names a {obj.type_str}, not a commit")
        return self.tip_commit(obj.id, rev, peel=True)

    def _broken_ref_target(self, rev: str):
        """What ``rev`` names when it is a ref's name (as git's dwim finds it), else None."""
        try:
            target = self.repo.lookup_reference_dwim(rev).resolve().target
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None
        return target if isinstance(target, pygit2.Oid) else None

    def branch_commit(self, refname: str):
        """The commit ``refname`` points at, or None when there is no such ref; fatal
        when it names no readable commit (tip_commit)."""
        tip = self.ref_target(refname)
        return None if tip is None else self.tip_commit(tip, refname, peel=True)

    def ref_target(self, refname: str):
        """The id ``refname`` points at (symbolic refs followed), or None when there is
        no such ref; fatal when it names no readable commit (tip_commit)."""
        try:
            ref = self.repo.lookup_reference(refname).resolve()
        except (KeyError, ValueError, pygit2.GitError):
            return None
        target = ref.target
        if not isinstance(target, pygit2.Oid):
            return None
        self.tip_commit(target, refname, peel=True)
        return target

    # -- config ------------------------------------------------------------------------
    def _raw(self, key: str):
        """A setting's value: ``git -c`` first (None: given without a value), then the
        config files; _ABSENT when unset."""
        canon = canonical_key(key)
        if canon in self.overrides:
            return self.overrides[canon]
        try:
            return self._config()[key]
        except (KeyError, pygit2.GitError, ValueError):
            return _ABSENT

    def _config(self):
        """The config files as they were at the first read of this run: git reads them
        once when it starts, and reading them once spares libgit2's check of every config
        file on disk at each read (a run reads some thirty settings).  A long-lived caller
        (serve, the library) calls forget_config() before each request."""
        snapshot = self._config_snapshot
        if snapshot is None:
            from .config_files import stamp_holds

            stamp, kept = self._config_kept
            # the files unchanged since the last read (a session's next request): the
            # same settings, without reading every file again
            snapshot = kept if stamp_holds(stamp) else self._read_config()
            self._config_snapshot = snapshot
            self._share_writes()
        return snapshot

    def _share_writes(self) -> None:
        """Tell the repository object the modes of ``core.sharedRepository`` for the
        objects, refs and reflogs written through it (git/shared_repo.py)."""
        from .shared_repo import shared_setting

        value = self._raw("core.sharedRepository")
        self.repo.shared_perm = 0 if value is _ABSENT else shared_setting(value)
        self.repo.objects_dir = os.path.abspath(os.environ.get("GIT_OBJECT_DIRECTORY")
                                                or os.path.join(self.commondir, "objects"))

    def _read_config(self):
        """The config files git reads, read in git's order (git/config_files.py); when
        the environment chooses the system and user files, libgit2's own reads are given
        them too (and from then on: the next call may have unset the variables)."""
        import time

        from .config_files import (align_repository, chosen_by_environment, config_files,
                                   config_stamp, read_settings, self_contained)

        since = time.time_ns()
        files = config_files(self.gitdir, self.commondir)
        stamp = config_stamp(files, self.gitdir, self.commondir, since)
        if self._aligned or chosen_by_environment():
            align_repository(self.repo, files)
            self._aligned = True
        settings = read_settings(self.repo, files, self.overrides)
        self._config_kept = (stamp if self_contained(settings) else None, settings)
        return settings

    def free(self) -> None:
        """Release the repository's open files (pack files, the object database); a later
        use opens them again."""
        self.repo.free()

    def forget_config(self) -> None:
        """Read the config files again at the next read (another process may have run
        `git config` since), and with them the attributes and eol settings
        (git/filters.py: a .gitattributes may have been committed since).  Files whose
        stat shows them unchanged since the last read, with no include, are not read
        again (config_files.config_stamp)."""
        self._config_snapshot = None
        self._filters = None

    def config_get(self, key: str, default=None):
        value = self._raw(key)
        if value is _ABSENT:
            return default
        return "true" if value is None else value

    def config_bool(self, key: str, default: bool = False) -> bool:
        value = self._raw(key)
        if value is _ABSENT:
            return default
        return parse_bool(value, canonical_key(key))

    def config_choice(self, key: str, choices) -> str | None:
        """A setting that must be one of ``choices`` (None: unset); any other value is
        fatal, as git treats a bad value of its own settings."""
        value = self.config_get(key)
        if value is not None and value not in choices:
            raise FatalError(f"bad config value '{value}' for '{canonical_key(key)}' (one of: "
                             f"{', '.join(choices)})", kind=ErrorKind.CONFIG)
        return value

    def config_int(self, key: str, default: int, minimum: int | None = None) -> int:
        """An integer setting (git's k/m/g units); below ``minimum`` is fatal, as git's
        "out of range"."""
        value = self._raw(key)
        if value is _ABSENT:
            return default
        number = parse_int(value, canonical_key(key))
        if minimum is not None and number < minimum:
            raise FatalError(f"bad numeric config value '{value}' for '{canonical_key(key)}': "
                             f"out of range (at least {minimum})", kind=ErrorKind.CONFIG)
        return number

    # -- the index lock taken ahead ---------------------------------------------------
    def index_path(self) -> str:
        """The index git uses: ``GIT_INDEX_FILE`` when set, else ``<gitdir>/index``.  Read
        at each call, as each git command reads it when it starts: a library caller or a
        long-lived server may set it between two calls.  A relative path is taken from the
        top of the worktree, where git runs its commands (or the current folder without
        one)."""
        value = os.environ.get("GIT_INDEX_FILE")
        if not value:
            return os.path.join(self.gitdir, "index")
        return os.path.normpath(os.path.join(self.workdir or os.getcwd(), value))

    def new_index_lock(self):
        from .index import IndexLock

        lock = IndexLock(self.index_path(), cache=self.index_cache)
        lock.maybe_sparse = self.config_bool("index.sparse", False)
        lock.shared_perm = getattr(self.repo, "shared_perm", 0)
        return lock

    def lock_index_ahead(self) -> bool:
        """Take ``index.lock`` now and start reading the index, for a transaction that
        will follow (commit_to_worktree takes it over).  False, and nothing held, when the
        lock cannot be taken: the transaction then refuses with the reason itself."""
        lock = self.new_index_lock()
        with interrupts_deferred():  # taken and recorded, or neither: release finds it
            try:
                lock.acquire()
            except (ApplyError, FatalError):
                return False
            self._index_lock = lock
            # the read recorded and started, or neither: a Ctrl-C between the two left a
            # thread nobody could join, and the rollback stopped there with index.lock
            lock.read_ahead()
        return True

    def index_lock(self):
        """The index lock for a transaction: the one taken ahead, or a newly taken one."""
        lock = getattr(self, "_index_lock", None)
        self._index_lock = None
        if lock is None or not lock.held:
            lock = self.new_index_lock()
            lock.acquire()
        return lock

    def release_index_lock(self) -> None:
        """Give back a lock taken ahead that no transaction used (a refusal, a no-op)."""
        lock = getattr(self, "_index_lock", None)
        self._index_lock = None
        if lock is not None:
            lock.release()

    def read_index(self):
        """The index as it is now (no lock taken)."""
        from .index import read_index

        if self.index_cache is not None:
            index = self.index_cache.peek(self.index_path())
            if index is not None:
                return index
        return read_index(self.index_path(), self.config_bool("index.sparse", False))

    def tracked_paths(self) -> list[str]:
        """The index's paths (none without a worktree, or when the index cannot be read:
        the run reports that itself where it needs the index)."""
        if not self.workdir:
            return []
        try:
            return [entry.path for entry in self.read_index()]
        except FatalError:
            return []

    def relpath_of_cwd(self) -> str:
        """Where the command runs, relative to the worktree root ("" outside it)."""
        if not self.workdir:
            return ""
        rel = os.path.relpath(os.path.realpath(os.getcwd()), os.path.realpath(self.workdir))
        return "" if rel == "." or rel == ".." or rel.startswith("../") else rel

    def in_progress(self) -> str | None:
        """The operation git has in progress in this worktree (merge, rebase,
        cherry-pick, revert), or None."""
        checks = (("MERGE_HEAD", "a merge"), ("rebase-merge", "a rebase"),
                  ("rebase-apply", "a rebase or git am"), ("CHERRY_PICK_HEAD", "a cherry-pick"),
                  ("REVERT_HEAD", "a revert"))
        for name, what in checks:
            if os.path.lexists(os.path.join(self.gitdir, name)):
                return what
        return None


TRUE_WORDS = ("1", "true", "yes", "on")


class interrupts_deferred:
    """Ctrl-C (and SIGTERM) held back for a few statements that must not be cut between
    them (a lock file made and recorded as ours); delivered when the block ends.  Only in
    the main thread on POSIX; elsewhere it does nothing."""

    def __enter__(self):
        import signal
        import threading

        self._held = None
        if hasattr(signal, "pthread_sigmask") and \
                threading.current_thread() is threading.main_thread():
            self._held = signal.pthread_sigmask(signal.SIG_BLOCK,
                                                {signal.SIGINT, signal.SIGTERM})
        return self

    def __exit__(self, *exc):
        if self._held is not None:
            import signal

            signal.pthread_sigmask(signal.SIG_SETMASK, self._held)
        return False


def _use_object_directories(repo: pygit2.Repository) -> None:
    """``GIT_OBJECT_DIRECTORY`` (objects read and written there, with its own
    ``info/alternates``) and ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` (more folders to read
    from, separated by ``:``), as git honours them; libgit2 reads them only when asked
    to discover the repository from the environment, which would bypass git's layout
    rules kept here."""
    objects = os.environ.get("GIT_OBJECT_DIRECTORY")
    alternates = [p for p in os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES", "")
                  .split(os.pathsep) if p]
    if not objects and not alternates:
        return
    try:
        odb = pygit2.Odb(os.path.abspath(objects)) if objects else repo.odb
        for folder in alternates:
            odb.add_disk_alternate(os.path.abspath(folder))
    except (pygit2.GitError, OSError, ValueError) as e:
        raise FatalError(f"cannot use the object directories named by GIT_OBJECT_DIRECTORY/"
                         f"GIT_ALTERNATE_OBJECT_DIRECTORIES: {e}", kind=ErrorKind.REPOSITORY) from None
    if objects:
        repo.set_odb(odb)


# --------------------------------------------------------------------------- history


def find_response_commit(repo: Repo, tip, response_id: str, limit: int = 1000,
                         paths: str | None = None):
    """The commit among the ``limit`` most recent of ``tip``'s history whose AI-Response
    trailer is ``response_id`` and whose AI-Paths trailer is ``paths`` (None: has none),
    or None.

    This runs on every apply, so it must not grow with the history: an unsorted walk
    yields commits as it reaches them (a topological or time sort walks the whole history
    first: 110 ms on 30,000 commits, against 4 ms for 1,000 commits unsorted)."""
    if tip is None:
        return None
    from .recent_history import RecentHistory

    if repo.recent_history is None:
        repo.recent_history = RecentHistory()  # a session's next request walks one commit
    needle = f"{AI_RESPONSE}: {response_id}".encode()
    for oid, raw in repo.recent_history.commits(repo.repo, tip, limit, repo.commondir):
        # the byte search keeps the walk cheap; the trailer block decides
        if raw is not None and needle in raw:
            message = raw.decode("utf-8", "replace")
            if response_id in trailer_values(message, AI_RESPONSE) \
                    and trailer_values(message, AI_PATHS) == ([paths] if paths else []):
                return repo.repo[oid]
    return None


def tool_commits_touching(repo: Repo, tip, paths: list[str], depth: int):
    """(commit, first parent or None) of each of the tool's own commits (an AI-Response
    trailer) among ``tip``'s ``depth`` most recent first-parent commits (``tip``
    included, newest first) that changed any of ``paths``."""
    from .state import tree_entry

    if tip is None or not paths:
        return
    commit = repo.repo[tip]
    for _step in range(max(depth, 0)):
        parent = commit.parents[0] if commit.parents else None
        if f"{AI_RESPONSE}: ".encode() in commit.raw_message and trailer_values(
                commit.raw_message.decode("utf-8", "replace"), AI_RESPONSE) and any(
                tree_entry(commit.tree, p) != tree_entry(parent.tree if parent else None, p)
                for p in paths):
            yield str(commit.id), None if parent is None else str(parent.id)
        if parent is None:
            return
        commit = parent


def still_holds(repo: Repo, commit_id, tree_id) -> bool:
    """Whether the tree ``tree_id`` (None: empty) still holds what commit ``commit_id``
    changed: each path it added or changed with the same mode and content, each path it
    deleted absent.  A revert, or a later edit of those files, makes it False."""
    from .state import tree_entry

    r = repo.repo
    commit = r[commit_id]
    tree = r[tree_id] if tree_id is not None else None
    if commit.parents:
        diff = commit.parents[0].tree.diff_to_tree(commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    for d in diff.deltas:
        for path in {d.old_file.path, d.new_file.path}:
            if path and tree_entry(tree, path) != tree_entry(commit.tree, path):
                return False
    return True
