"""The commit a run plans against and commits onto, for pipeline.py, in plain values:
the base as ids (``BaseCommit``), the branch and tip --branch writes, whether the history
already holds the response, the snapshots planned against, the read-only refusals on the
touched files, and the branch-mode commit.  pygit2 objects stay in here (issue 23)."""
from __future__ import annotations

from ..record import record


@record(frozen=True)
class BaseCommit:
    """A commit by its id and its tree's id (hex strings)."""

    id: str
    tree: str


@record(frozen=True)
class Committed:
    """What a commit made: its id, its message as written (a hook or the editor may have
    changed it), and the hooks' output."""

    commit: str
    message: str
    hook_output: str


def _committed(result) -> Committed:
    return Committed(str(result.commit), result.message, result.hook_output)


def base_at(repo, commit_id) -> BaseCommit | None:
    """The commit ``commit_id`` (an id or hex string; None: an unborn branch, no base)."""
    if commit_id is None:
        return None
    commit = repo.repo[commit_id]
    return BaseCommit(str(commit.id), str(commit.tree.id))


def resolve_base(repo, rev: str) -> BaseCommit:
    """The commit ``rev`` names; UsageError when there is none (Repo.resolve_commit)."""
    commit = repo.resolve_commit(rev)
    return BaseCommit(str(commit.id), str(commit.tree.id))


def contains(repo, tip: str, commit_id: str) -> bool:
    """Whether ``tip``'s history holds ``commit_id`` (itself included)."""
    from .history import descends

    return descends(repo.repo, tip, commit_id)


def branch_tip(repo, refname: str) -> tuple[str, str | None]:
    """(the ref a symbolic ``refname`` leads to, as git commits there; its commit id, or
    None when the branch does not exist yet)."""
    from .refs import resolve_symbolic

    refname = resolve_symbolic(repo.repo, refname)
    tip = repo.ref_target(refname)
    return refname, None if tip is None else str(tip)


def current_head(repo) -> tuple[str | None, str | None]:
    """(branch ref name, None when detached; commit id, None when the branch is unborn)."""
    return repo.head()


def applied_as(repo, tip: str | None, response_id: str, paths: str | None,
               base: BaseCommit | None) -> str | None:
    """The id of the commit of ``tip``'s recent history that applied this response with
    these path options (repo.find_response_commit), when ``base``'s tree still holds what
    it changed (after a revert it applies again); else None."""
    from .repo import find_response_commit, still_holds

    done = find_response_commit(repo, tip, response_id, paths=paths)
    if done is None or not still_holds(repo, done.id, base.tree if base is not None else None):
        return None
    return str(done.id)


def _tree(repo, base: BaseCommit | None):
    return repo.repo[base.tree] if base is not None else None


def tree_snapshot(repo, base: BaseCommit | None, workdir: str | None):
    """A TreeSnapshot of ``base``'s tree (None: empty), with ``workdir`` for untracked
    paths (None: the tree alone)."""
    from .state import TreeSnapshot

    return TreeSnapshot(repo.repo, _tree(repo, base), workdir)


def worktree_snapshot(repo, base: BaseCommit | None, workdir: str):
    """--include-dirty: a WorktreeSnapshot of ``base`` with the index as it is now."""
    from .state import WorktreeSnapshot

    return WorktreeSnapshot(repo, _tree(repo, base), workdir, repo.read_index())


def refuse_dirty_touched(repo, base, touched: list[str],
                         cached_base: BaseCommit | None = None, *, cached: bool = False) -> None:
    """The transaction's checks on the index and the ``touched`` files, read-only
    (checks.py): no unmerged entry, no touched file that differs from ``base`` (a
    TreeSnapshot of HEAD).  ``cached`` (--cached): the touched paths must be staged as
    ``cached_base`` holds them instead; the worktree is no matter then."""
    from .checks import refuse_dirty, refuse_unmerged

    index = repo.read_index()
    refuse_unmerged(index)
    if cached:
        from .staging import staged_error, staged_paths

        staged = staged_paths(index, _tree(repo, cached_base), touched)
        if staged:
            raise staged_error(staged)
        return
    refuse_dirty(repo, index, base, touched)


def commit_onto_branch(repo, plan, message: str, refname: str, base: BaseCommit | None,
                       tip: str | None, *, sign, edit_message, verify: bool,
                       formats: list[str], no_verify: bool) -> Committed:
    """transaction.commit_to_branch from plain values; ``verify`` (--verify) runs the
    commit hooks in a temporary worktree (githooks.verify_in_worktree)."""
    import pygit2

    from .transaction import commit_to_branch

    base_commit = repo.repo[base.id] if base is not None else None
    check = None
    if verify:
        from .githooks import verify_in_worktree

        def check(tree_id, msg):
            return verify_in_worktree(repo, base_commit, tree_id, msg, refname=refname,
                                      formats=formats, no_verify=no_verify)
    expected = None if tip is None else pygit2.Oid(hex=tip)
    return _committed(commit_to_branch(repo, plan, message, refname, base_commit, expected,
                                       sign=sign, edit_message=edit_message, verify=check))


def commit_onto_head(repo, request, planned_head: tuple) -> Committed:
    """transaction.commit_to_worktree with ``planned_head`` from current_head()."""
    from .transaction import commit_to_worktree

    return _committed(commit_to_worktree(repo, request, planned_head))


def stage(repo, plan, planned_head: tuple, *, cached: bool, include_dirty: bool) -> None:
    """--cached: the plan to the index only; --no-commit: to the index and the worktree
    (staging.py), ``planned_head`` from current_head()."""
    from .staging import stage_index_only, stage_to_worktree

    if cached:
        stage_index_only(repo, plan, planned_head)
    else:
        stage_to_worktree(repo, plan, planned_head, include_dirty=include_dirty)
