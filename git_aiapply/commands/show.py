"""`git ai-apply show PATH...`: files with hashline ids (LINE#ID:text), for a prompt."""
from __future__ import annotations

import os

import click


@click.command("show")
@click.argument("paths", nargs=-1, required=True)
@click.option("--rev", default=None, help="Show the files as they are in REV instead of the worktree.")
def command(paths, rev):
    """Print files with hashline ids (LINE#ID:text), for a model's prompt."""
    from ..api import hashline_view
    from ..git.repo import Repo

    repo = Repo(".")
    root = repo.workdir or ""
    for raw in paths:
        rel_raw = raw
        if not os.path.isabs(raw) and root:
            rel_raw = os.path.relpath(os.path.abspath(raw), os.path.realpath(root))
            if rel_raw.startswith(".."):
                rel_raw = os.path.relpath(os.path.abspath(raw), root)
        click.echo(hashline_view(repo, rel_raw, rev))
