"""The console script's entry point.

`git ai-apply [OPTIONS] RESPONSE...` is what agents and hooks run thousands of times, so
that form is parsed here from the option table (options.py) without importing click
(about a tenth of the start-up time) and runs commands/apply.py directly; so is the bare
`git ai-apply serve`, which starts a harness's loop.  Anything else (another subcommand,
help, an option the quick parser does not take) goes to cli/app.py's click command line,
built from the same table.

A Ctrl-C while the command starts (its imports, the early index read) ends it quietly,
as git ends: "interrupted; nothing was changed", exit 130, the early read's link removed;
each command then handles Ctrl-C itself (term.guarded), from its first statement."""
from __future__ import annotations

import os
import signal
import sys


def _interrupted_at_start(signum=None, frame=None) -> None:
    """SIGINT before a command took over: nothing was changed yet."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C cannot cut this
    except (ValueError, OSError):
        pass
    # a module still being imported when the signal came has started nothing to discard
    discard = getattr(sys.modules.get("git_aiapply.git.early_index"), "discard", None)
    if discard is not None:
        discard()
    try:
        os.write(2, b"interrupted; nothing was changed\n")
    except OSError:
        pass
    os._exit(130)


def _quiet_start() -> None:
    """Ctrl-C ends the start-up quietly (unless SIGINT is ignored, as Python leaves it)."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted_at_start)
    except (ValueError, OSError):  # not the main thread: leave Python's default
        pass


def _commands_handle_interrupts() -> None:
    """From here a command's own handling (KeyboardInterrupt) takes Ctrl-C over."""
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted_at_start:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except (ValueError, OSError):
        pass


_quiet_start()

from .commands import SUBCOMMANDS  # noqa: E402  (after the handler: these imports take time)
from ..run.options import apply_request, commits_to_worktree, parse_apply_args  # noqa: E402


def run() -> None:
    """Console-script entry point."""
    _quiet_start()  # again: a warm test server imports this module once for many runs
    try:
        _run()
    except KeyboardInterrupt:  # between two handlers: still nothing changed
        _interrupted_at_start()


def _guarded(fn, *args) -> None:
    """term.guarded with Ctrl-C handed to the command inside its try."""
    from ..run.term import guarded

    def handing_over():
        _commands_handle_interrupts()
        fn(*args)

    guarded(handing_over)


def _run() -> None:
    from .startup import import_pygit2, tolerate_closed_pipes

    if sys.argv[1:2] not in (["serve"], ["mcp"]):
        tolerate_closed_pipes()
    commands = set(SUBCOMMANDS) | {"apply"}
    if sys.argv[1:]:
        from .usage import mistyped_command

        mistyped = mistyped_command(sys.argv[1], commands)
        if mistyped:  # in git's words, before either parser takes it for a file
            sys.stderr.write(mistyped)
            sys.exit(2)
    params = parse_apply_args(sys.argv[1:], commands)
    # without parsing the CA bundle (the command needs no TLS); a run that commits to the
    # worktree reads the index meanwhile (git/early_index.py)
    import_pygit2(read_index_early=params is not None
                  and commits_to_worktree(apply_request(params)))
    if params is None and sys.argv[1:] == ["serve"]:
        # a harness's warm loop starts here: without click's import (a tenth of a
        # 40-response loop on a small repository, bench/results.md)
        from ..doors.serve import run_server

        _guarded(run_server)
    elif params is None:
        from .app import run as click_run

        _commands_handle_interrupts()  # click's command line guards itself (cli.run)
        try:
            click_run()
        except SystemExit as e:
            sys.exit(_flushed(e.code))
    else:
        from .commands.apply import run as apply_run

        try:
            _guarded(apply_run, params)
        except SystemExit as e:
            _end_process(e.code)
        _end_process(0)
    sys.exit(_flushed(0))


def _flushed(code):
    """``code``, once the standard streams are flushed; 128 (git's ``fatal:``) when the
    standard output cannot be written (startup.py raises it: a full disk, an I/O error),
    said here rather than as Python's "Exception ignored" at exit."""
    from ..errors import FatalError

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except FatalError as e:
            _say_fatal(e)
            code = 128
        except (OSError, ValueError):
            pass  # a closed pipe, a closed stream: what could be said was said
    return code


def _say_fatal(e) -> None:
    try:
        sys.stderr.write(f"fatal: {e.message}\n")
        sys.stderr.flush()
    except Exception:  # standard error cannot be written either: the exit code says it
        pass


def _end_process(code) -> None:
    """End the run without Python's teardown, as git does not free its memory at exit:
    freeing a 100,000-entry index and every module took 15 to 40 ms of a one-edit run
    (bench/results.md).  By now every file the run wrote is closed and renamed into
    place, every child process waited for; only the standard streams need a flush."""
    from ..git import early_index

    early_index.discard()  # an index read early that the run never reached
    if code is None:
        code = 0
    elif not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    os._exit(_flushed(code))
