"""`git ai-apply batch JOBS` as a command (docs/BATCH.md): the jobs read, the ones a
``--resume`` keeps left out, the rest run (local workers, or Ray with ``--ray``), each
result written as one whole line as it comes, a progress line on a terminal and a summary
table at the end, both on standard error.

Exit 0 when every job has its result (refusals and bad jobs are results), 2 on a usage
error, 128 when the environment stops the batch (the jobs or the output cannot be read or
written), 130 on Ctrl-C: the jobs under way finish and are written, no other starts.
"""
from __future__ import annotations

import json
import sys
import time

from ..errors import ErrorKind, FatalError, UsageError
from ..run.term import clear_progress, isatty, progress_bar, table_lines, write
from .batch import ray_executor
from .batch_jobs import (cores, done_results, group_jobs, one_branch_each, read_jobs,
                         repo_key, to_resume)



class Tally:
    """What the run did so far: per status, done, started when; the progress line."""

    def __init__(self, total: int, skipped: int, show: bool):
        self.total, self.skipped, self.show = total, skipped, show
        self.by_status: dict[str, int] = {}
        self.done = 0
        self.start = time.monotonic()

    def add(self, result: dict) -> None:
        self.done += 1
        status = result.get("status") or "error"
        self.by_status[status] = self.by_status.get(status, 0) + 1
        if self.show:
            progress_bar(self.done, self.total, self.label())

    def label(self) -> str:
        ok = sum(n for s, n in self.by_status.items() if s != "refused" and s != "error"
                 and s != "fatal")
        refused = self.by_status.get("refused", 0)
        other = self.done - ok - refused
        elapsed = max(time.monotonic() - self.start, 1e-6)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate else 0
        return (f"applied {ok}, refused {refused}" + (f", errors {other}" if other else "")
                + f", {rate:.1f}/s, {_clock(left)} left")

    def summary_lines(self) -> list[str]:
        rows = [("STATUS", "JOBS")]
        rows += [(s, str(n)) for s, n in sorted(self.by_status.items(),
                                                key=lambda kv: (-kv[1], kv[0]))]
        if self.skipped:
            rows.append(("kept (--resume)", str(self.skipped)))
        rows.append(("total", str(self.done + self.skipped)))
        elapsed = time.monotonic() - self.start
        rate = f", {self.done / elapsed:.1f} jobs/s" if elapsed > 0 and self.done else ""
        return table_lines(rows) + [f"{self.done} jobs run in {_clock(elapsed)}{rate}"]


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class Interrupts:
    """Ctrl-C while the batch runs: the first one stops new jobs (``stopped``), those
    under way finish and are written; a second one stops writing (KeyboardInterrupt): the
    command waits only for the jobs under way (each worker's one), their lines unwritten.  A SIGINT within
    ``SAME_PRESS`` seconds of the first is that same Ctrl-C: git, running ``git ai-apply``,
    passes the terminal's SIGINT on to its child, which the process group got already.
    After the second, SIGINT is ignored: the wait for the workers is not cut short."""

    SAME_PRESS = 1.0

    def __init__(self, on_stop=None) -> None:
        self.stopped = self.hurried = False
        self.on_stop = on_stop or (lambda: None)
        self.first: float | None = None
        self.previous = None

    def __enter__(self) -> Interrupts:
        import signal

        try:
            self.previous = signal.signal(signal.SIGINT, self._on_interrupt)
        except (ValueError, OSError):  # not the main thread: Python's default
            self.previous = None
        return self

    def _on_interrupt(self, signum, frame) -> None:
        import signal

        now = time.monotonic()
        if self.first is None:
            self.stopped, self.first = True, now
            self.on_stop()
            write("\ninterrupted: finishing the jobs under way (Ctrl-C again not to wait "
                  "for their results)", err=True)
        elif now - self.first >= self.SAME_PRESS:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


class Output:
    """The results file (or standard output): one whole line per result, flushed."""

    def __init__(self, path: str | None, resume: bool):
        self.path = path
        if path is None:
            self.stream = sys.stdout.buffer
            return
        try:
            if resume:
                _cut_partial_line(path)
            self.stream = open(path, "ab" if resume else "wb")
        except OSError as e:
            raise FatalError(f"cannot write {path}: {e.strerror}", kind=ErrorKind.IO) from None

    def write(self, result: dict) -> None:
        """One whole line: Ctrl-C waits until it is written (SIGINT held meanwhile)."""
        import signal

        line = json.dumps(result).encode("ascii") + b"\n"
        try:
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                self.stream.write(line)
                self.stream.flush()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        except OSError as e:
            raise FatalError(f"cannot write {self.path or 'the standard output'}: "
                             f"{e.strerror or e}", kind=ErrorKind.IO) from None

    def close(self) -> None:
        if self.path is not None:
            self.stream.close()


def _cut_partial_line(path: str) -> None:
    """A results file whose last line was cut short (a run killed while writing it) loses
    that line: the job runs again."""
    try:
        with open(path, "rb+") as f:
            data = f.read()
            end = data.rfind(b"\n") + 1
            if end != len(data):
                f.truncate(end)
    except FileNotFoundError:
        pass


def run_batch(jobs_path: str, *, out: str | None = None, workers: int | None = None,
              resume: bool = False, ray: str | bool | None = None,
              push: str | None = None) -> int:
    """The command: read the jobs, run them, write the results; the exit code.  ``ray``:
    None for local workers, True or "" (a bare ``--ray``) for a local Ray cluster (or
    RAY_ADDRESS), else an address."""
    if resume and out is None:
        raise UsageError("--resume reads the results of an earlier run: give its --out FILE")
    if push is not None and ray is None:
        raise UsageError("--push goes with --ray (the local workers write to the jobs' own "
                         "repositories; push their branches with git push)")
    if workers is not None and workers < 1:
        raise UsageError(f"--jobs takes a number of workers (1 or more), not {workers}")
    executor = ray_executor(ray, push, workers or cores()) if ray is not None else None
    try:
        jobs = one_branch_each(read_jobs(jobs_path))
    except OSError as e:
        raise FatalError(f"cannot read {jobs_path}: {e.strerror}", kind=ErrorKind.IO) from None
    skipped = 0
    if resume:
        jobs, skipped = to_resume(jobs, _earlier_results(out), branch_tips())
    output = Output(out, resume)
    tally = Tally(len(jobs), skipped, isatty(sys.stderr))
    try:
        return _run(jobs, output, tally, workers or cores(), executor, out)
    finally:
        output.close()


def _earlier_results(out: str) -> dict[str, dict]:
    try:
        with open(out, "rb") as f:
            return done_results(f)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise FatalError(f"cannot read {out}: {e.strerror}", kind=ErrorKind.IO) from None


def branch_tips():
    """A ``branch_tip(job, result)`` for to_resume: the commit the job's branch is at now,
    read with one `git for-each-ref` per repository (the parent opens no repository: its
    workers are forked from it)."""
    tips: dict[str, dict[str, str]] = {}

    def branch_tip(job: dict, result: dict) -> str | None:
        key = repo_key(job)
        if key not in tips:
            tips[key] = _refs(key)
        return tips[key].get(f"refs/heads/{result['branch']}")

    return branch_tip


def _refs(repo: str) -> dict[str, str]:
    import subprocess

    try:
        done = subprocess.run(["git", "for-each-ref", "--format=%(refname) %(objectname)",
                               "refs/heads/"], cwd=repo, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return {}  # no repository there (any more): its jobs run again, and say so
    pairs = (line.rsplit(" ", 1) for line in done.stdout.decode("utf-8", "surrogateescape")
             .splitlines() if " " in line)
    return dict(pairs)


def _run(jobs: list[dict], output: Output, tally: Tally, workers: int, executor,
         out: str | None) -> int:
    from .batch import StopFlag, run_groups

    groups = group_jobs(jobs)
    stop = StopFlag()  # Ctrl-C sets it: the workers see it at once
    with Interrupts(stop.set) as interrupts:
        if executor is not None:
            results = executor(groups, {}, stop)
        else:
            results = run_groups(groups, workers=workers, stop=stop, apart=True)
        try:
            for result in results:
                output.write(result)
                tally.add(result)
        except FatalError as e:
            stop.set()  # no other job starts; those under way finish
            _close(results)
            _stopped_by(e, tally, out)
            return 128
        except KeyboardInterrupt:  # the second Ctrl-C
            interrupts.stopped = interrupts.hurried = True
        finally:
            _close(results)  # the jobs under way finish, their lines unwritten
    if tally.show:
        clear_progress()
    for line in tally.summary_lines():
        write(line, err=True)
    if interrupts.stopped:
        unwritten = (" (the jobs under way when Ctrl-C came again finished, their lines "
                     "unwritten)" if interrupts.hurried else "")
        write(f"interrupted: {tally.done} of {tally.total} jobs done, each result written "
              f"whole{unwritten}; {_continue(out)}", err=True)
        return 130
    return 0


def _close(results) -> None:
    """The executor told that no result is read any more (a generator's ``close``: it
    starts no other job and waits for those under way)."""
    close = getattr(results, "close", None)
    if close is not None:
        close()


def _continue(out: str | None) -> str:
    if out is None:
        return "run again with --out FILE --resume to keep what is done"
    return f"the same command with --resume continues ({out} keeps what is done)"


def _stopped_by(e: FatalError, tally: Tally, out: str | None) -> None:
    if tally.show:
        clear_progress()
    write(f"fatal: {e.message}", err=True)
    write(f"{tally.done} of {tally.total} jobs done before it; {_continue(out)}", err=True)
