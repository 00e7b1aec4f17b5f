"""Questions `recover` asks of the history when a branch moved on after an interrupted
run: does one commit descend from another, which commits lie between, what a tree holds
at given paths."""
from __future__ import annotations

import pygit2


def descends(r: pygit2.Repository, commit, ancestor) -> bool:
    """Whether ``commit`` is ``ancestor`` or descends from it (ids or hex strings)."""
    try:
        a, c = pygit2.Oid(hex=str(ancestor)), pygit2.Oid(hex=str(commit))
        return a == c or r.descendant_of(c, a)
    except (ValueError, KeyError, pygit2.GitError):
        return False


def commits_between(r: pygit2.Repository, tip, base: str, limit: int):
    """The commits reachable from ``tip`` and not from ``base``, newest first, at most
    ``limit`` of them."""
    walker = r.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.hide(pygit2.Oid(hex=base))
    for n, commit in enumerate(walker):
        if n >= limit:
            return
        yield commit


def entries_at(tree: pygit2.Tree, paths) -> dict:
    """path -> [mode, hex id] of ``tree``'s file at each path, or None (absent)."""
    out = {}
    for p in paths:
        try:
            e = tree[p]
        except KeyError:
            out[p] = None
            continue
        out[p] = None if e.type_str == "tree" else [int(e.filemode), str(e.id)]
    return out


def index_differs(index_path: str, entries: dict) -> list[str]:
    """The paths of ``entries`` (path -> [mode, hex id] or None) the index file at
    ``index_path`` does not hold (all of them when it cannot be read)."""
    from .index import entries_hold

    try:
        index = pygit2.Index(index_path)
    except (pygit2.GitError, OSError, ValueError):
        return sorted(entries)
    return sorted(p for p, want in entries.items() if not entries_hold(index, {p: want}))
