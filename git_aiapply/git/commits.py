"""What `undo`, `attempts` and `pick` ask of commits and reflogs, as plain values (ids as
hex strings, messages as text): the moves a branch's reflog records, a commit's message
and parents, whether one commit descends from another, which remote-tracking branches
hold a commit, what changed between two commits, an attempt's first-parent run and size.
undo_last.py and attempts.py hold no pygit2 object."""
from __future__ import annotations

import sys

import pygit2

from ..record import record
from .refs import merge_base, reflog
from .state import tree_entry


@record
class RefMove:
    """One reflog entry: the branch moved from ``old`` (None: it did not exist) to ``new``."""

    old: str | None
    new: str
    message: str


@record
class CommitFacts:
    """A commit as undo and attempts read it."""

    id: str
    message: str  # decoded as pygit2 decodes it (the commit's encoding)
    raw_message: str  # the bytes as UTF-8 with replacement (trailers are read from it)
    parents: tuple  # parent ids, first parent first


def _is_zero(oid) -> bool:
    return int(str(oid), 16) == 0


def reflog_moves(repo, refname: str) -> list[RefMove]:
    """``refname``'s reflog, newest first (empty: no reflog, no such ref)."""
    return [RefMove(None if _is_zero(e.oid_old) else str(e.oid_old), str(e.oid_new),
                    e.message or "") for e in reflog(repo.repo, refname)]


def _facts(commit) -> CommitFacts:
    return CommitFacts(str(commit.id), commit.message,
                       commit.raw_message.decode("utf-8", "replace"),
                       tuple(str(p) for p in commit.parent_ids))


def commit_facts(repo, commit_id) -> CommitFacts | None:
    """The commit ``commit_id`` (an id or hex string), or None when it is not there."""
    try:
        commit = repo.repo[commit_id if isinstance(commit_id, pygit2.Oid)
                           else pygit2.Oid(hex=str(commit_id))]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return _facts(commit) if isinstance(commit, pygit2.Commit) else None


def branch_tip_facts(repo, refname: str) -> CommitFacts | None:
    """The commit ``refname`` points at, or None (no such ref, not a commit)."""
    commit = repo.branch_commit(refname)
    return None if commit is None else _facts(commit)


def descends_from(repo, commit, ancestor) -> bool:
    """Whether ``commit`` descends from ``ancestor`` (ids or hex strings), strictly, as
    pygit2's ``descendant_of``; an error (a commit gone from the object store) is a no."""
    try:
        return bool(repo.repo.descendant_of(pygit2.Oid(hex=str(commit)),
                                            pygit2.Oid(hex=str(ancestor))))
    except Exception:  # a missing object or a bad id: not in its history
        return False


def remote_branches_containing(repo, commit_id) -> list[str]:
    """Remote-tracking branches (``origin/main``) that contain ``commit_id``."""
    r = repo.repo
    want = pygit2.Oid(hex=str(commit_id))
    out = []
    for name in r.references:
        if not name.startswith("refs/remotes/") or name.endswith("/HEAD"):
            continue
        try:
            tip = r.lookup_reference(name).resolve().target
        except Exception:  # a broken or symbolic ref that leads nowhere
            continue
        if tip == want or r.descendant_of(tip, want):
            out.append(name[len("refs/remotes/"):])
    return out


def _plain(entry):
    return None if entry is None else (entry[0], str(entry[1]))


def changed_entries(repo, parent_id, commit_id) -> dict[str, tuple]:
    """path -> (entry in the parent or None, entry in the commit or None) of every path
    the commit changed (``parent_id`` None: a root commit); an entry is (mode, hex id)."""
    r = repo.repo
    commit = r[pygit2.Oid(hex=str(commit_id))]
    parent = r[pygit2.Oid(hex=str(parent_id))] if parent_id is not None else None
    if parent is not None:
        diff = parent.tree.diff_to_tree(commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    paths = set()
    for d in diff.deltas:
        paths.update(p for p in (d.old_file.path, d.new_file.path) if p)
    tree = parent.tree if parent is not None else None
    return {p: (_plain(tree_entry(tree, p)), _plain(tree_entry(commit.tree, p))) for p in paths}


def branch_refnames(repo) -> list[str]:
    """Every local branch's full ref name, sorted."""
    return sorted(n for n in repo.repo.references if n.startswith("refs/heads/"))


@record
class FirstParentRun:
    """An attempt's commits as describe finds them: the run of ``commits`` (newest first)
    down the first-parent line from the tip for which ``keep`` held, stopping at HEAD's
    history, and the commit below them (``base``, None: the run reached a root)."""

    commits: list  # CommitFacts, newest first
    base: CommitFacts | None


def first_parent_run(repo, tip_id, head_id, keep, limit: int = 1000) -> FirstParentRun:
    """The commits from ``tip_id`` down the first parents while ``keep(CommitFacts)`` holds
    and the commit is not in ``head_id``'s history (at most ``limit`` of them)."""
    r = repo.repo
    tip = r[pygit2.Oid(hex=str(tip_id))]
    head = pygit2.Oid(hex=str(head_id)) if head_id is not None else None
    mb = merge_base(r, tip.id, head)
    commits = []
    c = tip
    for _ in range(limit):
        facts = _facts(c)
        in_head = mb is not None and (c.id == mb or r.descendant_of(mb, c.id))
        if in_head or not keep(facts):
            return FirstParentRun(commits, facts)
        commits.append(facts)
        if not c.parents:
            return FirstParentRun(commits, None)
        c = c.parents[0]
    return FirstParentRun(commits, _facts(c))


def diff_stats(repo, base_id, tip_id) -> tuple[int, int, int]:
    """(files changed, insertions, deletions) from ``base_id`` (None: nothing) to ``tip_id``."""
    r = repo.repo
    tip = r[pygit2.Oid(hex=str(tip_id))]
    if base_id is not None:
        diff = r.diff(r[pygit2.Oid(hex=str(base_id))].tree, tip.tree)
    else:
        diff = tip.tree.diff_to_tree(swap=True)
    stats = diff.stats
    return stats.files_changed, stats.insertions, stats.deletions


def paths_in_commit(repo, commit_id, paths) -> set[str]:
    """The ``paths`` that commit ``commit_id`` (None: no commit) has an entry at (a file or
    a folder)."""
    if commit_id is None:
        return set()
    tree = repo.repo[pygit2.Oid(hex=str(commit_id))].tree
    out = set()
    for p in paths:
        try:
            tree[sys.intern(p)]  # interned: pygit2 keeps the name it is given
        except KeyError:
            continue
        out.add(p)
    return out


def ref_exists(repo, refname: str) -> bool:
    """Whether there is a reference ``refname`` (a symbolic one counts, wherever it leads)."""
    try:
        repo.repo.lookup_reference(refname)
    except Exception:  # no such ref, or a name libgit2 cannot look up
        return False
    return True


def resolve_commit_id(repo, rev: str) -> str:
    """The commit ``rev`` names, as a hex id (UsageError when it names none)."""
    return str(repo.resolve_commit(rev).id)


def file_at_revision(repo, rev: str, path: str) -> bytes:
    """The bytes of the file ``path`` in the commit ``rev`` names (``show --rev``);
    UsageError when ``rev`` names no commit or ``path`` is no file there."""
    from ..errors import UsageError

    commit = repo.resolve_commit(rev)
    try:
        entry = commit.tree[sys.intern(path)]  # see state.tree_entry
    except KeyError:
        raise UsageError(f"{path} is not in {rev}") from None
    if entry.type_str != "blob":  # a folder or a submodule
        raise UsageError(f"{path} is not a file in {rev}")
    return entry.read_raw()
