"""`git ai-apply undo`: take back the last commit this tool made (undo_last.py decides what
may be taken back)."""
import sys

import click


@click.command("undo")
@click.option("--force", is_flag=True, help="Undo even when the commit is already in a "
              "remote-tracking branch (you will have to force-push).")
@click.option("--batch", is_flag=True, help="Take back every commit of the last run (several "
              "responses applied by one command), not only the newest.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def command(force, batch, as_json, quiet):
    """Take back the last commit git ai-apply made; again to take back the one before.

    Only when HEAD is that commit and the files it touched are unchanged since: the branch
    moves back to its parent, and those files and their index entries are restored.
    Repeated, it walks back the tool's own commits one by one; --batch takes back every
    commit of the last run at once.
    Anything else is refused and nothing changes (a pushed commit only with --force).
    ORIG_HEAD names the undone commit afterwards.
    """
    import json

    from ...errors import ApplyError, FatalError
    from ...git.repo import Repo
    from ...run.term import refused
    from ...workflows.undo_last import fatal_object, refusal_object, undo

    try:
        done = undo(Repo("."), force=force, batch=batch)  # no repository: fatal too
    except FatalError as e:
        if as_json:
            click.echo(json.dumps(fatal_object(e), indent=2))
        click.echo(f"fatal: {e.message}", err=True)
        sys.exit(128)
    except ApplyError as e:
        if as_json:
            click.echo(json.dumps(refusal_object(e), indent=2))
            sys.exit(1)
        refused("undo refused", e)
    if as_json:
        click.echo(json.dumps(dict(done, exit_code=0), indent=2))
        return
    if quiet:
        return
    where = done["branch"] or "HEAD"
    now = done["head"][:7] if done["head"] else "no commit (unborn)"
    if len(done["commits"]) > 1:
        click.echo(f"undid {len(done['commits'])} commits, the newest {done['undone'][:7]} "
                   f"{done['subject']}; {where} is now at {now}")
    else:
        click.echo(f"undid {done['undone'][:7]} {done['subject']}; {where} is now at {now}")
    for f in done["files"]:
        click.echo(f" {f['action']} {f['path']}")
