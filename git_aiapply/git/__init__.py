"""The git edge of the tool: every pygit2 call lives in this package.

- ``repo``: opening the repository as git finds it, config (with ``git -c`` settings),
  history search; ``gitfile``: following a ``.git`` file; ``ident``: the identity
  ``git commit`` would use;
- ``refs``: branch names, locked ref updates and deletes, checked-out and rebased branches;
- ``state``: the trees and worktree a response is planned against, disk reads, dirty checks;
- ``index``: ``index.lock``, lock ownership, index entries with stat data;
  ``early_index``: the plain command's index read started before pygit2 is imported;
- ``filters``: converting between blob content and worktree bytes (eol, clean/smudge);
- ``journal``: the note that makes an interrupted run recoverable;
- ``transaction``: writing objects, files, the index and the ref as one transaction;
- ``githooks``: running the repository's hooks as ``git commit`` does;
- ``signing``: signing commits as ``git commit -S``.

Nothing is imported here, so that importing one module loads only what it needs; the
names below load their module on first use (``from git_aiapply.git import Repo``).
"""

# name -> module, for ``from git_aiapply.git import NAME``: loaded on first use only
_WHERE = {
    "Repo": "repo", "identity": "repo", "find_response_commit": "repo",
    "branch_refname": "refs", "short_branch": "refs", "update_ref": "refs",
    "delete_ref": "refs", "checked_out_branches": "refs", "branches_in_use": "refs",
    "TreeSnapshot": "state", "WorktreeSnapshot": "state", "read_disk": "state",
    "read_disk_as_git": "state", "dirty_paths": "state", "worktree_matches": "state",
    "plan_between": "state", "IndexLock": "index", "lock_owner": "index",
    "pid_alive": "index", "read_index": "index", "entry_with_stat": "index",
    "Journal": "journal", "interrupted_problem": "journal", "WorktreeWriter": "transaction",
    "Transaction": "transaction", "CommitRequest": "transaction",
    "CommitResult": "transaction", "commit_to_worktree": "transaction",
    "commit_to_branch": "transaction", "build_tree": "transaction",
    "empty_tree": "transaction", "write_blobs": "transaction", "valid_utf8": "transaction",
    "cleanup_whitespace": "githooks", "signer": "signing",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
