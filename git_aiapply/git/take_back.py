"""`undo`'s write: the branch back to where the tool found it, and the files the undone
commit touched back as they were, through the same Transaction as an apply
(git/transaction.py: ``index.lock`` held throughout, the journal, rollback on failure).
undo_last.py decides whether the undo is allowed; this does it."""
from __future__ import annotations

import os

import pygit2

from .checks import refuse_dirty
from .journal import RunKind

UNDO_CLEAN_ONLY = "undo only restores files that are exactly as git ai-apply left them"
UNDO_CLEAN_HINT = "commit, stash or discard your changes to it first"


def take_back_commit(repo, planned_head: tuple, parent_id: str | None, changes: dict,
                     message: str) -> None:
    """Move the branch of ``planned_head`` (branch, HEAD's id) back to ``parent_id`` (None:
    delete it, undo of a root commit) with reflog ``message``, restore ``changes`` (path
    -> (entry in the parent, entry in HEAD), entries (mode, hex id) or None) in the
    worktree and the index, and name the undone commit in ORIG_HEAD; ApplyError (dirty)
    when a file is not as the commit left it."""
    from ..plan.plan import FileState
    from .ident import identity
    from .state import TreeSnapshot
    from .transaction import Transaction

    branch, head_id = planned_head
    r = repo.repo
    with Transaction(repo, planned_head, kind=RunKind.UNDO) as txn:
        base = TreeSnapshot(r, r[head_id].tree, repo.workdir)
        refuse_dirty(repo, txn.index, base, sorted(changes), refusal=UNDO_CLEAN_ONLY,
                     hint=UNDO_CLEAN_HINT,
                     restored=[p for p, (_old, new) in changes.items() if new is None])
        committer = identity(repo, "committer")
        entries = {p: (old[0], pygit2.Oid(hex=old[1])) if old is not None else None
                   for p, (old, _new) in changes.items()}
        final = {p: (FileState(ent[0], r[ent[1]].data) if ent is not None else None)
                 for p, ent in entries.items()}
        parent = pygit2.Oid(hex=parent_id) if parent_id is not None else None
        txn.write_worktree(final, entries, head_id, branch,
                           moves_to=parent if parent is not None else "unborn")
        txn.move_ref(branch or "HEAD", parent, head_id, message, committer)
        with open(os.path.join(repo.gitdir, "ORIG_HEAD"), "w") as f:
            f.write(f"{head_id}\n")
        txn.install()
