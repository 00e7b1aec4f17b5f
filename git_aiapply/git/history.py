"""Questions `recover` asks of the history when a branch moved on after an interrupted
run: where the branch is, whether the run happened (``run_side``), does one commit
descend from another, which commits lie between, what a tree holds at given paths.
Answers are plain values (ids, strings, dicts): recover.py holds no pygit2 object."""
from __future__ import annotations

import pygit2

from .journal import JournalNote


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


def blob_data(repo, blob_id) -> bytes:
    """The bytes of the blob ``blob_id`` (an id or hex string)."""
    return repo.repo[blob_id].data


def entries_at_commit(repo, commit_id, paths) -> dict:
    """``entries_at`` of the tree of commit ``commit_id``."""
    return entries_at(repo.repo[commit_id].tree, paths)


def ref_tip(repo, refname: str) -> str | None:
    """The commit id (hex) ``refname`` points at (HEAD: detached HEAD's target), or None;
    fatal when it names no readable commit (Repo.tip_commit)."""
    tip = repo.ref_target(refname)
    return None if tip is None else str(tip)


# how far back `recover` looks for the run's commit below a branch that moved on
_MAX_WALK = 10000


def run_side(repo, j: JournalNote, tip: str | None) -> tuple[str | None, str]:
    """Whether the interrupted run of journal ``j`` happened (``tip``: where its branch
    is now, ``ref_tip``), as `git ai-apply recover` asks: ("before" | "after" | "before-moved" |
    "after-moved", detail) or (None, why it cannot be told).  "-moved": the branch moved
    on since (the user committed), and the commits since left the run's files alone."""
    from .journal import STAGE_KINDS

    r = repo.repo
    head, moves_to = j.head, j.moves_to
    tip_s = tip or None
    tip = pygit2.Oid(hex=tip) if tip else None
    if j.kind in STAGE_KINDS and tip_s == head:
        return _staging_side(repo, j)
    if tip_s == head:
        return "before", ""
    if moves_to is not None:
        if tip_s == (None if moves_to == "unborn" else moves_to):
            return "after", ""
    else:
        commit = r.get(tip) if tip else None
        if commit is not None and _is_run_commit(commit, j):
            return "after", ""
    if tip is None or head is None:
        return None, "the history it started from is gone"
    return _moved_on_side(r, j, tip)


def _staging_side(repo, j: JournalNote) -> tuple[str, str]:
    """--no-commit / --cached moves no ref: the run happened when its index was installed
    (the lock is gone and the index holds its entries), else it did not."""
    import os

    from .index import index_holds

    index = j.index or repo.index_path()  # the run's (GIT_INDEX_FILE, as git)
    if not os.path.lexists(index + ".lock") and index_holds(index, j.final):
        return "after", ""
    return "before", ""


def _moved_on_side(r, j: JournalNote, tip) -> tuple[str | None, str]:
    """``run_side`` when the branch is neither where the run found it nor where the run
    put it: did the user's commits since leave the run's files alone?"""
    from .index import entries_hold

    head, final, moves_to = j.head, j.final, j.moves_to
    desc_head = descends(r, tip, head)
    if moves_to not in (None, "unborn") and descends(r, tip, moves_to) and \
            (not desc_head or descends(r, moves_to, head)):
        run_commit = moves_to
    elif moves_to is None and desc_head:
        run_commit = _find_run_commit(r, tip, j)
    else:
        run_commit = None
    tip_tree = r[tip].tree
    if run_commit is not None:
        if not entries_hold(tip_tree, final):
            return None, "later commits changed the files it committed"
        return "after-moved", str(run_commit)[:12]
    if not desc_head:
        return None, f"{head[:12]} is no longer in its history"
    base = entries_at(r[head].tree, j.paths)
    if not entries_hold(tip_tree, base):
        changed = sorted(p for p in base if not entries_hold(tip_tree, {p: base[p]}))
        return None, "the commits since changed " + ", ".join(changed[:5])
    n = _count_between(r, tip, head)
    return "before-moved", f"{n} commit{'s' if n != 1 else ''}"


def _is_run_commit(commit, j: JournalNote) -> bool:
    from .index import entries_hold

    parents = [str(p) for p in commit.parent_ids]
    return parents == ([j.head] if j.head else []) and entries_hold(commit.tree, j.final)


def _find_run_commit(r, tip, j: JournalNote):
    for commit in commits_between(r, tip, j.head, _MAX_WALK):
        if _is_run_commit(commit, j):
            return commit.id
    return None


def _count_between(r, tip, head) -> int:
    return sum(1 for _ in commits_between(r, tip, head, _MAX_WALK))


def commit_id_and_message(repo, commit_id) -> tuple[str, str]:
    """(the full hex id, the message) of commit ``commit_id``."""
    commit = repo.repo[commit_id]
    return str(commit.id), commit.message


def commit_change(repo, commit_id) -> dict:
    """What `git commit` reports of commit ``commit_id``, as plain values: ``id`` (hex),
    ``message``, ``root`` (no parent), ``author`` and ``committer`` ("Name <email>"),
    ``author_time`` and ``author_offset`` (minutes), and ``before`` / ``after``: path ->
    (mode, bytes) of the files the commit changed, before it and in it."""
    r = repo.repo
    commit = r[commit_id]
    parent = commit.parents[0] if commit.parents else None
    before: dict = {}
    after: dict = {}
    if parent is None:
        for path, mode, data in _tree_files(r, commit.tree):
            after[path] = (mode, data)
    else:
        for delta in r.diff(parent.tree, commit.tree).deltas:
            if delta.status_char() in ("D", "M", "T", "R"):
                before[delta.old_file.path] = (delta.old_file.mode, r[delta.old_file.id].data)
            if delta.status_char() in ("A", "M", "T", "R"):
                after[delta.new_file.path] = (delta.new_file.mode, r[delta.new_file.id].data)
    a, c = commit.author, commit.committer
    return {"id": str(commit.id), "message": commit.message, "root": parent is None,
            "author": f"{a.name} <{a.email}>", "committer": f"{c.name} <{c.email}>",
            "author_time": a.time, "author_offset": a.offset,
            "before": before, "after": after}


def _tree_files(r: pygit2.Repository, tree, prefix: str = ""):
    """(path, mode, bytes) of every file under ``tree`` (submodules have no content)."""
    for entry in tree:
        path = prefix + entry.name
        if entry.type_str == "tree":
            yield from _tree_files(r, r[entry.id], path + "/")
        elif entry.type_str == "blob":
            yield path, entry.filemode, r[entry.id].data
