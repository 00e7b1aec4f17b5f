"""The journal: a note in the git dir while the worktree is being changed, so that a
crash in the middle can be told apart and undone (``git ai-apply recover``), and the
check every writing command makes first (is a run going on, or was one interrupted?)."""
from __future__ import annotations

import json
import os
import time

from ..errors import Problem
from .faults import remove_file

JOURNAL = "AI_APPLY_JOURNAL"


def journal_path(gitdir: str) -> str:
    return os.path.join(gitdir, JOURNAL)


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
    to be made; ``staged_index``: once the new index is in ``index.lock``, that file's size
    and trailing checksum, so that recover knows the lock as the run's own.  recover.py
    reads it (its docstring)."""

    def __init__(self, gitdir: str):
        self.path = journal_path(gitdir)
        self.active = False
        self._data: dict = {}

    def begin(self, originals: dict, head_id, *, final: dict | None = None,
              written: dict | None = None, branch: str | None = None,
              workdir: str | None = None, kind: str = "apply", moves_to=None) -> None:
        made_dirs: list[str] = []
        if workdir and final:
            for p, ent in final.items():
                d = os.path.dirname(p)
                while ent is not None and d and d not in made_dirs \
                        and not os.path.isdir(os.path.join(workdir, d)):
                    made_dirs.append(d)
                    d = os.path.dirname(d)

        def ids(entries):
            return {p: ([int(e[0]), str(e[1])] if e else None) for p, e in (entries or {}).items()}

        data = {"pid": os.getpid(), "head": str(head_id) if head_id else None,
                "paths": originals, "branch": branch, "time": int(time.time()),
                "final": ids(final), "written": ids(written), "made_dirs": made_dirs,
                "kind": kind, "moves_to": str(moves_to) if moves_to is not None else None}
        self._write(data)
        self.active = True

    def note_staged_index(self, lock_path: str) -> None:
        """Record which file the staged ``index.lock`` is (its size and trailing checksum):
        staging replaced the lock's owner line, and recover must tell our lock from one a
        git process took after the crash."""
        with open(lock_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 32))
            tail = f.read()
        self._data["staged_index"] = [size, tail.hex()]
        self._write(self._data)

    def _write(self, data: dict) -> None:
        self._data = data
        tmp = f"{self.path}.ai-apply-{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)  # no fsync: like git (core.fsync unset), safe against a
            # killed process, not against power loss
        os.replace(tmp, self.path)

    def end(self) -> None:
        if self.active:
            try:
                remove_file(self.path)
            except OSError:
                pass  # left behind: the next run notices it and `recover` explains it
            self.active = False


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
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(pid, int) and pid_alive(pid):
        return Problem(f"another git ai-apply (pid {pid}) is applying a response in this "
                       "repository", hint="wait for it to finish and run the command again")
    return Problem("a previous git ai-apply was interrupted while writing "
                   f"(its journal {path} is still there), so the worktree may be half written",
                   hint="run `git ai-apply recover` to put the repository back")
