"""Staging without committing: ``--no-commit`` (the index and the worktree, as
``git apply --index``) and ``--cached`` (the index only, as ``git apply --cached``), through
the same Transaction as a commit (git/transaction.py): ``index.lock`` held throughout, the
journal, rollback on any failure; no hooks, no commit, no ref moved."""
from __future__ import annotations

import pygit2

from ..errors import ApplyError, ErrorKind, Problem
from ..plan.plan import Plan
from .repo import Repo
from .state import tree_entry
from .journal import RunKind
from .transaction import Transaction, check_touched, write_blobs


def stage_to_worktree(repo: Repo, plan: Plan, planned_head: tuple, *,
                      include_dirty: bool = False) -> None:
    """``--no-commit``: the plan written to the worktree and the index, all or nothing, as
    ``commit_to_worktree`` up to step 5, then the index installed; no hooks (as
    ``git apply --index``), no commit, the ref untouched."""
    with Transaction(repo, planned_head, kind=RunKind.NO_COMMIT) as txn:
        branch, head_id = planned_head
        head_tree = repo.repo[head_id].tree if head_id else None
        check_touched(repo, txn, plan, head_tree, include_dirty)
        entries = write_blobs(repo.repo, plan)
        txn.write_worktree(plan.final, entries, head_id, branch)
        txn.install()


def staged_paths(index: pygit2.Index, head_tree, paths) -> list[str]:
    """The ``paths`` whose index entry (mode, blob, or presence) is not HEAD's."""
    out = []
    for p in paths:
        try:
            e = index[p]
        except KeyError:
            e = None
        t = tree_entry(head_tree, p)
        if e is None and t is None:
            continue
        if e is None or t is None or (int(e.mode), e.id) != t:
            out.append(p)
    return sorted(out)


def staged_error(paths: list[str]) -> ApplyError:
    return ApplyError([Problem(f"{p} has staged changes; --cached applies the response to "
                               "the index as HEAD holds it", file=p,
                               hint="commit or unstage them (`git restore --staged "
                                    f"{p}`) first, or leave out --cached")
                       for p in paths], kind=ErrorKind.DIRTY)


def stage_index_only(repo: Repo, plan: Plan, planned_head: tuple) -> None:
    """``--cached``: the plan written to the index only, as ``git apply --cached``; the
    worktree is not touched.  The touched paths must be in the index as in HEAD (the
    plan was made against HEAD).  The entries carry no stat data, so that git compares
    the worktree files with them by content (they differ now)."""
    with Transaction(repo, planned_head, kind=RunKind.CACHED) as txn:
        branch, head_id = planned_head
        head_tree = repo.repo[head_id].tree if head_id else None
        staged = staged_paths(txn.index, head_tree, plan.touched)
        if staged:
            raise staged_error(staged)
        entries = write_blobs(repo.repo, plan)
        # as the end of Transaction.write_worktree without the files: a journal naming no
        # worktree file (recover then has only the index to decide on), then the entries,
        # without stat data, staged into the lock file
        txn.begin_journal({}, head_id, entries, {}, branch)
        txn.stage_entries(entries, None)
        txn.install()
