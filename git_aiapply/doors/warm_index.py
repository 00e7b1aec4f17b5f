"""The index a library Session or `serve` keeps warm between requests (api.Session): used
only while the file on disk is exactly the one it was read from or written to."""
from __future__ import annotations

import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..git.index import Index


def _index_stamp(path: str) -> tuple[int, int, int, int, bytes] | None:
    """What identifies the index file's content without reading it: its stat and its
    trailing checksum (the last bytes of the file: git's and libgit2's hash of the rest)."""
    try:
        st = os.stat(path)
        with open(path, "rb") as f:
            f.seek(max(0, st.st_size - 32))
            tail = f.read(32)
    except OSError:
        return None
    # not ctime: the transaction hard-links the index (git.IndexLock), which changes it
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, tail)


def _usable(index, stamp, kept: str | None, path: str):
    """``index`` if it was kept from ``path`` and the file there is still the one it was
    read from or written to; else None."""
    if index is not None and stamp is not None and kept == path \
            and stamp == _index_stamp(path):
        return index
    return None


class IndexCache:
    """One repository's index kept in memory between transactions.

    The transaction (git.IndexLock) takes the index from here instead of reading the file,
    and hands it back after installing what it wrote from it.  It is used only while the
    file on disk is exactly the one it was read from or written to (device, inode, size,
    mtime in nanoseconds, and the file's own trailing checksum) and HEAD is where
    it was: another git process that wrote the index or moved HEAD between two requests
    makes the next transaction read the file again, so its update is never lost.  It is
    kept with the path it was read from: an index named by another ``GIT_INDEX_FILE`` is
    never answered with it, even a hard link of the same file."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._index: Index | None = None
        self._stamp: tuple[int, int, int, int, bytes] | None = None
        self._path: str | None = None
        self._head: object = None

    def clear(self) -> None:
        with self._guard:
            self._index = self._stamp = None

    def note_head(self, head: object) -> None:
        """Before a request: forget the index when HEAD is not where the last one left it."""
        with self._guard:
            if head != self._head:
                self._index = self._stamp = None
                self._head = head

    def left_head(self, head: object) -> None:
        """After a request: where it left HEAD (its own commit moved it)."""
        with self._guard:
            self._head = head

    def take(self, path: str) -> Index | None:
        """The warm index for a transaction that holds ``index.lock``, or None (read it)."""
        with self._guard:
            index, stamp, kept = self._index, self._stamp, self._path
            self._index = self._stamp = None
        return _usable(index, stamp, kept, path)

    def peek(self, path: str) -> Index | None:
        """The warm index to look at (never to change), or None."""
        with self._guard:
            index, stamp, kept = self._index, self._stamp, self._path
        return _usable(index, stamp, kept, path)

    def give_back(self, path: str, index: Index) -> None:
        """An index read (or taken) and left unchanged: keep it for the next request."""
        stamp = _index_stamp(path)
        with self._guard:
            self._index, self._stamp, self._path = index, stamp, path

    def keep(self, path: str, index: Index, staged: os.stat_result) -> None:
        """After a commit: keep the index written from memory, if the installed file is
        the one written (a pre-commit hook may have re-staged files into it)."""
        stamp = _index_stamp(path)
        same = stamp is not None and stamp[:4] == (staged.st_dev, staged.st_ino,
                                                   staged.st_size, staged.st_mtime_ns)
        with self._guard:
            self._index, self._stamp = (index, stamp) if same else (None, None)
            self._path = path
