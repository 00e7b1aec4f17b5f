"""`git ai-apply show PATH...`: files with hashline ids (LINE#ID:text), for a prompt."""
from __future__ import annotations

import os

import click


@click.command("show")
@click.argument("paths", nargs=-1, required=True)
@click.option("--rev", default=None, help="Show the files as they are in REV instead of the worktree.")
@click.option("--base", "with_base", is_flag=True, help="End with an AI-Base line naming HEAD "
              "(or REV) for the model to echo, so that -3 finds the commit the answer was "
              "written against.")
def command(paths, rev, with_base):
    """Print files with hashline ids (LINE#ID:text), for a model's prompt."""
    from ...doors.api import hashline_view
    from ...git.repo import Repo

    repo = Repo(".")
    root = repo.workdir or ""
    for raw in paths:
        rel_raw = raw
        if not os.path.isabs(raw) and root:
            rel_raw = os.path.relpath(os.path.abspath(raw), os.path.realpath(root))
            if rel_raw.startswith(".."):
                rel_raw = os.path.relpath(os.path.abspath(raw), root)
        click.echo(hashline_view(repo, rel_raw, rev))
    if with_base:
        from ...git.commits import resolve_commit_id
        from ...threeway.drift import AI_BASE

        click.echo(f"{AI_BASE}: {resolve_commit_id(repo, rev or 'HEAD')}")
