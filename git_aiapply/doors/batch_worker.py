"""What every executor of `git ai-apply batch` runs on its share of the jobs: this
process's loop (``--jobs 1``), each local worker (doors/batch.py) and each Ray task
(doors/batch_ray.py): ``apply_jobs``, every job applied as an attempt (``Session.apply_json``
with the job's branch and base: the one front door) and its result line.  It prints
nothing and takes only plain values, so that it pickles; it imports neither executor.
"""
from __future__ import annotations

import os

from .batch_jobs import JobError, checked_job

TYPE_CHECKING = False  # `typing` stays unimported at run time
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from .api import Session

    Json: TypeAlias = "dict[str, Any]"  # a job, a result line, the defaults: JSON objects

# repositories a worker keeps open at once (its shares come a repository at a time)
MAX_WARM = 8
# a result whose job's branch holds a commit: its diff is the branch's against the base
_ON_BRANCH = ("applied", "already-applied", "no-change")


def apply_jobs(jobs: list[Json], *, defaults: Json | None = None,
               sessions: Json | None = None) -> Iterator[Json]:
    """Apply ``jobs`` (dicts, as read_jobs reads them; usually of one repository) in this
    process, one by one, each onto its own branch; yield each one's result object as it
    is done.  One warm Session per repository path: in ``sessions`` when given (kept for
    the next call), else closed at the end."""
    kept: Json = {} if sessions is None else sessions
    try:
        for job in jobs:
            yield apply_job(job, defaults or {}, kept)
    finally:
        if sessions is None:
            close_sessions(kept)


def close_sessions(sessions: Json) -> None:
    for s in sessions.values():
        if not isinstance(s, JobError):
            s.close()


def apply_job(job: Json, defaults: Json, sessions: Json) -> Json:
    """One job's result: the ``--json`` object of its run, with ``id``, ``branch`` and
    ``diff``; for a job that could not be run, an error object saying why."""
    from ..errors import AiApplyError, ErrorKind, FatalError, UsageError

    job_id = job.get("id", job.get("_line"))
    branch = None
    try:
        spec = checked_job(job, defaults)
        branch = spec["branch"]
        session = _session(sessions, job_repository(spec))
        base = _base_id(session, spec["base"])
        response, name = _response(spec)
        out = session.apply_json(response, name=name, branch=branch, base=base,
                                 **spec["options"])
        diff = _diff(session, base, branch, out)
    except JobError as e:
        out, diff = _error(e.exit_code, e.kind, e.text), ""
    except UsageError as e:  # a bad option, an unreadable response file
        out, diff = _error(2, ErrorKind.USAGE, str(e)), ""
    except FatalError as e:  # the command's --json object for it (pipeline.fatal_outcome)
        from ..run.pipeline import fatal_outcome

        out, diff = fatal_outcome("response", e).to_json(), ""
    except AiApplyError as e:
        out, diff = _error(1, ErrorKind.REFUSED, str(e)), ""
    except Exception as e:  # a bug in one job must not cost the others
        out, diff = _error(1, ErrorKind.INTERNAL, f"internal error: {type(e).__name__}: {e}"), ""
    return {"id": job_id, **out, "branch": branch, "diff": diff}


def _error(exit_code: int, kind: str, text: str) -> Json:
    from .serve import error_object

    return error_object(exit_code, kind, text)


def job_repository(spec: Json) -> str:
    """The folder of the checked job ``spec``'s repository: its ``repo``, or for a URL the
    node's clone of it (git/clone_cache.py: cloned once, fetched when the job's base is
    not in it yet); a JobError when it cannot be cloned."""
    from ..git.clone_cache import fetch_missing, is_url, local_clone

    repo: str = spec["repo"]
    if not is_url(repo):
        return repo
    from ..errors import FatalError

    try:
        path = local_clone(repo)
        fetch_missing(path, spec["base"])
    except FatalError as e:
        raise JobError(f"{e.message} (the job's repo)", 128, e.kind) from None
    return path


def _session(sessions: Json, repo: str) -> Session:
    """The warm session of ``repo`` (opened on its first job; a folder that is no
    repository is remembered as such)."""
    from ..errors import FatalError

    key = os.path.realpath(repo)
    s = sessions.pop(key, None)
    if s is not None and not isinstance(s, JobError) and not s.is_current():
        s.close()  # the folder was removed or replaced: open what is there now
        s = None
    if s is None:
        from .api import Session

        try:
            s = Session(repo)
        except FatalError as e:
            s = JobError(f"{e.message} (the job's repo, {repo})", 128, e.kind)
        while len(sessions) >= MAX_WARM:  # the least recently used one is let go
            close_sessions({"": sessions.pop(next(iter(sessions)))})
    sessions[key] = s  # most recently used last
    if isinstance(s, JobError):
        raise s
    opened: Session = s
    return opened


def _base_id(session: Session, rev: str) -> str:
    """The commit ``rev`` names in the session's repository (a JobError when none)."""
    from ..errors import UsageError

    try:
        return str(session.repo.resolve_commit(rev).id)
    except UsageError:
        raise JobError(f"unknown base {rev!r}: it names no commit of "
                       f"{session.workdir or 'the repository'}") from None


def _response(spec: Json) -> tuple[Any, str]:
    """(the response as the library takes it, its name in the result)."""
    if "response_file" in spec:
        from pathlib import Path

        path = spec["response_file"]
        if not os.path.isfile(path):
            raise JobError(f"cannot read the response_file {path}: "
                           f"{'not a file' if os.path.exists(path) else 'no such file'}")
        return Path(path), path
    return spec["response"], "response"


def _diff(session: Session, base: str, branch: str, out: Json) -> str:
    """The job's change as `git diff BASE BRANCH` prints it (git itself prints it: the
    user's diff settings, abbreviations and renames as git's); "" when no branch holds
    it (a refusal, --check).  A diff that is not UTF-8 keeps its bytes as surrogate
    escapes."""
    if out.get("status") not in _ON_BRANCH:
        return out.get("diff") or ""
    tip = session.repo.ref_target(f"refs/heads/{branch}")
    if tip is None:
        return ""
    import subprocess

    where = session.workdir or session.repo.gitdir
    try:
        done = subprocess.run(["git", "diff", base, str(tip), "--"], cwd=where,
                              capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        from ..errors import ErrorKind, FatalError

        raise FatalError(f"git diff {base[:12]} {branch} failed: "
                         f"{getattr(e, 'stderr', b'') or e}", kind=ErrorKind.IO) from None
    return done.stdout.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- executors
