"""`git ai-apply prompt [FORMAT]`: the instructions a model needs to answer in FORMAT."""
from __future__ import annotations

import click

from ..errors import UsageError


@click.command("prompt")
@click.argument("fmt", required=False, metavar="[FORMAT]")
def command(fmt):
    """Print the instructions a model needs to answer in FORMAT."""
    from ..prompts import prompt_for

    try:
        click.echo(prompt_for(fmt or "file-changes"))
    except KeyError as e:
        raise UsageError(str(e.args[0])) from None
