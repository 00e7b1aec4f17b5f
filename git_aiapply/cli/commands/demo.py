"""`git ai-apply demo`: the built-in examples applied in a scratch repository."""
from __future__ import annotations

import sys

import click


@click.command("demo")
@click.option("--keep/--no-keep", default=True, help="Keep the scratch repository (default).")
def command(keep):
    """Apply built-in example responses in a scratch repository and show the log."""
    from ...workflows.demo import run_demo

    sys.exit(run_demo(keep=keep))
