"""The console script's entry point.

`git ai-apply [OPTIONS] RESPONSE...` is what agents and hooks run thousands of times, so
that form is parsed here from the option table (options.py) without importing click
(about a tenth of the start-up time) and runs commands/apply.py directly; so is the bare
`git ai-apply serve`, which starts a harness's loop.  Anything else (another subcommand,
help, an option the quick parser does not take) goes to cli.py's click command line,
built from the same table."""
from __future__ import annotations

import os
import sys

from .commands import SUBCOMMANDS
from .options import commits_to_worktree, parse_apply_args


def run() -> None:
    """Console-script entry point."""
    from .startup import import_pygit2

    params = parse_apply_args(sys.argv[1:], set(SUBCOMMANDS) | {"apply"})
    # without parsing the CA bundle (the command needs no TLS); a run that commits to the
    # worktree reads the index meanwhile (git/early_index.py)
    import_pygit2(read_index_early=params is not None and commits_to_worktree(params))
    if params is None and sys.argv[1:] == ["serve"]:
        # a harness's warm loop starts here: without click's import (a tenth of a
        # 40-response loop on a small repository, bench/results.md)
        from .serve import run_server
        from .term import guarded

        guarded(run_server)
    elif params is None:
        from .cli import run as click_run

        click_run()
    else:
        from .commands.apply import run as apply_run
        from .term import guarded

        try:
            guarded(apply_run, params)
        except SystemExit as e:
            _end_process(e.code)
        _end_process(0)
    sys.exit(0)


def _end_process(code) -> None:
    """End the run without Python's teardown, as git does not free its memory at exit:
    freeing a 100,000-entry index and every module took 15 to 40 ms of a one-edit run
    (bench/results.md).  By now every file the run wrote is closed and renamed into
    place, every child process waited for; only the standard streams need a flush."""
    from .git import early_index

    early_index.discard()  # an index read early that the run never reached
    if code is None:
        code = 0
    elif not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: what could be said was said
    os._exit(code)
