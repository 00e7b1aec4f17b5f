"""The git edge of the tool: every pygit2 call lives in this package.

- ``repo``: opening the repository as git finds it, config (with ``git -c`` settings),
  history search; ``gitfile``: following a ``.git`` file; ``ident``: the identity
  ``git commit`` would use;
- ``refs``: branch names, locked ref updates and deletes, checked-out and rebased branches;
- ``state``: the trees and worktree a response is planned against, disk reads, dirty checks;
- ``index``: ``index.lock``, lock ownership, index entries with stat data;
  ``early_index``: the plain command's index read started before pygit2 is imported;
- ``filters``: converting between blob content and worktree bytes (eol, clean/smudge);
- ``journal``: the note that makes an interrupted run recoverable; ``leftovers``: what a
  killed process leaves that no name of ours marks (libgit2's object temporaries, a ref lock);
  ``commits_made``: the commits this process made and no report has named yet (what a
  Ctrl-C names);
- ``transaction``: writing objects, files, the index and the ref as one transaction;
- ``githooks``: running the repository's hooks as ``git commit`` does;
- ``signing``: signing commits as ``git commit -S``;
- ``clone_cache``: a batch job's repository named by URL: a node's bare clone of it, a
  fetch of a missing base, the push of a job's branch (the git program: it reaches servers).

Nothing is imported here, so that importing one module loads only what it needs; import
names from their module (``from git_aiapply.git.repo import Repo``).  Other stages import the
modules named in ``OPEN_MODULES``; the rest (config, filters, staging...) are the layer's own.
"""

OPEN_MODULES = ("base_commit", "checks", "clone_cache", "commits", "commits_made", "early_index", "githooks",
                "history", "ident", "index", "journal", "leftovers", "merge", "pick_change", "refs",
                "repo", "signing", "state",
                "take_back", "transaction", "verify_worktree", "worktree_files")
