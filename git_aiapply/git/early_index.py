"""Reading the index while pygit2's Python layer is still being imported.

On a 100,000-file repository a one-edit run is three long steps in a row: importing
pygit2 (its Python modules, mostly: 60-100 ms), libgit2's index read (75-145 ms, it
verifies the checksum) and the index write.  libgit2 itself loads in 10-20 ms, and
its index read releases the GIL, so the command loads only pygit2's two extension
modules first, guesses where the index is, and reads it in a thread while the rest of
pygit2 and the command are imported (bench/results.md).

The read is a guess made before the repository is opened and before ``index.lock`` is
held, so it is used only when it is provably what ``IndexLock`` would have read:
the index is read through a hard link with the lock's private name
(``index.ai-apply-<pid>``, as ``IndexLock`` reads it); git replaces an index only by
renaming a new file over it, and our link keeps the old file's inode from being reused,
so once the lock is held, an index that is still the same file as our link (same device
and inode) holds exactly what was read.  Anything else (another index path, an index
replaced meanwhile, a read error, pygit2 laid out differently) drops the early read and
the lock reads the index as before.  Only the plain command's single run starts one
(main.py); ``serve``, ``mcp`` and the library never do.
"""
from __future__ import annotations

import os
import sys

from .gitfile import gitfile_target

# set by start(): (link path, link stat, thread, result box, git_index ** cell)
_pending: tuple | None = None

# git's discovery differs from the plain walk below when these are set: no guess then
_DISCOVERY_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                  "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")


def start() -> None:
    """Load libgit2 and start reading the likely index in a thread (or do nothing)."""
    if _pending is not None or "pygit2" in sys.modules or os.name != "posix":
        return  # the proof (module docstring) leans on POSIX renames, inodes and owners
    if any(name in os.environ for name in _DISCOVERY_ENV):
        return
    index_path = _likely_index_path()
    if index_path is None:
        return
    import signal

    # a Ctrl-C between making the link and recording it would leave the link behind: it
    # waits until the link is recorded (discard() then removes it)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        _start(index_path)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _start(index_path: str) -> None:
    global _pending
    try:
        if os.stat(index_path).st_uid != os.geteuid():
            return  # another user's repository: git may refuse it; create nothing there
    except OSError:
        return  # no index yet
    link = f"{index_path}.ai-apply-{os.getpid()}"
    try:
        os.link(index_path, link)
    except OSError:  # a read-only folder, a leftover of ours: read it under the lock
        return
    try:
        ffi, C = _load_libgit2()
    except Exception:  # another pygit2 layout: the plain import reports any real trouble
        _remove(link)
        return
    try:
        link_stat = os.stat(link)
    except OSError:
        _remove(link)
        return
    import threading

    cell = ffi.new("git_index **")
    path = os.fsencode(link)
    box: dict = {}

    def read():
        box["error"] = C.git_index_open(cell, path)  # cffi releases the GIL here

    thread = threading.Thread(target=read, name="ai-apply-early-index", daemon=True)
    _pending = (link, link_stat, thread, box, cell)
    thread.start()


def take(index_path: str, work_path: str):
    """The index read early, as a ``pygit2.Index`` bound to ``work_path``, when it is
    the index at ``index_path`` now (call with ``index.lock`` held); else None, with our
    link removed."""
    global _pending
    if _pending is None:
        return None
    link, link_stat, thread, box, cell = _pending
    _pending = None
    thread.join()
    try:
        same = (os.path.samestat(os.stat(index_path), link_stat)
                and os.path.samestat(os.stat(work_path), link_stat))
    except OSError:
        same = False
    import pygit2

    index = pygit2.Index.from_c(None, cell) if box.get("error") == 0 else None
    if same and index is not None:
        return index
    _remove(link)
    return None  # a read index is freed with ``index``


def discard() -> None:
    """Remove the link of an early read nobody took (the run ended before the lock)."""
    global _pending
    if _pending is not None:
        link = _pending[0]
        _pending = None
        _remove(link)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _likely_index_path() -> str | None:
    """``<gitdir>/index`` for the repository git would find from here when no GIT_*
    variable steers it: the nearest ``.git`` folder, or the folder a ``.git`` file
    (a linked worktree, a submodule) names.  A wrong guess costs only the early read."""
    try:
        folder = os.getcwd()
    except OSError:
        return None
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            return os.path.join(dotgit, "index")
        if os.path.isfile(dotgit):
            gitdir = gitfile_target(dotgit)  # as Repo follows it
            return None if gitdir == dotgit else os.path.join(gitdir, "index")
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _load_libgit2():
    """pygit2's cffi module and its C extension (whose start-up initialises libgit2),
    loaded under the names ``import pygit2`` will find them by, without pygit2's
    Python modules.  Through the loader protocol itself: ``importlib.util`` costs
    8-10 ms of imports here, before the read could start."""
    from importlib.machinery import PathFinder

    package = PathFinder.find_spec("pygit2")
    if package is None or not package.submodule_search_locations:
        raise ImportError("pygit2")
    specs = []
    for name in ("pygit2._libgit2", "pygit2._pygit2"):
        spec = PathFinder.find_spec(name, package.submodule_search_locations)
        if spec is None or spec.loader is None:
            raise ImportError(name)
        specs.append(spec)
    loaded = {}
    for spec in specs:
        module = spec.loader.create_module(spec)  # an extension module: runs its init
        module.__spec__, module.__loader__ = spec, spec.loader
        module.__package__ = "pygit2"
        spec.loader.exec_module(module)
        loaded[spec.name] = module
    sys.modules.update(loaded)  # only once both loaded: a failure leaves the import as it was
    cffi = loaded["pygit2._libgit2"]
    return cffi.ffi, cffi.lib


def adopt_into_package() -> None:
    """After ``import pygit2``: the early-loaded extension modules as the package's
    attributes too (the import system sets them only when it loads a submodule)."""
    package = sys.modules.get("pygit2")
    if package is None:
        return
    for name in ("_libgit2", "_pygit2"):
        module = sys.modules.get(f"pygit2.{name}")
        if module is not None and not hasattr(package, name):
            setattr(package, name, module)
