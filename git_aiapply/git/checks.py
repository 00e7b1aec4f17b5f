"""The refusals the repository itself causes, one function each, and the one place to add
a git safety check: each is called read-only while planning (a clear answer before any
work) and again under ``index.lock`` by the transaction (what holds when it writes).

- ``refuse_interrupted``: a journal is present (a run going on, or one interrupted);
- ``refuse_in_progress``: a merge, rebase, cherry-pick or revert is in progress;
- ``refuse_unmerged``: the index holds unmerged entries;
- ``refuse_dirty``: a touched path differs between the worktree, the index and HEAD;
(A path through a symlinked folder is refused by ``state.refuse_symlinked_parent``, at
every write, where the walk is shared with the transaction's writer.)
- ``require_worktree``: a bare repository has nowhere to commit to the worktree.

Every refusal is a FatalError (the repository's state, exit 128) but the dirty one, an
ApplyError of kind ``dirty`` (exit 1: the user's files, docs/JSON.md)."""
from __future__ import annotations

import os

from ..errors import ApplyError, ErrorKind, FatalError, Problem

CLEAN_ONLY = "ai-apply only changes clean files"
CLEAN_HINT = "commit or stash your changes first, or pass --include-dirty to apply on top of them"


def refuse_interrupted(gitdir: str) -> None:
    """FatalError (``state``) when a journal is present: a run is going on, or one was
    interrupted and the worktree may be half written.  Its hint (wait, or `git ai-apply
    recover`) goes with it."""
    if not os.path.exists(os.path.join(gitdir, "AI_APPLY_JOURNAL")):
        return  # the common case, without importing the journal module
    from .journal import interrupted_problem

    problem = interrupted_problem(gitdir)
    if problem is not None:
        raise FatalError(f"{problem.reason}; nothing was changed", kind=ErrorKind.STATE,
                         hint=problem.hint)


def refuse_in_progress(repo) -> None:
    """FatalError (``state``) when a merge, rebase, cherry-pick or revert is in progress,
    as `git commit` refuses then."""
    what = repo.in_progress()
    if what is not None:
        raise in_progress_error(what)


def refuse_unmerged(index) -> None:
    """FatalError (``state``) when ``index`` holds unmerged entries, as `git commit`."""
    from .state import unmerged_paths

    unmerged = unmerged_paths(index)
    if unmerged:
        raise unmerged_error(unmerged)


def refuse_dirty(repo, index, base, paths, *, refusal: str = CLEAN_ONLY,
                 hint: str = CLEAN_HINT, restored=()) -> None:
    """ApplyError (``dirty``) naming every path of ``paths`` whose worktree, index and
    ``base`` (a TreeSnapshot of HEAD) disagree, and every path of ``restored`` (files the
    run puts back where HEAD has none: undo of a deletion) that is on disk again, which
    restoring would overwrite."""
    from .state import dirty_paths

    dirty = dirty_paths(repo, index, base, paths)
    named = {p for p, _why in dirty}
    dirty += [(p, "is in the worktree again (untracked); restoring it would overwrite that "
                  "file") for p in restored
              if p not in named and os.path.lexists(os.path.join(repo.workdir, p))]
    if dirty:
        raise ApplyError([Problem(f"{p} {why}; {refusal}", file=p, hint=hint)
                          for p, why in sorted(dirty)], kind=ErrorKind.DIRTY)


def require_worktree(repo, why: str | None = None) -> None:
    """A usage error in a bare repository (``why``; default: --branch commits there),
    git's own fatal error inside the git dir."""
    repo.require_worktree(why or "this is a bare repository: use --branch NAME to commit "
                                 "onto a branch")


def unmerged_error(paths: list[str]) -> FatalError:
    return FatalError("Committing is not possible because you have unmerged files ("
                      + ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "")
                      + "): fix them up in the worktree, `git add` them, and commit (or abort "
                      "the merge) first", kind=ErrorKind.STATE)


def in_progress_error(what: str) -> FatalError:
    how = {"a merge": "`git commit` or `git merge --abort`",
           "a cherry-pick": "`git cherry-pick --continue` or `--abort`",
           "a revert": "`git revert --continue` or `--abort`"}.get(
        what, "`git rebase --continue` or `git rebase --abort`")
    return FatalError(f"you are in the middle of {what}; finish it ({how}) before applying "
                      "a response", kind=ErrorKind.STATE)
