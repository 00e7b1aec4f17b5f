"""The journal: a note in the git dir while the worktree is being changed, so that a
crash in the middle can be told apart and undone (``git ai-apply recover``), and the
check every writing command makes first (is a run going on, or was one interrupted?)."""
from __future__ import annotations

import hashlib
import json
import os
import time
from enum import StrEnum

from ..errors import Problem
from ..record import record
from .faults import remove_file

JOURNAL = "AI_APPLY_JOURNAL"


def journal_path(gitdir: str) -> str:
    return os.path.join(gitdir, JOURNAL)


# how temporary names are made, as the journal records it (``temps``): recover derives
# each path's names from it rather than the journal listing them (100,000 new files would
# add megabytes to it)
TEMP_SCHEME = "sha1-16"
TEMP_KINDS = ("tmp", "restore")


class RunKind(StrEnum):
    """The kind of run a journal records (``kind``), as the Transaction is told it: its
    string values are what journals on disk hold, so any version's recover reads them."""

    APPLY = "apply"
    PICK = "pick"  # a fast-forward pick (a merged pick is an "apply")
    UNDO = "undo"
    NO_COMMIT = "no-commit"
    CACHED = "cached"


# the kinds of a run that stages without committing: --no-commit writes the worktree and
# the index, --cached the index only; no ref moves, so recover decides on the index alone
STAGE_KINDS = (RunKind.NO_COMMIT, RunKind.CACHED)


def temp_name(path: str, pid: int, kind: str) -> str:
    """The temporary name (worktree-relative) next to ``path`` for process ``pid``;
    ``kind``: "tmp" (a file being written) or "restore" (a file being put back).  Made
    from a short hash of the path, never from the file name, so that it fits the file
    system's name limit (255 bytes) whatever the name; the journal records these names
    (``temps``) for ``recover``."""
    digest = hashlib.sha1(os.fsencode(path)).hexdigest()[:16]
    return os.path.join(os.path.dirname(path), f".ai-apply-{pid}-{digest}.{kind}")


def backup_dir(gitdir: str, pid: int) -> str:
    """The folder of process ``pid``'s backups (the hard links WorktreeWriter keeps of
    the files it replaces or deletes) in ``gitdir``."""
    return os.path.join(gitdir, f"ai-apply-backup-{pid}")


def backup_name(path: str) -> str:
    """A backup's name in ``backup_dir``: a hash of the path, never too long."""
    return os.path.basename(temp_name(path, 0, "orig"))


class Journal:
    """``AI_APPLY_JOURNAL``: written before the first worktree change, removed last.

    Format (a JSON object): ``pid``; ``head`` (the commit the ref pointed at); ``branch``
    (the ref that moves, None: detached HEAD); ``paths``: path -> [mode, blob id of the
    bytes that were on disk] or None (recover restores exactly those bytes); ``final``:
    path -> [mode, blob id] or None, what is committed; ``written``: path -> [mode, blob
    id of the bytes written to disk] (differs from ``final`` in a CRLF or filtered
    checkout); ``made_dirs``: folders the writing creates; ``kind``: the command;
    ``moves_to``: the commit the ref will point at when known beforehand (a fast-forward
    pick, undo; "unborn": undo of a root commit deletes the branch), None for a commit yet
    to be made; ``index``: the index file the run writes (``GIT_INDEX_FILE`` or the git
    dir's ``index``), whose ``.lock`` it holds; ``staged_index``: once the new index is in
    ``index.lock``, that file's size and trailing checksum, so that recover knows the lock
    as the run's own, and ``staged_indexes``: each of them the lock has been (the index a
    pre-commit hook re-staged is noted before it replaces the lock, so that no hook's
    ``git add`` makes the note stale); ``hook_index``: the index the commit hooks are given
    (``GIT_INDEX_FILE``), a temporary file of the run in the git dir; ``perms``:
    path -> permission bits of a regular file that was there (recover puts them back
    exactly), only where they are not what git would make; ``temps``: how the
    temporary names the run may leave in the worktree are made (TEMP_SCHEME: ``temp_name``
    of each path); ``backups``: the folder in the git dir holding hard links to the files
    replaced or deleted (transaction.backup_dir), removed by recover.  ``read_journal`` reads it back for recover.py."""

    def __init__(self, gitdir: str):
        self.path = journal_path(gitdir)
        self.active = False
        self._data: dict = {}

    def begin(self, originals: dict, head_id, *, final: dict | None = None,
              written: dict | None = None, branch: str | None = None,
              workdir: str | None = None, kind: str = "apply", moves_to=None,
              perms: dict | None = None, index: str | None = None) -> None:
        made_dirs: list[str] = []
        if workdir and final:
            looked: set[str] = set()  # folders already looked at (made or there)
            for p, ent in final.items():
                d = os.path.dirname(p)
                while ent is not None and d and d not in looked:
                    looked.add(d)
                    if os.path.isdir(os.path.join(workdir, d)):
                        break
                    made_dirs.append(d)
                    d = os.path.dirname(d)

        def ids(entries):
            return {p: ([int(e[0]), str(e[1])] if e else None) for p, e in (entries or {}).items()}

        data = {"pid": os.getpid(), "head": str(head_id) if head_id else None,
                "paths": originals, "branch": branch, "time": int(time.time()),
                "final": ids(final), "written": ids(written), "made_dirs": made_dirs,
                "kind": kind, "moves_to": str(moves_to) if moves_to is not None else None,
                "perms": perms or {}, "index": index,
                "hook_index": _hook_index_name(),
                "temps": TEMP_SCHEME,
                "backups": os.path.basename(backup_dir("", os.getpid()))}
        self._write(data)
        self.active = True

    def note_staged_index(self, path: str, final: dict | None = None) -> None:
        """Record which file the staged ``index.lock`` is (its size and trailing checksum),
        before ``path`` becomes it: staging replaced the lock's owner line, and recover
        must tell our lock from one a git process took after the crash.  ``final``: path ->
        (mode, id) or None, the committed entries a pre-commit hook changed (what the run
        now commits there)."""
        mark = file_fingerprint(path)
        self._data["staged_index"] = mark
        self._data.setdefault("staged_indexes", []).append(mark)
        if final:
            self._data["final"] = {**self._data.get("final", {}), **{
                p: ([int(e[0]), str(e[1])] if e else None) for p, e in final.items()}}
        self._write(self._data)

    def paths(self) -> list[str]:
        """The worktree paths the run touches (``paths``)."""
        return sorted(self._data.get("paths") or {})

    def before(self) -> dict:
        """path -> [mode, id] of what was on disk before the run, or None (``paths``)."""
        return dict(self._data.get("paths") or {})

    def _write(self, data: dict) -> None:
        self._data = data
        tmp = f"{self.path}.ai-apply-{os.getpid()}.tmp"
        text = json.dumps(data)  # in one piece: json.dump encodes item by item, in Python
        try:
            with open(tmp, "w") as f:
                f.write(text)  # no fsync: like git (core.fsync unset), safe against a
                # killed process, not against power loss
            os.replace(tmp, self.path)
        except BaseException:
            remove_file(tmp)  # a full disk: nothing half written left behind
            raise

    def end(self) -> None:
        if self.active:
            try:
                remove_file(self.path)
            except OSError:
                pass  # left behind: the next run notices it and `recover` explains it
            self.active = False


def _hook_index_name() -> str:
    from .index import hook_index_name

    return hook_index_name(os.getpid())


def file_fingerprint(path: str) -> list:
    """[size, hex of the last 32 bytes] of a written index file (its trailing checksum):
    how the journal names the staged ``index.lock``."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 32))
        tail = f.read()
    return [size, tail.hex()]


@record
class JournalNote:
    """What an interrupted run's journal says (the fields of ``Journal``'s format)."""

    pid: int
    head: str | None
    paths: dict  # path -> [mode, blob id] of what was on disk, or None
    final: dict
    written: dict
    branch: str  # the ref that moves ("HEAD": detached)
    made_dirs: list
    moves_to: str | None
    kind: str
    staged_index: list  # every [size, checksum] the staged index.lock has been
    perms: dict  # path -> permission bits (journals of older versions: empty)
    temps: list  # worktree-relative temporary names, from TEMP_SCHEME (older: empty)
    index: str | None = None  # the index file of the run (journals of older versions: None)
    hook_index: str | None = None  # the file name of the hooks' index in the git dir


def read_journal(path: str) -> JournalNote:
    """The journal at ``path``; raises OSError, or ValueError for one that is not the
    journal's format (a person has to look)."""
    with open(path) as f:
        j = json.load(f)
    try:
        staged = j.get("staged_index")
        return JournalNote(
            pid=int(j["pid"]), head=j.get("head"), paths=dict(j["paths"]),
            final=j.get("final") or {}, written=j.get("written") or {},
            branch=j.get("branch") or "HEAD", made_dirs=j.get("made_dirs") or [],
            moves_to=j.get("moves_to"), kind=j.get("kind") or "apply",
            staged_index=_fingerprints(j.get("staged_indexes"), staged),
            index=j.get("index") if isinstance(j.get("index"), str) else None,
            hook_index=j.get("hook_index") if isinstance(j.get("hook_index"), str) else None,
            perms=dict(j.get("perms") or {}),
            temps=[temp_name(p, int(j["pid"]), k) for p in j["paths"] for k in TEMP_KINDS]
            if j.get("temps") == TEMP_SCHEME else [])
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{type(e).__name__}: {e}") from None


def _fingerprints(many, one) -> list:
    """The fingerprints a journal names (``staged_indexes``; older journals: the one
    ``staged_index``), each [size, hex]."""
    marks = many if isinstance(many, list) else [one]
    return [m for m in marks if isinstance(m, list) and len(m) == 2]


def interrupted_problem(gitdir: str) -> Problem | None:
    """A Problem when a journal is present (a run is going on, or one was interrupted),
    else None.  Writing commands refuse then: the worktree may be half written."""
    path = journal_path(gitdir)
    if not os.path.exists(path):
        return None
    from .index import pid_alive

    pid = None
    try:
        with open(path) as f:
            pid = json.load(f).get("pid")
    except FileNotFoundError:
        return None  # removed since the check: its run just finished
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(pid, int) and pid_alive(pid):
        return Problem(f"another git ai-apply (pid {pid}) is applying a response in this "
                       "repository", hint="wait for it to finish and run the command again")
    if not os.path.exists(path):
        return None  # a run removes its journal before it exits: it finished meanwhile
    return Problem("a previous git ai-apply was interrupted while writing "
                   f"(its journal {path} is still there), so the worktree may be half written",
                   hint="run `git ai-apply recover` to put the repository back")
