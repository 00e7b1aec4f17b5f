"""`git ai-apply batch`'s executors (BEHAVIOR.md §12, docs/BATCH.md): the jobs of a batch
spread over worker processes grouped by repository, each worker keeping its repositories
warm, or over Ray tasks (doors/batch_ray.py, the ``ray`` extra); and the library's
``batch``.  Each executor runs ``apply_jobs`` (doors/batch_worker.py) on its share.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from .batch_jobs import JOB_FIELD_OPTIONS, cores, group_jobs, one_branch_each, read_jobs
from .batch_worker import apply_jobs, close_sessions

TYPE_CHECKING = False  # `typing` stays unimported at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, TypeAlias

    from .results import Result

    Json: TypeAlias = "dict[str, Any]"  # a job, a result line, the defaults: JSON objects

__all__ = ["apply_jobs", "group_jobs", "run_groups", "batch", "BatchResult", "read_jobs"]

def run_groups(groups: list[list[Json]], *, defaults: Json | None = None, workers: int = 1,
               stop: Callable[[], bool] | None = None,
               apart: bool = False) -> Iterator[Json]:
    """Every job of ``groups`` applied, the results as they come: in this process with
    one worker, else in ``workers`` processes, each taking whole shares of one repository
    (its jobs stay in one process, warm).  Once ``stop()`` is true no job starts; those
    under way finish and their results still come (nothing is left half done).
    ``apart`` (the command): even one worker is a process of its own, in the file's
    order, so that a terminal's Ctrl-C reaches neither a job nor the programs it runs
    (the workers ignore SIGINT; the command's handler sets ``stop``)."""
    defaults = defaults or {}
    stop = stop or (lambda: False)
    if apart and workers <= 1 and groups:
        yield from _in_processes([in_file_order(groups)], defaults, 1, stop)
        return
    if (workers <= 1 or sum(map(len, groups)) <= 1) and not apart:
        sessions: Json = {}
        try:
            for job in in_file_order(groups):
                if stop():
                    return
                yield from apply_jobs([job], defaults=defaults, sessions=sessions)
        finally:
            close_sessions(sessions)
        return
    yield from _in_processes(_shares(groups, workers), defaults, workers, stop)


def in_file_order(groups: list[list[Json]]) -> list[Json]:
    """The jobs of ``groups`` in the order of their lines (a bad line where it stands,
    not after the repositories' jobs): one process runs them so.  Its sessions keep eight
    repositories warm, so the order costs nothing unless the file interleaves more."""
    return sorted((job for group in groups for job in group),
                  key=lambda job: job.get("_line") or 0)


def _shares(groups: list[list[Json]], workers: int) -> list[list[Json]]:
    """The work units: a repository's jobs, cut in pieces when there are fewer
    repositories than workers (each piece still of one repository, each worker keeping
    the repositories of its pieces warm), largest first."""
    if len(groups) >= workers * 2:
        return sorted(groups, key=len, reverse=True)
    total = sum(map(len, groups))
    piece = max(1, -(-total // (workers * 4)))  # a few pieces a worker: the load evens out
    shares = [g[i:i + piece] for g in groups for i in range(0, len(g), piece)]
    return sorted(shares, key=len, reverse=True)


def _in_processes(shares: list[list[Json]], defaults: Json, workers: int,
                  stop: Callable[[], bool]) -> Iterator[Json]:
    """The shares run by a pool of ``workers`` processes, each result streamed back (a
    queue) as its job finishes.  A worker that dies (killed, out of memory) stops the
    batch: FatalError, once the results of the others are given.  However this ends (the
    caller stops reading, Ctrl-C), no job starts after it and the results queue is read
    until every worker is done: a worker exits only once its results are out of its
    queue, so the pool is never joined with a queue nobody reads."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context(start_method())
    results = ctx.Queue()
    stopping = stop if isinstance(stop, StopFlag) else StopFlag()
    pool = ProcessPoolExecutor(min(workers, len(shares)), mp_context=ctx,
                               initializer=_worker_start, initargs=(results, stopping))
    futures: list[Any] = []
    counted = [0]  # the results read from the queue
    try:
        with _ctrl_c_held():  # while the workers are forked (the parent sees it after)
            futures = [pool.submit(_run_share, (s, defaults)) for s in shares]
        yield from _results_of(futures, results, stopping, stop, counted)
        broken = _shares_sent(futures)[1]
    finally:
        stopping.set()  # no other job starts (a no-op once all are done)
        for f in futures:
            f.cancel()
        for _unread in _results_of(futures, results, stopping, lambda: True, counted,
                                   last_wait=1.0):
            pass  # the caller stopped reading: the jobs under way finish, unwritten
        pool.shutdown(wait=True)
    if broken:
        from ..errors import ErrorKind, FatalError

        raise FatalError(f"a batch worker process stopped: {broken}", kind=ErrorKind.ENVIRONMENT)


def _results_of(futures: list[Any], results: Any, stopping: Any, stop: Callable[[], bool],
                counted: list[int], last_wait: float | None = None) -> Iterator[Json]:
    """The results of the shares of ``futures`` as they come, until every share is done
    (or cancelled) and each result it sent is read (waiting ``last_wait`` seconds at most
    for one, None: as long as it takes); once ``stop()`` no job starts."""
    pending = set(futures)
    while pending:
        if stop() and not stopping.is_set:
            stopping.set()  # the workers start no other job
            for f in pending:
                f.cancel()  # nor any share not begun
        got = _next_result(results, 0.2)
        if got is None:
            pending = {f for f in pending if not f.done()}
            continue
        counted[0] += 1
        yield got
    sent, broken = _shares_sent(futures)
    while counted[0] < sent or broken:  # what is still on its way (all of it, unless
        # the pool broke: then its other workers were stopped too, with what they held)
        got = _next_result(results, 0.5 if broken else last_wait)
        if got is None:
            break
        counted[0] += 1
        yield got


class StopFlag:
    """A batch's stop, as a ``stop`` callable: false until ``set``, then true in the
    workers at once too (a byte of memory they share, set without a lock: a signal
    handler may set it)."""

    def __init__(self) -> None:
        import multiprocessing

        self.cell = multiprocessing.get_context(start_method()).RawValue("b", 0)

    def set(self) -> None:
        self.cell.value = 1

    @property
    def is_set(self) -> bool:
        return bool(self.cell.value)

    def __call__(self) -> bool:
        return bool(self.cell.value)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """SIGINT held back (blocked) while the workers are forked: each inherits the mask and
    sets its own disposition before it lets SIGINT in (_worker_start)."""
    import signal

    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _next_result(results: Any, timeout: float | None) -> Json | None:
    import queue

    try:
        got: Json = results.get(timeout=timeout)
        return got
    except queue.Empty:
        return None


def _shares_sent(futures: list[Any]) -> tuple[int, str | None]:
    """(how many results the finished shares sent, what stopped a worker or None)."""
    sent, broken = 0, None
    for f in futures:
        if f.cancelled():
            continue
        e = f.exception()
        if e is None:
            sent += f.result()
        else:
            broken = f"{type(e).__name__}: {e}"
    return sent, broken


# a worker's result queue and stop flag (_worker_start), and its warm sessions: one per
# repository, kept from one share to the next
_WORKER: Json = {}
_SESSIONS: Json = {}


def start_method() -> str:
    """How workers start: ``fork`` copies this process, pygit2 included, at no start-up
    cost (the parent opened no repository: it only read the jobs); GIT_AI_APPLY_BATCH_START
    may name another (bench/results.md measures them)."""
    import multiprocessing

    wanted = os.environ.get("GIT_AI_APPLY_BATCH_START")
    return wanted if wanted in multiprocessing.get_all_start_methods() else "fork"


def _worker_start(results: Any, stopping: StopFlag) -> None:
    """A worker's start: it ignores SIGINT, and so do the programs its jobs run (git,
    hooks, filters: an ignored signal stays ignored in a child), so that Ctrl-C never cuts
    a job short; the parent's ``stopping`` (set by its own SIGINT handler) says when no
    other job starts."""
    import signal

    _WORKER.update(results=results, stopping=stopping)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held by the parent


def _run_share(args: tuple[list[Json], Json]) -> int:
    share, defaults = args
    n = 0
    for job in share:
        if _WORKER["stopping"]():
            break
        for result in apply_jobs([job], defaults=defaults, sessions=_SESSIONS):
            _WORKER["results"].put(result)
        n += 1
    return n


# --------------------------------------------------------------------------- the library


RAY_HINT = "pip install 'git-ai-apply[ray]'"


def ray_executor(address: str | bool, push: str | None,
                 cpus: int) -> Callable[..., Iterator[dict[str, Any]]]:
    """``run_on_ray`` of doors/batch_ray.py (the ``ray`` extra), or fatal naming it."""
    from ..errors import ErrorKind, FatalError

    try:
        import ray  # noqa: F401  (installed? the executor imports it again)

        from .batch_ray import run_on_ray
    except ImportError as e:
        raise FatalError(f"--ray needs Ray ({e}); install it with: {RAY_HINT}",
                         kind=ErrorKind.ENVIRONMENT) from None
    return lambda groups, defaults, stop: run_on_ray(
        groups, defaults=defaults, address=address if isinstance(address, str) and address
        else None, push=push,
        cpus=cpus, stop=stop)


def batch(jobs: Iterable[Mapping[str, Any]] | str | os.PathLike[str], *,
          workers: int | None = 1, options: Mapping[str, Any] | None = None,
          branch: str | None = None, base: str | None = None,
          repo: str | os.PathLike[str] | None = None, ray: str | bool | None = None,
          push: str | None = None) -> Iterator[BatchResult]:
    """Apply many responses, each onto its own branch (``git ai-apply batch``): ``jobs``
    are dicts of the job format (docs/BATCH.md) or a JSON Lines file's path; ``options``
    go under every job's own; ``branch``, ``base`` and ``repo`` are the jobs' defaults.
    ``workers``: processes (1: this one; None: every core); ``ray``: the jobs as Ray tasks
    instead (``--ray``: True for a local cluster, or the cluster's address; the ``ray``
    extra), ``push`` each job's branch to that remote (with ``ray``).  Yields a ``BatchResult``
    per job as it finishes (a refusal or a bad job too).  Raises ``InvalidOptions`` for
    a bad option in ``options`` and ``FatalError`` when the jobs file cannot be read."""
    from .api import InvalidOptions, validate_options

    if options:
        validate_options(options)
        twice = [k for k in JOB_FIELD_OPTIONS if k in options]
        if twice:  # a job's branch and base are its own fields, their defaults arguments
            raise InvalidOptions(f"{twice[0]} is not an option of a batch: give "
                                 f"{twice[0]}=... (the jobs' default) or each job's "
                                 f"\"{twice[0]}\"")
    if push is not None and ray is None:
        raise InvalidOptions("push goes with ray (the local workers write to the jobs' own "
                             "repositories; push their branches with git push)")
    defaults = {"options": dict(options or {}), "branch": branch, "base": base,
                "repo": os.fspath(repo) if repo is not None else None}
    try:
        read = one_branch_each(read_jobs(jobs if isinstance(jobs, (str, os.PathLike))
                                         else list(jobs)), defaults)
    except OSError as e:
        from ..errors import ErrorKind, FatalError

        raise FatalError(f"cannot read {os.fsdecode(jobs)}: {e.strerror}",  # type: ignore[arg-type]
                         kind=ErrorKind.IO) from None
    n = workers if workers is not None else cores()
    results = (ray_executor(ray, push, n)(group_jobs(read), defaults, lambda: False)
               if ray is not None and ray is not False else
               run_groups(group_jobs(read), defaults=defaults, workers=n))
    for result in results:
        yield BatchResult.from_json(result)


@dataclass(frozen=True)
class BatchResult:
    """One job's result (a line of ``git ai-apply batch``'s output): its ``id``,
    ``branch``, ``status``, ``exit_code``, ``commit``, ``diff`` (against the job's base;
    "" when no branch holds a change) and ``error_text``; ``result`` is the run's
    ``Result`` (None for a job that could not be run: status ``error``)."""

    id: str | int | None
    branch: str | None
    status: str
    exit_code: int
    commit: str | None
    diff: str
    error_text: str | None
    result: Result | None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BatchResult:
        from .results import Result, json_copy

        run = None
        if d.get("status") != "error":
            run = Result.from_json({k: v for k, v in d.items() if k != "id"})
        made = cls(d.get("id"), d.get("branch"), d["status"], d["exit_code"], d.get("commit"),
                   d.get("diff") or "", d.get("error_text"), run)
        object.__setattr__(made, "_written", json_copy(d))
        return made

    def to_json(self) -> dict[str, Any]:
        """The result line's object, as the command writes it (a copy)."""
        from .results import json_copy

        return json_copy(self.__dict__["_written"])
