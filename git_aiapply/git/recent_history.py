"""The most recent commits of a tip's history, kept between the requests of a session.

Every apply asks whether the response was applied already (repo.find_response_commit):
a walk of up to 1,000 commits from HEAD, each read from the object database.  A session's
next request usually starts from the commit the last one made, whose one parent is the
tip walked last time; an unsorted walk from it yields that commit, then exactly the walk
from its parent (one parent: nothing else is queued).  So the commits walked are kept and
the next walk is one commit read.  Commits never change; what could change the walk from
the same tip is the shallow boundary or grafts (``git fetch --deepen``): their files' stat
is part of what is kept, and any other tip is walked in full."""
from __future__ import annotations

import os

import pygit2

from ..message.trailers import AI_RESPONSE

# only a commit message holding this can answer; others are kept as None
_TRAILER = f"{AI_RESPONSE}: ".encode()


class RecentHistory:
    """(commit id, raw message or None) of the ``limit`` first commits of an unsorted
    walk from the last tip asked, and how to extend it by the next commit."""

    def __init__(self) -> None:
        self._key: tuple | None = None  # (tip id, limit, shallow and grafts stat)
        self._commits: list[tuple[pygit2.Oid, bytes | None]] = []

    def commits(self, r: pygit2.Repository, tip, limit: int,
                commondir: str) -> list[tuple[pygit2.Oid, bytes | None]]:
        head = r[tip]
        if not isinstance(head, pygit2.Commit):  # walked as given, and not kept
            return _walk(r, tip, limit)
        boundary = _boundary(commondir)
        key = (head.id, limit, boundary)
        if key == self._key:
            return self._commits
        kept = self._key
        if kept is not None and kept[1:] == (limit, boundary) and head.parent_ids == [kept[0]]:
            out = [_entry(head)] + self._commits[:limit - 1]
        else:
            out = _walk(r, head.id, limit)
        self._key, self._commits = key, out
        return out


def _walk(r: pygit2.Repository, tip, limit: int) -> list[tuple[pygit2.Oid, bytes | None]]:
    """The newest ``limit`` commits from ``tip``; a commit missing from the object store
    ends the walk there, as a shallow clone's boundary does (`git commit` works in such a
    repository, and so must the run: this is only the already-applied search)."""
    out: list[tuple[pygit2.Oid, bytes | None]] = []
    try:
        for c in r.walk(tip, pygit2.enums.SortMode.NONE):
            if len(out) >= limit:
                break
            out.append(_entry(c))
    except KeyError:  # pygit2.NotFoundError: libgit2 stops the whole walk at it
        return _walk_present(r, tip, limit)
    return out


def _walk_present(r: pygit2.Repository, tip, limit: int) -> list:
    """The walk over the commits the store holds, newest commit time first, as libgit2's
    unsorted walk goes; a missing parent is not followed."""
    import heapq

    first = r[tip]
    heap, seen, out = [(-first.commit_time, 0, first)], {first.id}, []
    while heap and len(out) < limit:
        c = heapq.heappop(heap)[2]
        out.append(_entry(c))
        for pid in c.parent_ids:
            parent = None if pid in seen else r.get(pid)
            seen.add(pid)
            if isinstance(parent, pygit2.Commit):
                heapq.heappush(heap, (-parent.commit_time, len(seen), parent))
    return out


def _entry(c: pygit2.Commit) -> tuple[pygit2.Oid, bytes | None]:
    raw = c.raw_message
    return c.id, (raw if _TRAILER in raw else None)


def _boundary(commondir: str) -> tuple:
    """The stat of the files that cut or graft the history (shallow clones, grafts)."""
    out = []
    for name in ("shallow", os.path.join("info", "grafts")):
        try:
            st = os.stat(os.path.join(commondir, name))
        except OSError:
            out.append(None)
            continue
        out.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)
