"""`git ai-apply recover`: repair what an interrupted run (a crash, SIGKILL, power cut of
the process) of apply, `pick` or `undo` left behind.

The transaction (git/transaction.py) writes ``AI_APPLY_JOURNAL`` in the git dir before it touches the
worktree and removes it at the very end.  The journal (JSON) holds:

- ``pid``: the process; ``kind``: the kind of run (git/journal.py's ``RunKind``: "apply",
  "pick" for a fast-forward pick, "undo", "no-commit", "cached");
- ``branch`` (None: detached HEAD) and ``head``: the commit it pointed at;
- ``moves_to``: the commit the branch was to point at when known beforehand (a
  fast-forward pick, undo; "unborn": undo of a root commit deletes the branch), else
  None (a commit yet to be made);
- ``paths``: for every touched path, what the worktree held before, as the bytes on disk
  (``[mode, blob id]`` of those exact bytes, stored as a blob: in a CRLF or filtered
  checkout they differ from the committed blob, and recovery must put back what was on
  disk); ``final``: what was to be committed there (``[mode, blob id]`` or None);
- ``written`` (optional): path -> [mode, blob id] of the bytes written to disk, when they
  differ from ``final`` (a CRLF or filtered checkout);
- ``made_dirs``: the folders writing would create;
- ``staged_index``: once the new index is written into ``index.lock``, that file's size
  and trailing checksum, so that recovery knows the lock as its own.

From that and the branch's current tip, recovery decides:

- the branch has not moved: the change never happened.  Every touched file is put back
  as it was (files the run created are removed, with the folders it made), the new index
  that was being prepared in ``index.lock`` is dropped: wholly *before*.
- the branch points where the run moved it (``moves_to``, or a new commit whose parent is
  ``head`` and whose tree holds exactly ``final``): the change happened and the worktree
  was already written.  The prepared index is installed if it was not yet: wholly *after*.
- anything else (the branch moved on since, a file was changed by hand since the crash):
  nothing is touched; the situation is explained, file by file (exit 128).

A file "holds" a committed blob when its bytes are that blob, or become it through the
repository's clean filters (eol, ``text``, filters), as `git status` judges.

Only the run's own lock is removed: ``index.lock`` is ours when it carries the owner line
of the journal's (dead) process, or is the staged index the journal describes.  A lock
anyone else holds (a running `git commit`) stops recovery with nothing changed (exit 128).
Without a journal, a run killed before it touched the worktree may still have left
``index.lock`` (recognisable: it names the ai-apply process that held it) and temporary
files; they are removed when their process is gone.
"""
from __future__ import annotations

import os
import re

from ..errors import ErrorKind, FatalError, Problem

# the journal and the checks on it are the git layer's (git/journal.py)
from ..git.journal import (STAGE_KINDS, JournalNote, RunKind, file_fingerprint, journal_path,
    read_journal)

# temporary files in the git dir, with the pid of the process that made them
_GITDIR_TEMP = re.compile(r"^(?:index\.ai-apply-(\d+)(?:\.lock)?"
                          r"|next-index-ai-apply-(\d+)\.lock(?:\.carry)?(?:\.lock)?"
                          r"|AI_APPLY_JOURNAL\.ai-apply-(\d+)\.tmp|index\.lock\.ai-apply-(\d+))$")

_BACKUP_DIR = re.compile(r"^ai-apply-backup-(\d+)$")


# --------------------------------------------------------------------------- the work


class Recovery:
    """What recovery found and did, as lines for the user."""

    def __init__(self, repo, dry_run: bool = False):
        self.repo = repo
        self.dry_run = dry_run
        self.done: list[str] = []
        self.problems: list[Problem] = []
        self.kept: list[str] = []  # files someone changed since the run: left as they are
        self.keep_files = False  # --keep-files: every touched file is kept as it is
        # the journal cannot be read, or is in a bare repository: --keep-files removes it
        self.journal_unusable = False

    def keep(self, path: str, why: str) -> None:
        """``path`` is someone's since the run: never written, named in the report."""
        self.kept.append(path)
        self.done.append(f"{'would keep' if self.dry_run else 'kept'} {path} as it is: {why}")

    def act(self, what: str, fn=None, *args) -> None:
        if not self.dry_run and fn is not None:
            fn(*args)
        self.done.append(what if not self.dry_run else f"would {what}")


def _state_of(repo, path: str):
    from ..git.state import read_disk

    return read_disk(repo.workdir, path)


def _is_on_disk(repo, st, want) -> bool:
    """Whether a worktree state (FileState or None) is exactly the bytes ``want`` names
    ([mode, id of those bytes], or None: nothing): git/state.py's test."""
    from ..git.state import is_on_disk

    return is_on_disk(repo, st, want)


def _run_left(repo, j: JournalNote, p: str, st, hooked: dict, *, before: bool) -> bool:
    """Whether the worktree state ``st`` of ``p`` is one the interrupted run left there
    (git/state.py's holds_run_state, the test a rollback makes too): what it was writing
    (committed or, converted, on disk), what its pre-commit hook staged for it (the hooks'
    index, when still there), or (``before``) what it held before the run."""
    from ..git.state import holds_run_state

    on_disk = [j.written[p]] if p in j.written else []
    if before:
        on_disk.append(j.paths.get(p))
    blobs = [j.final.get(p), hooked.get(p)]
    return holds_run_state(repo, p, st, on_disk=on_disk, blobs=blobs)


def _hooked(repo, j: JournalNote) -> dict:
    """path -> [mode, blob id] the interrupted run's hooks' index stages (empty without it)."""
    from ..git.index import entries_of

    if j.hook_index is None or os.path.basename(j.hook_index) != j.hook_index:
        return {}
    return entries_of(os.path.join(repo.gitdir, j.hook_index), list(j.paths))


def _restore(repo, path: str, want, perm: int | None = None, backup: str | None = None,
             pid: int | None = None) -> None:
    """Put back exactly the bytes ``want`` names ([mode, blob id of the bytes on disk], or
    None: remove) through a temporary file named for the interrupted run's ``pid`` and a
    rename.  Raw bytes on purpose: they are what the file held on disk, already converted
    (WorktreeWriter writes what git would check out, which would convert them a second
    time)."""
    from ..git.history import blob_data
    from ..git.state import refuse_symlinked_parent
    from ..git.worktree_files import restore_file
    from ..plan.plan import FileState

    refuse_symlinked_parent(repo.workdir, path)  # never through a link (a swapped folder)
    full = os.path.join(repo.workdir, path)
    if want is None:
        if os.path.lexists(full):
            os.unlink(full)
        return
    if os.path.isdir(full) and not os.path.islink(full):
        raise OSError(f"cannot restore {path}: a folder is in the way")
    if backup is not None and _is_on_disk(repo, _backup_state(backup), want):
        # the very file the run kept (a hard link): renamed back, no space needed
        os.makedirs(os.path.dirname(full), exist_ok=True)  # a deletion removed the folder
        os.replace(backup, full)
        return
    restore_file(repo.workdir, path, FileState(want[0], blob_data(repo, want[1])), perm, pid)


def _backup_state(backup: str):
    """The state of a backup file (as read_disk reads a worktree file), or None."""
    from ..git.state import read_disk_here

    return read_disk_here(os.path.dirname(backup), os.path.basename(backup))


def _rmdir_if_empty(repo, d: str) -> None:
    try:
        os.rmdir(os.path.join(repo.workdir, d))
    except OSError:
        pass


def _index_file_temps(repo, pid: int | None, found: list[str], index: str | None) -> list[str]:
    """The index lock's temporary names (git/index.py) next to an index elsewhere than
    the git dir (GIT_INDEX_FILE): INDEX.ai-apply-PID and INDEX.lock.ai-apply-PID."""
    from ..git.index import pid_alive

    folder, base = os.path.split(index or repo.index_path())
    if os.path.realpath(folder) == os.path.realpath(repo.gitdir):
        return []  # found with the git dir's own
    pat = re.compile(rf"^{re.escape(base)}(?:\.lock)?\.ai-apply-(\d+)$")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    out = []
    for name in names:
        m = pat.match(name)
        owner = int(m.group(1)) if m else None
        if owner is not None and (pid is None or owner == pid) and not pid_alive(owner):
            full = os.path.join(folder, name)
            if full not in found:
                out.append(full)
    return out


def _temp_files(repo, pid: int | None, paths, recorded=(), index: str | None = None) -> list[str]:
    """Temporary files of dead ai-apply processes (of ``pid`` only, when given): in the git
    dir, the journal's ``recorded`` temporary names, and others of ``pid`` next to the
    journal's paths in the worktree."""
    out = _gitdir_temps(repo, pid)
    out += _index_file_temps(repo, pid, out, index)
    if pid is not None and repo.workdir:
        _add_worktree_temps(repo, pid, paths, recorded, out)
    return out


def _gitdir_temps(repo, pid: int | None) -> list[str]:
    """The temporary files in the git dir of dead ai-apply processes (of ``pid`` only)."""
    from ..git.index import pid_alive

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
    return out


def _add_worktree_temps(repo, pid: int, paths, recorded, out: list[str]) -> None:
    """Add to ``out`` the journal's ``recorded`` temporary names that exist, then the
    others of ``pid`` in the folders of the journal's paths."""
    for t in recorded:
        full = os.path.join(repo.workdir, t)
        if os.path.lexists(full) and not os.path.isdir(full) and full not in out:
            out.append(full)
    dirs = {os.path.dirname(p) for p in paths}
    # the names of this version (a hash of the path) and of older ones
    pat = re.compile(rf"\.ai-apply-{pid}(?:-[0-9a-f]+)?\.(?:tmp|restore)$")
    for d in sorted(dirs):
        full = os.path.join(repo.workdir, d)
        try:
            names = os.listdir(full)
        except OSError:
            continue
        out.extend(os.path.join(full, n) for n in names
                   if pat.search(n) and os.path.join(full, n) not in out)


def _remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _lock_is_ours(lock_path: str, journal: "JournalNote | None", pid: int | None) -> bool:
    """Whether ``index.lock`` is the interrupted run's own: it still carries the owner line
    of that (dead) process, or it is the staged index the journal describes."""
    from ..git.index import lock_owner

    owner = lock_owner(lock_path)
    if owner is not None:
        return owner == pid
    if journal is None or not journal.staged_index:
        return False
    try:
        return file_fingerprint(lock_path) in journal.staged_index
    except OSError:
        return False


def lock_holder(lock_path: str) -> str:
    """Who holds a lock that is not ours, as well as can be told."""
    from ..git.index import lock_owner, pid_alive

    owner = lock_owner(lock_path)
    if owner is not None:
        return (f"git ai-apply (pid {owner}), still running" if pid_alive(owner)
                else f"another interrupted git ai-apply (pid {owner})")
    from ..git.leftovers import open_by

    found = (open_by([lock_path]) or {}).get(lock_path, [])
    holders = [f"pid {pid} ({cmd})" for pid, cmd in found]
    if holders:
        return ", ".join(holders)
    return ("another git process (the file was not written by git ai-apply; git holds it "
            "while it writes the index, e.g. during `git commit`)")


def _foreign_lock(lock_path: str) -> FatalError:
    return FatalError(
        f"{lock_path} is held by {lock_holder(lock_path)}, not by the interrupted git "
        "ai-apply; recover changed nothing.\n"
        "hint: wait for that process to finish and run `git ai-apply recover` again; if no "
        "git process is running, a crashed one left the file: remove it by hand first",
        kind=ErrorKind.LOCK)


def recover(repo, dry_run: bool = False, keep_files: bool = False) -> Recovery:
    """Inspect and (unless ``dry_run``) repair; problems in ``.problems`` mean nothing was
    changed and a person has to decide (each names a way on: a step of theirs that changes
    what recover finds, or ``keep_files``).  Raises FatalError when another process holds
    ``index.lock``.  A file someone changed since the run is always kept as it is and
    named (``.kept``); ``keep_files`` (``--keep-files``) keeps every touched file as it is
    and finishes even where recover cannot tell what the run did: the run's index lock,
    temporary files and journal are removed, nothing else is written."""
    from ..git.history import ref_tip, run_side

    repo.refuse_inside_gitdir()  # the worktree to repair is not known from there (as git)
    rec = Recovery(repo, dry_run)
    rec.keep_files = keep_files
    jpath = journal_path(repo.gitdir)
    if not os.path.exists(jpath):
        # the index git uses (GIT_INDEX_FILE)
        _clean_up_without_journal(rec, repo, repo.index_path() + ".lock")
        return rec
    j = _journal_to_act_on(rec, repo, jpath)
    if j is None:
        if keep_files and rec.journal_unusable:
            rec.problems = []
            rec.act(f"remove the journal {jpath}", _remove_file, jpath)
            _clean_up_without_journal(rec, repo, repo.index_path() + ".lock")
        return rec
    lock_path = _index_of(repo, j) + ".lock"  # the run's index, whatever GIT_INDEX_FILE is now
    has_lock = os.path.lexists(lock_path)
    if has_lock and not _lock_is_ours(lock_path, j, j.pid):
        raise _foreign_lock(lock_path)

    tip = ref_tip(repo, j.branch)
    current = {p: _state_of(repo, p) for p in j.paths}
    side, why = run_side(repo, j, tip)
    if side is None and keep_files:
        _keep_all(rec, repo, j, has_lock, lock_path)
        rec.act(f"remove the journal {jpath}", _remove_file, jpath)
        rec.done.append(f"every file the interrupted {_what(j.kind)} touched is kept as it "
                        "is (--keep-files); the index is as it was before the run")
        return rec
    if side is None:
        rec.problems.append(_undecidable(j, tip, why))
        return rec
    moved_on = side.endswith("-moved")
    if side.startswith("before"):
        if not _back_to_before(rec, repo, j, current, has_lock, lock_path, moved_on):
            return rec
        outcome = _before_outcome(j, why, moved_on)
    else:
        if not _complete(rec, repo, j, current, has_lock, lock_path, moved_on):
            return rec
        outcome = _finish_after(rec, repo, j, tip, why, moved_on)
    rec.act(f"remove the journal {jpath}", _remove_file, jpath)
    if rec.kept:
        outcome += (f", but for {', '.join(rec.kept)}, kept as "
                    + ("they are" if len(rec.kept) > 1 else "it is"))
    rec.done.append(outcome)
    return rec


def _keep_all(rec: Recovery, repo, j: JournalNote, has_lock: bool, lock_path: str) -> None:
    """--keep-files where recover cannot tell what the run did: every touched file stays
    as it is (named), the run's own index lock and its temporary files go."""
    for p in sorted(j.paths):
        rec.keep(p, "--keep-files")
    if has_lock:
        rec.act(f"drop the unfinished index {lock_path}", _remove_file, lock_path)
    _remove_temps(rec, repo, j.pid, j.paths, j.temps, index=j.index, refname=j.branch)


def _index_of(repo, j: JournalNote) -> str:
    """The index file the interrupted run wrote (the journal's ``index``; journals of older
    versions: the one git uses now)."""
    return j.index or repo.index_path()


def _clean_up_without_journal(rec: Recovery, repo, lock_path: str) -> None:
    """No journal: a run killed before it touched the worktree may have left
    ``index.lock`` (naming its dead process) and temporary files; a run whose journal was
    removed by hand after it staged its index left the lock without that name, known
    then by the hooks' index the same dead run left (``_staged_by_dead_run``)."""
    from ..git.index import lock_owner, pid_alive

    owner = lock_owner(lock_path)
    if owner is not None and not pid_alive(owner):
        rec.act(f"remove {lock_path}, left by git ai-apply (pid {owner}), killed before it "
                "changed the worktree", _remove_file, lock_path)
    elif owner is None and (owner := _staged_by_dead_run(repo, lock_path)) is not None:
        rec.act(f"drop the unfinished index {lock_path}, left by git ai-apply (pid "
                f"{owner}); the index is as it was before that run", _remove_file, lock_path)
    _remove_temps(rec, repo, None, [], [])


_HOOK_INDEX = re.compile(r"^next-index-ai-apply-(\d+)\.lock$")


def _staged_by_dead_run(repo, lock_path: str) -> int | None:
    """The pid of the dead git ai-apply whose staged index ``lock_path`` is, told without
    its journal: that run gave its commit hooks an index in the git dir
    (index.hook_index_name), a hard link to the lock or a file made (or re-staged by a
    hook) after it; a lock taken by a git process since the run died is newer than it.
    None when no such run is found."""
    from ..git.index import pid_alive

    try:
        lock = os.stat(lock_path)
        names = os.listdir(repo.gitdir)
    except OSError:
        return None
    for name in names:
        m = _HOOK_INDEX.match(name)
        if not m or pid_alive(int(m.group(1))):
            continue
        try:
            hooks = os.stat(os.path.join(repo.gitdir, name))
        except OSError:
            continue
        if (hooks.st_dev, hooks.st_ino) == (lock.st_dev, lock.st_ino) \
                or lock.st_mtime_ns <= hooks.st_mtime_ns:
            return int(m.group(1))
    return None


def _journal_to_act_on(rec: Recovery, repo, jpath: str) -> JournalNote | None:
    """The journal, when recovery can act on it; else None, with the problem: it cannot
    be read, its process is still running, or the repository is bare."""
    from ..git.index import pid_alive

    try:
        j = read_journal(jpath)
    except (OSError, ValueError) as e:
        rec.journal_unusable = True
        rec.problems.append(Problem(f"the journal {jpath} cannot be read ({e})",
                                    hint="check `git status`; then run `git ai-apply recover --keep-files` (it keeps "
                                         "every file as it is and removes the journal)"))
        return None
    if pid_alive(j.pid):
        rec.problems.append(Problem(f"git ai-apply (pid {j.pid}) is still running in this "
                                    "repository", hint="wait for it to finish"))
        return None
    hooks = _hooks_still_running(repo, j)
    if hooks:
        rec.problems.append(Problem(
            "a hook of the interrupted git ai-apply is still running ("
            + ", ".join(f"pid {pid}: {cmd}" for pid, cmd in hooks) + "); it may still "
            "change files or the index", hint="wait for it to finish (or stop it), then run "
                                              "`git ai-apply recover` again"))
        return None
    if repo.workdir is None:
        rec.journal_unusable = True
        rec.problems.append(Problem("the journal is in a bare repository; nothing to repair",
                                    hint="run `git ai-apply recover --keep-files` to remove it"))
        return None
    return j


def _hooks_still_running(repo, j: JournalNote) -> list[tuple[int, str]]:
    """The commit hooks of the interrupted run still running: killed, it left them
    orphaned, and they have its hooks' index as GIT_INDEX_FILE (git/leftovers.py)."""
    from ..git.leftovers import with_environment

    if j.hook_index is None or os.path.basename(j.hook_index) != j.hook_index:
        return []
    return with_environment("GIT_INDEX_FILE", os.path.join(repo.gitdir, j.hook_index))


def _undecidable(j: JournalNote, tip, why: str) -> Problem:
    """The branch moved since in a way that hides whether the run happened."""
    tip_s = str(tip) if tip else None
    originals = j.paths
    return Problem(
        f"{j.branch} moved since the interrupted {_what(j.kind)} (it was at "
        f"{(j.head or 'no commit')[:12]}, it is at {(tip_s or 'no commit')[:12]}) and {why}, "
        "so recover cannot tell what to put back",
        hint="nothing was changed; compare the files it touched ("
             + ", ".join(sorted(originals)[:10]) + (", ..." if len(originals) > 10 else "")
             + ") with `git status`, then run `git ai-apply recover --keep-files` (it keeps "
             "every file as it is and removes the run's lock and journal)")


def _before_outcome(j: JournalNote, why: str, moved_on: bool) -> str:
    """What recovery says when the run did not happen."""
    kind = j.kind
    return (f"the interrupted {_what(kind)} "
            f"{'changed nothing' if kind == RunKind.UNDO else 'made no commit'}; "
            + (f"{_short(j.branch)} moved on since ({why}) without touching its files, "
               "which are as they were before it" if moved_on
               else "the repository is as it was before it"))


def _finish_after(rec: Recovery, repo, j: JournalNote, tip, why: str, moved_on: bool) -> str:
    """The last steps of a run that happened (ORIG_HEAD after an undo, the temporary
    files), and what recovery says of it."""
    kind, head, refname = j.kind, j.head, j.branch
    if kind == RunKind.UNDO and head:
        rec.act(f"set ORIG_HEAD to the undone commit {head[:12]}", _write_orig_head,
                repo, head)
    if kind in STAGE_KINDS:
        outcome = (f"the interrupted --{kind} run staged its changes"
                   f"{' (index only)' if kind == RunKind.CACHED else ''}; nothing was committed")
    elif kind == RunKind.UNDO:
        tip_s = str(tip) if tip else None
        outcome = (f"the interrupted undo took back {head[:12]}; {_short(refname)}"
                   f" is at {(tip_s or 'no commit (unborn)')[:12]}, worktree and index match")
    else:
        outcome = (f"the interrupted {_what(kind)} committed "
                   f"{why if moved_on else str(tip)[:12]}; its commit, worktree and index "
                   "are complete" + (f" ({_short(refname)} moved on since)" if moved_on else ""))
    _remove_temps(rec, repo, j.pid, j.paths, j.temps, index=j.index, refname=j.branch)
    return outcome


def _short(refname: str) -> str:
    return refname[len("refs/heads/"):] if refname.startswith("refs/heads/") else refname


def _back_to_before(rec: Recovery, repo, j: JournalNote, current: dict, has_lock: bool,
                    lock_path: str, moved_on: bool) -> bool:
    """Plan (and unless a dry run, do) the way back to before the run; False, with
    problems, when a file was changed since."""
    kept = _keep_changed_since(rec, repo, j, current)
    if rec.keep_files:  # every file as it is, the ones the run left too
        for p in sorted(set(j.paths) - kept):
            if not _is_on_disk(repo, current[p], j.paths[p]):
                rec.keep(p, "--keep-files")
        kept = set(j.paths)
    if moved_on and not rec.keep_files:
        _refuse_staged_since(rec, repo, j)
    if rec.problems:
        return False
    _put_back(rec, repo, j, current, kept)
    if has_lock:
        rec.act(f"drop the unfinished index {lock_path}", _remove_file, lock_path)
    return True


def _keep_changed_since(rec: Recovery, repo, j: JournalNote, current: dict) -> set[str]:
    """The touched files holding neither what they held before the run nor what the run
    was writing (committed or, converted, on disk): someone changed them since, so they are
    the user's and kept as they are (never overwritten); each is named in the report, with
    the blob that holds what it was before the run."""
    hooked = _hooked(repo, j)
    odd = [p for p in j.paths if not _run_left(repo, j, p, current[p], hooked, before=True)]
    for p in odd:
        was = j.paths.get(p)
        rec.keep(p, "it was changed since the interrupted run"
                 + (f"; what it held before the run: `git cat-file -p {was[1]}`" if was else ""))
    return set(odd)


def _put_back(rec: Recovery, repo, j: JournalNote, current: dict, kept: set) -> None:
    """Every touched file as it was (but the ``kept`` ones), the folders the run made
    gone, the temporary files and backups removed."""
    originals = j.paths
    # new files out first, then the folders the run made, then the old files back: a file
    # replaced by a folder (x -> x/y) needs the folder x gone before x returns
    restore = [p for p in sorted(originals) if p not in kept
               and not _is_on_disk(repo, current[p], originals[p])]
    for p in [p for p in restore if originals[p] is None]:
        rec.act(f"restore {p} as it was before", _restore, repo, p, originals[p],
                j.perms.get(p), _backup_of(repo, j.pid, p), j.pid)
    # temporary files before the folders they are in; the backups only after the old
    # files are renamed back from them (no free space needed: a full disk's case)
    _remove_temps(rec, repo, j.pid, originals, j.temps, backups=False, index=j.index,
                  refname=j.branch)
    for d in sorted(j.made_dirs, key=lambda d: -d.count("/")):
        if os.path.isdir(os.path.join(repo.workdir, d)):
            rec.act(f"remove the folder {d}/ if it is empty", _rmdir_if_empty, repo, d)
    for p in [p for p in restore if originals[p] is not None]:
        rec.act(f"restore {p} as it was before", _restore, repo, p, originals[p],
                j.perms.get(p), _backup_of(repo, j.pid, p), j.pid)
    _remove_backups(rec, repo, j.pid)


def _refuse_staged_since(rec: Recovery, repo, j: JournalNote) -> None:
    """After the branch moved on, the index is the user's: a run file staged since (its
    entry is not the branch's) means someone chose it; recover does not undo that."""
    from ..git.history import entries_at_commit, index_differs

    base = entries_at_commit(repo, j.head, j.paths)
    for p in index_differs(_index_of(repo, j), base):
        rec.problems.append(Problem(
            f"{p} is staged differently from the branch since the interrupted run",
            file=p, hint="nothing was changed; unstage it (`git restore --staged "
                         f"{p}`) and run `git ai-apply recover` again, or keep every file "
                         "as it is with `git ai-apply recover --keep-files`"))


def _complete(rec: Recovery, repo, j: JournalNote, current: dict, has_lock: bool,
              lock_path: str, moved_on: bool) -> bool:
    """Plan (and do) the rest of a run whose commit was made; False, with problems, when a
    file was changed since."""
    from ..git.index import index_holds

    final = j.final
    index_path = _index_of(repo, j)
    # --cached wrote no worktree file: only the index is the run's
    hooked = _hooked(repo, j)
    odd = [p for p in final if j.kind != RunKind.CACHED
           and not _run_left(repo, j, p, current.get(p), hooked, before=False)]
    for p in odd:  # the user's since: kept as it is, and the rest of the run completed
        rec.keep(p, f"it does not hold what the interrupted {_what(j.kind)} left there; it "
                    "was changed since (`git diff` shows how it differs from the commit)")
    # after the branch moved on, the staged index predates the later commits: only the
    # run's own entries are set in the index
    if has_lock and not moved_on and index_holds(lock_path, final):
        rec.act(f"install the new index prepared in {lock_path}", os.replace, lock_path,
                index_path)
        return True
    if has_lock:
        rec.act(f"drop the unfinished index {lock_path}", _remove_file, lock_path)
    if not index_holds(index_path, final):
        rec.act("update the index to the interrupted run's result", _stage_final, index_path,
                final)
    return True


def _remove_temps(rec: Recovery, repo, pid: int | None, paths, recorded,
                  backups: bool = True, index: str | None = None,
                  refname: str | None = None) -> None:
    """Remove the temporary files and (``backups``) the backup folder of ``pid`` (None:
    of any dead ai-apply process), the loose objects a killed writer left half made, and
    the lock of the run's ref ``refname`` its death left (git/leftovers.py)."""
    from ..git import leftovers

    for t in _temp_files(repo, pid, paths, recorded, index):
        if rec.dry_run or os.path.lexists(t):
            rec.act(f"remove the temporary file {t}", _remove_file, t)
    for t in leftovers.object_temps(os.path.join(repo.commondir, "objects")):
        rec.act(f"remove the unfinished object file {t}", _remove_file, t)
    lock = leftovers.ref_lock(repo.gitdir, repo.commondir, refname)
    if lock is not None:
        rec.act(f"remove the lock {lock}, left by the interrupted run", _remove_file, lock)
    if backups:
        _remove_backups(rec, repo, pid)
    from ..git import verify_worktree

    for wt in verify_worktree.stale(repo.commondir):
        rec.act(f"remove the temporary --verify worktree {wt} and its registration",
                verify_worktree.remove, repo.commondir, wt)


def _remove_backups(rec: Recovery, repo, pid: int | None) -> None:
    for d in _backup_dirs(repo, pid):
        rec.act(f"remove the backups {d}", _remove_tree, d)


def _backup_of(repo, pid: int, path: str) -> str | None:
    """Where the run kept a hard link to ``path``'s file (transaction.backup_dir)."""
    from ..git.journal import backup_dir, backup_name

    name = os.path.join(backup_dir(repo.gitdir, pid), backup_name(path))
    return name if os.path.lexists(name) else None


def _backup_dirs(repo, pid: int | None) -> list[str]:
    """The backup folders (transaction.backup_dir) of ``pid``, or of any dead process."""
    from ..git.index import pid_alive

    try:
        names = os.listdir(repo.gitdir)
    except OSError:
        return []
    out = []
    for name in names:
        m = _BACKUP_DIR.match(name)
        if m and (pid is None or int(m.group(1)) == pid) and not pid_alive(int(m.group(1))):
            out.append(os.path.join(repo.gitdir, name))
    return sorted(out)


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path)


def _what(kind: str) -> str:
    return "undo" if kind == RunKind.UNDO else "run"


def _write_orig_head(repo, head: str) -> None:
    with open(os.path.join(repo.gitdir, "ORIG_HEAD"), "w") as f:
        f.write(f"{head}\n")


def _stage_final(index_path: str, final: dict) -> None:
    """Set the index entries of the journal's paths to what was committed (the index lock
    was removed by hand after the crash)."""
    from ..git.index import stage_entries

    stage_entries(index_path, final)
