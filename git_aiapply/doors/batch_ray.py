"""`git ai-apply batch --ray [ADDRESS]` (docs/BATCH.md "On a Ray cluster"; the ``ray``
extra): the jobs as Ray tasks on a cluster, or on a local one this process starts.

The jobs of a repository go to tasks in chunks (at most ``MAX_CHUNK`` jobs: a repository's
results come back as its chunks finish, not when the whole repository is done); each task
runs ``apply_jobs`` (doors/batch.py, what every local worker runs) on its node, in a Ray
worker that keeps the repositories it met warm from one chunk to the next.  A job's
``repo`` is a folder the node reads (a shared filesystem) or a URL the node clones once
into its cache (git/clone_cache.py).  With ``push`` each job's branch is pushed after the
job.  The tasks run in the driver's git environment (``driver_env``: identity, dates,
settings), so that their commits are the ones the local workers make.  A task that fails
(its worker died, it raised) gives each of its jobs an error result; the batch goes on.
"""
from __future__ import annotations

import os
from collections import deque

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# the most jobs one task runs: its results come back together
MAX_CHUNK = 16
# a local cluster's object store (the results are small) and its folder's name
OBJECT_STORE_BYTES = 80 * 1024 * 1024
# variables besides GIT_* that decide a commit: where git's settings are, the fallback
# email, the time zone the dates are written in, the language of git's messages
SETTINGS_VARS = ("HOME", "XDG_CONFIG_HOME", "EMAIL", "TZ", "LANG", "LC_ALL")
# git -c settings travel as these: they are for every repository (unlike the other
# variables `git rev-parse --local-env-vars` names, which locate the driver's own one)
_EVERY_REPOSITORY = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


def run_on_ray(groups: list[list[dict]], *, defaults: dict, address: str | None,
               push: str | None, cpus: int | None = None,
               stop: Callable[[], bool] | None = None) -> Iterator[dict]:
    """Every job of ``groups`` (read_jobs's dicts, grouped by repository) run as Ray
    tasks, each result as it comes back: on the cluster at ``address`` (``auto``,
    ``ray://HOST:PORT``, ``HOST:PORT``; None: RAY_ADDRESS, else a local cluster of
    ``cpus`` CPUs started here and stopped at the end).  Once ``stop()`` is true no task
    starts; the results of those under way still come."""
    started = connect(address, cpus)
    try:
        yield from _stream(groups, defaults, push, stop or (lambda: False))
    finally:
        if started:
            import ray

            ray.shutdown()


def connect(address: str | None, cpus: int | None = None) -> bool:
    """Connect this process to Ray (nothing when it is connected already); True when
    this call connected it.  A FatalError when Ray cannot start or reach the cluster."""
    import ray

    from ..errors import ErrorKind, FatalError

    if ray.is_initialized():
        return False
    # Ray's own INFO lines ("Started a local Ray instance") stay off the command's stderr
    settings: dict = {"log_to_driver": False, "include_dashboard": False,
                      "logging_level": "WARNING"}
    if address is None and not os.environ.get("RAY_ADDRESS"):
        import tempfile

        settings.update(num_cpus=cpus or 2, object_store_memory=OBJECT_STORE_BYTES,
                        _temp_dir=os.path.join(tempfile.gettempdir(), "ray"))
    else:
        settings.pop("include_dashboard")  # the cluster's own choice
    try:
        ray.init(address=address, **settings)
    except Exception as e:  # Ray's errors have no common class: ConnectionError, ValueError...
        what = (f"connect to the Ray cluster at {address}" if address
                else "start a local Ray cluster" if "num_cpus" in settings
                else f"connect to the Ray cluster at RAY_ADDRESS={os.environ['RAY_ADDRESS']}")
        raise FatalError(f"cannot {what}: {type(e).__name__}: {_reason(e).split(': ', 1)[1]}",
                         kind=ErrorKind.ENVIRONMENT) from None
    return True


def chunks_of(groups: list[list[dict]], cpus: int) -> list[list[dict]]:
    """The tasks' work: each repository's jobs in pieces of at most MAX_CHUNK (fewer
    when there are few jobs for the CPUs, so that every CPU has some), each piece of one
    repository, in the groups' order."""
    total = sum(map(len, groups))
    size = max(1, min(MAX_CHUNK, -(-total // max(1, cpus * 2))))
    return [g[i:i + size] for g in groups for i in range(0, len(g), size)]


def _stream(groups: list[list[dict]], defaults: dict, push: str | None,
            stop: Callable[[], bool]) -> Iterator[dict]:
    """The chunks submitted a few per CPU at a time (ray.wait on the refs under way),
    each chunk's results yielded as its task finishes."""
    import ray

    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(run_chunk).options(num_cpus=1, max_retries=0, retry_exceptions=False,
                                         runtime_env={"env_vars": driver_env()})
    todo = deque(chunks_of(groups, cpus))
    pending: dict = {}
    while todo or pending:
        while todo and len(pending) < cpus * 2 and not stop():
            chunk = todo.popleft()
            pending[task.remote(chunk, defaults, push)] = chunk
        if not pending:
            return  # stopped: the chunks left never start
        done, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)
        for ref in done:
            yield from chunk_results(ref, pending.pop(ref), defaults)


def chunk_results(ref, chunk: list[dict], defaults: dict) -> list[dict]:
    """The results of the task ``ref`` ran; when it failed, an error result for each of
    its jobs saying so (a job it finished before failing may have its branch: running
    again with --resume says ``already-applied``)."""
    import ray

    try:
        return ray.get(ref)
    except Exception as e:  # the worker died, the task raised, the node was lost
        text = (f"the Ray task running this job failed ({_reason(e)}); run the batch again "
                "(--out FILE --resume) to retry it")
        return [_failed(job, defaults, text) for job in chunk]


def _reason(e: BaseException) -> str:
    """What went wrong, in one line: for an exception the task raised (Ray wraps it, its
    ``cause``), that exception; else Ray's own error (a worker died, a node was lost)."""
    import re

    cause = getattr(e, "cause", None)
    e = cause if isinstance(cause, BaseException) else e
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines()
             if line.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else 'no reason given'}"


def _failed(job: dict, defaults: dict, text: str) -> dict:
    from ..errors import ErrorKind
    from .batch_jobs import JobError, checked_job
    from .serve import error_object

    try:
        branch = checked_job(job, defaults)["branch"]
    except JobError:
        branch = None
    return {"id": job.get("id", job.get("_line")),
            **error_object(128, ErrorKind.ENVIRONMENT, text), "branch": branch, "diff": ""}


def driver_env() -> dict[str, str]:
    """The variables of this process that decide a job's commit, for every task: each
    GIT_* one except those that locate this process's own repository (git's list, `git
    rev-parse --local-env-vars`; the jobs name theirs), and SETTINGS_VARS."""
    from ..git.clone_cache import git

    done = git(["rev-parse", "--local-env-vars"])
    local = set(done.stdout.decode("ascii", "replace").split()) - set(_EVERY_REPOSITORY)
    return {k: v for k, v in os.environ.items()
            if (k.startswith("GIT_") and k not in local) or k in SETTINGS_VARS}


# --------------------------------------------------------------------------- on the node

# the Ray worker's warm sessions, one per repository, kept from one chunk to the next
_SESSIONS: dict = {}


def run_chunk(chunk: list[dict], defaults: dict, push: str | None) -> list[dict]:
    """A task: the jobs of ``chunk`` applied here (apply_jobs), each branch pushed to
    ``push`` when given; their results."""
    from .batch_worker import apply_jobs

    results = list(apply_jobs(chunk, defaults=defaults, sessions=_SESSIONS))
    if push is None:
        return results
    return [pushed(result, job, defaults, push) for result, job in zip(results, chunk)]


def pushed(result: dict, job: dict, defaults: dict, remote: str) -> dict:
    """``result`` with ``pushed_to``: ``remote`` once the job's branch is pushed there,
    None when the job left no branch; a push that fails makes the job's result an
    error saying why (its ``commit`` stays in the node's repository)."""
    from ..errors import FatalError
    from ..git.clone_cache import has_commit, push_branch
    from .batch_worker import job_repository
    from .batch_jobs import JobError, checked_job
    from .serve import error_object

    branch = result.get("branch")
    if result.get("status") not in ("applied", "already-applied", "no-change") or not branch:
        return {**result, "pushed_to": None}
    try:
        path = job_repository(checked_job(job, defaults))
        if not has_commit(path, f"refs/heads/{branch}"):
            return {**result, "pushed_to": None}
        push_branch(path, branch, remote)
    except (FatalError, JobError) as e:
        why = e.message if isinstance(e, FatalError) else e.text
        return {"id": result.get("id"), **error_object(128, e.kind, why),
                "commit": result.get("commit"), "branch": branch, "diff": result.get("diff", ""),
                "pushed_to": None}
    return {**result, "pushed_to": remote}
