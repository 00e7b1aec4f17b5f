"""`git ai-apply show PATH...`: files with hashline ids (LINE#ID:text), for a prompt."""
from __future__ import annotations

import os

import click

from ..errors import ApplyError, UsageError


@click.command("show")
@click.argument("paths", nargs=-1, required=True)
@click.option("--rev", default=None, help="Show the files as they are in REV instead of the worktree.")
def command(paths, rev):
    """Print files with hashline ids (LINE#ID:text), for a model's prompt."""
    from ..git.repo import Repo
    from ..git.state import read_disk
    from ..hashline import render_view
    from ..paths import normalize_path

    repo = Repo(".")
    root = repo.workdir or ""
    for raw in paths:
        rel_raw = raw
        if not os.path.isabs(raw) and root:
            rel_raw = os.path.relpath(os.path.abspath(raw), os.path.realpath(root))
            if rel_raw.startswith(".."):
                rel_raw = os.path.relpath(os.path.abspath(raw), root)
        try:
            path = normalize_path(rel_raw, worktree=root)
        except ApplyError as e:
            raise UsageError(e.render()) from None
        if rev:
            commit = repo.resolve_commit(rev)
            try:
                data = repo.repo[commit.tree[path].id].data
            except KeyError:
                raise UsageError(f"{path} is not in {rev}") from None
        else:
            st = read_disk(root, path)
            if st is None:
                raise UsageError(f"cannot read {path}")
            data = st.data
        click.echo(render_view(path, data))
