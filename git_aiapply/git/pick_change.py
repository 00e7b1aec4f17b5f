"""`pick`'s git work, with ids as hex strings in and out: the plan of a fast-forward
(HEAD's tree to the attempt's tip), the attempt's change merged onto HEAD as `git
cherry-pick` would, and the commit made through the worktree transaction
(git/transaction.py).  attempts.py decides what to pick; this reads and writes."""
from __future__ import annotations

import pygit2

from ..record import record


def _tree(r, commit_id):
    return r[pygit2.Oid(hex=str(commit_id))].tree if commit_id is not None else None


def fast_forward_plan(repo, head_id, tip_id):
    """The Plan taking HEAD's tree (``head_id`` None: unborn) to the tip's."""
    from .state import plan_between

    r = repo.repo
    return plan_between(r, _tree(r, head_id), _tree(r, tip_id))


@record
class MergedChange:
    """The attempt's change merged onto HEAD: the paths in conflict (None: none), else the
    Plan from HEAD's tree to the merged one (None: HEAD already holds the result)."""

    conflicts: list | None = None
    plan: object = None  # plan.Plan


def merged_change(repo, base_id, head_id, tip_id) -> MergedChange:
    """The change from ``base_id`` (None: nothing) to ``tip_id`` merged onto ``head_id``'s
    tree (None: unborn), three-way, renames followed."""
    from .state import plan_between
    from .transaction import empty_tree

    r = repo.repo
    head_tree = _tree(r, head_id)
    base_tree = _tree(r, base_id) if base_id is not None else r[empty_tree(r)]
    ours = head_tree if head_tree is not None else r[empty_tree(r)]
    merged = r.merge_trees(base_tree, ours, _tree(r, tip_id))
    if merged.conflicts is not None:
        return MergedChange(sorted({e.path for conflict in merged.conflicts
                                    for e in conflict if e is not None}))
    new_tree = r[merged.write_tree(r)]
    if head_tree is not None and new_tree.id == head_tree.id:
        return MergedChange()
    return MergedChange(None, plan_between(r, head_tree, new_tree))


def commit_pick(repo, plan, message: str, planned_head: tuple, *, reflog_prefix: str,
                fast_forward_to: str | None = None, no_verify: bool = False,
                hook_env: dict | None = None, hook_hints: dict | None = None, sign=None):
    """Commit ``plan`` through the worktree transaction: a fast-forward to the commit
    ``fast_forward_to`` (no hooks), else a new commit with the hooks, signed with ``sign``
    (signing.signer's); returns the transaction's CommitResult."""
    from .transaction import CommitRequest, commit_to_worktree

    if fast_forward_to is not None:
        req = CommitRequest(plan, message, reflog_prefix=reflog_prefix,
                            fast_forward_to=pygit2.Oid(hex=fast_forward_to))
    else:
        req = CommitRequest(plan, message, no_verify=no_verify, hook_env=hook_env or {},
                            reflog_prefix=reflog_prefix, sign=sign,
                            hook_hints=hook_hints)
    return commit_to_worktree(repo, req, planned_head)
