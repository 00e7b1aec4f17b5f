"""`git ai-apply prompt [FORMAT]`: the instructions a model needs to answer in FORMAT."""
from __future__ import annotations

import click

from ...errors import UsageError


@click.command("prompt")
@click.argument("fmt", required=False, metavar="[FORMAT]")
@click.option("--base", "with_base", is_flag=True, help="Add an AI-Base line naming HEAD for "
              "the model to echo, so that -3 finds the commit the answer was written against.")
def command(fmt, with_base):
    """Print the instructions a model needs to answer in FORMAT."""
    from ...workflows.prompts import prompt_for

    try:
        text = prompt_for(fmt or "file-changes")
    except KeyError as e:
        raise UsageError(str(e.args[0])) from None
    # the base first: a prompt that cannot name it is not printed in part (a piped prompt
    # would go out without its AI-Base line)
    base = base_instruction() if with_base else None
    click.echo(text)
    if base is not None:
        click.echo(base)


def base_instruction() -> str:
    """The AI-Base line for HEAD, with the sentence that asks the model to echo it."""
    from ...git.repo import Repo
    from ...threeway.drift import AI_BASE

    _branch, head = Repo(".").head()
    if head is None:
        raise UsageError("--base needs a commit: the branch has none yet")
    return (f"The files are as of the commit below. Repeat this line, unchanged, on a line of "
            f"its own at the end of your answer:\n{AI_BASE}: {head}")
