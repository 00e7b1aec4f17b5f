"""The console script's entry point.

`git ai-apply [OPTIONS] RESPONSE...` is what agents and hooks run thousands of times, so
that form is parsed here from the option table (options.py) without importing click
(about a tenth of the start-up time) and runs commands/apply.py directly; anything else
(a subcommand, help, an option the quick parser does not take) goes to cli.py's click
command line, built from the same table."""
from __future__ import annotations

import sys

from .commands import SUBCOMMANDS
from .options import parse_apply_args


def run() -> None:
    """Console-script entry point."""
    from .startup import import_pygit2

    import_pygit2()  # without parsing the CA bundle: the command needs no TLS
    params = parse_apply_args(sys.argv[1:], set(SUBCOMMANDS) | {"apply"})
    if params is None:
        from .cli import run as click_run

        click_run()
    else:
        from .commands.apply import run as apply_run
        from .term import guarded

        guarded(apply_run, params)
    sys.exit(0)
