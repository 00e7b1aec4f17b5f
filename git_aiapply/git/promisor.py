"""Objects a partial clone has not fetched yet, fetched as git fetches them.

A ``--filter=blob:none`` clone holds the trees and commits but not every blob; git
fetches a missing one from the promisor remote when it first needs it.  libgit2 knows
nothing of promisor remotes: it reports the object missing.  So a repository with a
promisor remote gets one more object backend, asked last, that has ``git cat-file``
read the object (git fetches it lazily, into the repository, as any git command would);
every read of the run, wherever it is, goes through it.  An object git cannot fetch
either (the remote gone, no network) stops the run with ``fatal:`` naming it."""
from __future__ import annotations

import os
import subprocess

import pygit2
from pygit2.enums import ObjectType

from ..errors import ErrorKind, FatalError

_TYPES = {b"blob": ObjectType.BLOB, b"tree": ObjectType.TREE,
          b"commit": ObjectType.COMMIT, b"tag": ObjectType.TAG}
_KEEP = 512  # objects kept after their fetch: libgit2 does not see git's new pack at once


def has_promisor(config) -> bool:
    """Whether git would fetch missing objects lazily here: ``extensions.partialClone``
    or a remote with ``promisor`` set (``config``: a pygit2 config)."""
    try:
        if config["extensions.partialclone"]:
            return True
    except (KeyError, ValueError, pygit2.GitError):
        pass
    try:
        for entry in config:
            name = entry.name.lower()
            if name.startswith("remote.") and name.endswith(".promisor") \
                    and str(entry.value).strip().lower() in ("true", "yes", "on", "1"):
                return True
    except (ValueError, pygit2.GitError):
        pass
    return False


class LazyFetch(pygit2.OdbBackend):
    """The last object backend of a partial clone: reads through ``git cat-file``."""

    def __init__(self, gitdir: str):
        super().__init__()
        self.gitdir = gitdir
        self.fetched: dict[str, tuple] = {}

    def _read(self, oid) -> tuple:
        key = str(oid)
        if key in self.fetched:
            return self.fetched[key]
        r = subprocess.run(["git", f"--git-dir={self.gitdir}", "cat-file", "--batch"],
                           input=f"{key}\n".encode(), capture_output=True, cwd=self.gitdir)
        head, _, rest = r.stdout.partition(b"\n")
        parts = head.split()
        if r.returncode != 0 or len(parts) != 3 or parts[1] not in _TYPES:
            why = r.stderr.decode("utf-8", "replace").strip().splitlines()
            raise FatalError(f"missing object {key} in a partial clone, and git could not "
                             f"fetch it from the promisor remote"
                             + (f": {why[-1]}" if why else ""), kind=ErrorKind.REPOSITORY)
        found = (_TYPES[parts[1]], rest[:int(parts[2])])
        if len(self.fetched) >= _KEEP:
            self.fetched.pop(next(iter(self.fetched)))
        self.fetched[key] = found
        return found

    def read_cb(self, oid):
        return self._read(oid)

    def read_prefix_cb(self, oid):
        kind, data = self._read(oid)
        return kind, data, oid

    def read_header_cb(self, oid):
        kind, data = self._read(oid)
        return kind, len(data)

    def exists_cb(self, oid):
        return False  # existence checks (before a write) never fetch, as in git

    def exists_prefix_cb(self, oid):
        raise KeyError(oid)

    def refresh_cb(self):
        pass

    def __iter__(self):
        return iter(())


def fetch_lazily(repo: pygit2.Repository, config) -> None:
    """Add the lazy backend to ``repo`` when it is a partial clone."""
    if has_promisor(config):
        repo.odb.add_backend(LazyFetch(os.path.normpath(repo.path)), 0)
