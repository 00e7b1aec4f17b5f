"""`git ai-apply recover`: repair what an interrupted run (a crash, SIGKILL, power cut of
the process) left behind.

The transaction (git.py) writes ``AI_APPLY_JOURNAL`` in the git dir before it touches the
worktree and removes it at the very end.  The journal names the branch that was to move,
the commit it pointed at, and for every touched path what the worktree held before and
what was being written.  From that and the branch's current tip, recovery decides:

- the branch has not moved: the commit never happened.  Every touched file is put back
  as it was (files the run created are removed, with the folders it made), the new index
  that was being prepared in ``index.lock`` is dropped: wholly *before*.
- the branch points at the run's commit (its parent is the journal's commit and its
  tree holds exactly what was being written): the commit happened and the worktree was
  already written.  The prepared index is installed if it was not yet: wholly *after*.
- anything else (the branch moved on since, a file was changed by hand since the crash):
  nothing is touched; the situation is explained, file by file.

Without a journal, a run killed before it touched the worktree may still have left
``index.lock`` (recognisable: it names the ai-apply process that held it) and temporary
files; they are removed when their process is gone.
"""
from __future__ import annotations

import json
import os
import re

import click

from .errors import AiApplyError, ApplyError, Problem

JOURNAL = "AI_APPLY_JOURNAL"
# temporary files in the git dir, with the pid of the process that made them
_GITDIR_TEMP = re.compile(r"^(?:index\.ai-apply-(\d+)(?:\.lock)?|next-index-ai-apply-(\d+)\.lock"
                          r"|AI_APPLY_JOURNAL\.ai-apply-(\d+)\.tmp)$")


def journal_path(gitdir: str) -> str:
    return os.path.join(gitdir, JOURNAL)


def interrupted_problem(gitdir: str) -> Problem | None:
    """A Problem when a journal is present (a run is going on, or one was interrupted),
    else None.  The apply command refuses then: the worktree may be half written."""
    path = journal_path(gitdir)
    if not os.path.exists(path):
        return None
    from .git import pid_alive

    pid = None
    try:
        with open(path) as f:
            pid = json.load(f).get("pid")
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(pid, int) and pid_alive(pid):
        return Problem(f"another git ai-apply (pid {pid}) is applying a response in this "
                       "repository", hint="wait for it to finish and run the command again")
    return Problem("a previous git ai-apply was interrupted while writing "
                   f"(its journal {path} is still there), so the worktree may be half written",
                   hint="run `git ai-apply recover` to put the repository back")


# --------------------------------------------------------------------------- the work


class Recovery:
    """What recovery found and did, as lines for the user."""

    def __init__(self, repo, dry_run: bool = False):
        self.repo = repo
        self.dry_run = dry_run
        self.done: list[str] = []
        self.problems: list[Problem] = []

    def act(self, what: str, fn=None, *args) -> None:
        if not self.dry_run and fn is not None:
            fn(*args)
        self.done.append(what if not self.dry_run else f"would {what}")


def _state_of(repo, path: str):
    from .git import read_disk

    return read_disk(repo.workdir, path)


def _matches(repo, st, want) -> bool:
    """Whether a worktree state (FileState or None) is the journal's [mode, id] (or None)."""
    import pygit2

    if want is None:
        return st is None
    if st is None:
        return False
    mode, oid = want
    if st.mode != mode and not (mode in (0o100644, 0o100755) and st.mode in (0o100644, 0o100755)
                                and not _filemode(repo)):
        return False
    return str(pygit2.hash(st.data)) == oid


def _filemode(repo) -> bool:
    return repo.config_bool("core.fileMode", True)


def _tip(repo, refname: str):
    """The commit id ``refname`` points at (HEAD: detached HEAD's target), or None."""
    r = repo.repo
    try:
        ref = r.lookup_reference(refname)
    except (KeyError, ValueError):
        return None
    try:
        return ref.resolve().target
    except (KeyError, ValueError):
        return None


def _tree_holds(repo, commit, final: dict) -> bool:
    tree = commit.tree
    for path, want in final.items():
        try:
            ent = tree[path]
        except KeyError:
            ent = None
        if want is None:
            if ent is not None:
                return False
        elif ent is None or str(ent.id) != want[1] or int(ent.filemode) != want[0]:
            return False
    return True


def _index_holds(index_path: str, final: dict) -> bool:
    import pygit2

    try:
        idx = pygit2.Index(index_path)
    except (pygit2.GitError, OSError, ValueError):
        return False
    for path, want in final.items():
        try:
            e = idx[path]
        except KeyError:
            e = None
        if want is None:
            if e is not None:
                return False
        elif e is None or str(e.id) != want[1] or int(e.mode) != want[0]:
            return False
    return True


def _restore(repo, path: str, want) -> None:
    """Put ``want`` ([mode, blob id] or None) at ``path`` through a temporary file."""
    from .git.state import refuse_symlinked_parent
    from .git.transaction import restore_file
    from .plan import FileState

    refuse_symlinked_parent(repo.workdir, path)
    full = os.path.join(repo.workdir, path)
    if want is None:
        if os.path.lexists(full):
            os.unlink(full)
        return
    # the journal holds the bytes as they are on disk (converted), so no conversion here
    restore_file(repo.workdir, path, FileState(want[0], repo.repo[want[1]].data))


def _rmdir_if_empty(repo, d: str) -> None:
    try:
        os.rmdir(os.path.join(repo.workdir, d))
    except OSError:
        pass


def _temp_files(repo, pid: int | None, paths) -> list[str]:
    """Temporary files of dead ai-apply processes (of ``pid`` only, when given): in the git
    dir, and next to the journal's paths in the worktree."""
    from .git import pid_alive

    out = []
    try:
        names = os.listdir(repo.gitdir)
    except OSError:
        names = []
    for name in names:
        m = _GITDIR_TEMP.match(name)
        if not m:
            continue
        owner = int(next(g for g in m.groups() if g))
        if (pid is None or owner == pid) and not pid_alive(owner):
            out.append(os.path.join(repo.gitdir, name))
    if pid is not None and repo.workdir:
        dirs = {os.path.dirname(p) for p in paths}
        pat = re.compile(rf"\.ai-apply-{pid}\.(?:tmp|restore)$")
        for d in sorted(dirs):
            full = os.path.join(repo.workdir, d)
            try:
                names = os.listdir(full)
            except OSError:
                continue
            out.extend(os.path.join(full, n) for n in names if pat.search(n))
    return out


def _remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def recover(repo, dry_run: bool = False) -> Recovery:
    """Inspect and (unless ``dry_run``) repair; problems in ``.problems`` mean nothing was
    changed and a person has to decide."""
    from .git import lock_owner, pid_alive

    rec = Recovery(repo, dry_run)
    jpath = journal_path(repo.gitdir)
    lock_path = os.path.join(repo.gitdir, "index.lock")
    index_path = os.path.join(repo.gitdir, "index")
    if not os.path.exists(jpath):
        owner = lock_owner(lock_path)
        if owner is not None and not pid_alive(owner):
            rec.act(f"remove {lock_path}, left by git ai-apply (pid {owner}), killed before it "
                    "changed the worktree", _remove_file, lock_path)
        for t in _temp_files(repo, None, []):
            rec.act(f"remove the temporary file {t}", _remove_file, t)
        return rec

    try:
        with open(jpath) as f:
            j = json.load(f)
        pid = int(j["pid"])
        head = j.get("head")
        originals: dict = j["paths"]
        final: dict = j.get("final") or {}
        # what was put on disk (differs from final in a CRLF or filtered checkout)
        written: dict = j.get("written") or final
        refname = j.get("branch") or "HEAD"
        made_dirs: list = j.get("made_dirs") or []
    except (OSError, ValueError, KeyError, TypeError) as e:
        rec.problems.append(Problem(f"the journal {jpath} cannot be read ({e})",
                                    hint="check `git status`; then remove the journal by hand"))
        return rec
    if pid_alive(pid):
        rec.problems.append(Problem(f"git ai-apply (pid {pid}) is still running in this "
                                    "repository", hint="wait for it to finish"))
        return rec
    if repo.workdir is None:
        rec.problems.append(Problem("the journal is in a bare repository; nothing to repair",
                                    hint=f"remove {jpath}"))
        return rec

    tip = _tip(repo, refname)
    tip_s = str(tip) if tip else None
    current = {p: _state_of(repo, p) for p in originals}
    if tip_s == head:
        # the commit was never made: back to before
        odd = [p for p in originals
               if not _matches(repo, current[p], originals[p])
               and not (p in written and _matches(repo, current[p], written[p]))]
        if odd:
            for p in odd:
                rec.problems.append(Problem(
                    f"{p} holds neither what it held before the interrupted run nor what the "
                    "run was writing; it was changed since", file=p,
                    hint="nothing was changed; put the file as you want it, then run "
                         "`git ai-apply recover` again (or remove the journal by hand)"))
            return rec
        for p in sorted(originals):
            if not _matches(repo, current[p], originals[p]):
                rec.act(f"restore {p} as it was before", _restore, repo, p, originals[p])
        for d in sorted(made_dirs, key=lambda d: -d.count("/")):
            if os.path.isdir(os.path.join(repo.workdir, d)):
                rec.act(f"remove the folder {d}/ if it is empty", _rmdir_if_empty, repo, d)
        if os.path.exists(lock_path):
            rec.act(f"drop the unfinished index {lock_path}", _remove_file, lock_path)
        outcome = "the interrupted run made no commit; the repository is as it was before it"
    else:
        commit = repo.repo.get(tip) if tip else None
        parents = [str(p) for p in commit.parent_ids] if commit is not None else []
        ours = commit is not None and parents == ([head] if head else []) \
            and _tree_holds(repo, commit, final)
        if not ours:
            rec.problems.append(Problem(
                f"{refname} moved since the interrupted run (it was at "
                f"{(head or 'no commit')[:12]}, it is at {(tip_s or 'no commit')[:12]}), so "
                "recover cannot tell what to put back",
                hint="nothing was changed; compare the files it touched ("
                     + ", ".join(sorted(originals)[:10]) + (", ..." if len(originals) > 10 else "")
                     + f") with `git status`, then remove {jpath} by hand"))
            return rec
        odd = [p for p in written if not _matches(repo, current.get(p), written[p])]
        if odd:
            for p in odd:
                rec.problems.append(Problem(
                    f"{p} does not hold what the interrupted run committed; it was changed since",
                    file=p, hint="nothing was changed; check `git status`, then run recover again"))
            return rec
        if os.path.exists(lock_path) and _index_holds(lock_path, final):
            rec.act(f"install the new index prepared in {lock_path}", os.replace, lock_path,
                    index_path)
        elif not _index_holds(index_path, final):
            rec.act("update the index to the interrupted run's commit", _stage_final, repo, final)
        outcome = (f"the interrupted run committed {str(tip)[:12]}; its commit, worktree and "
                   "index are complete")
    for t in _temp_files(repo, pid, originals):
        rec.act(f"remove the temporary file {t}", _remove_file, t)
    rec.act(f"remove the journal {jpath}", _remove_file, jpath)
    rec.done.append(outcome)
    return rec


def _stage_final(repo, final: dict) -> None:
    """Set the index entries of the journal's paths to what was committed (the index lock
    was removed by hand after the crash)."""
    import pygit2

    from .git.index import IndexLock, entry_with_stat

    lock = IndexLock(os.path.join(repo.gitdir, "index"))
    lock.acquire()
    try:
        index = lock.read()
        for path, want in final.items():
            if want is None:
                try:
                    index.remove(path)
                except (KeyError, OSError, pygit2.GitError):
                    pass
            else:
                entry_with_stat(index, path, pygit2.Oid(hex=want[1]), want[0], None)
        lock.stage(index)
        lock.install()
    finally:
        lock.release()


# --------------------------------------------------------------------------- command


@click.command("recover")
@click.option("-n", "--dry-run", is_flag=True, help="Say what would be done; change nothing.")
def recover_cmd(dry_run):
    """Repair what an interrupted git ai-apply left behind (journal, index.lock, temporary
    files): the repository ends wholly before or wholly after that run."""
    from .git import Repo

    repo = Repo(".")
    try:
        rec = recover(repo, dry_run=dry_run)
    except (OSError, AiApplyError) as e:
        raise ApplyError(f"recovery failed: {e}") from None
    if rec.problems:
        click.echo("error: recover cannot repair this automatically; nothing was changed.",
                   err=True)
        for p in rec.problems:
            click.echo(p.render(), err=True)
        raise SystemExit(1)
    if not rec.done:
        click.echo("nothing to recover: no interrupted git ai-apply left anything behind")
        return
    for line in rec.done:
        click.echo(line)
