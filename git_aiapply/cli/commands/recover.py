"""`git ai-apply recover`: repair what an interrupted run left behind (recover.py decides
what is the tool's own)."""
import click


@click.command("recover")
@click.option("-n", "--dry-run", is_flag=True, help="Say what would be done; change nothing.")
@click.option("--keep-files", is_flag=True,
              help="Keep every file the interrupted run touched as it is, and finish even "
                   "where recover cannot tell what the run did (its lock and journal go).")
def command(dry_run, keep_files):
    """Repair what an interrupted git ai-apply left behind (journal, index.lock, temporary
    files): the repository ends wholly before or wholly after that run."""
    from ...errors import AiApplyError, FatalError
    from ...git.repo import Repo
    from ...workflows.recover import recover

    repo = Repo(".")
    try:
        rec = recover(repo, dry_run=dry_run, keep_files=keep_files)
    except FatalError as e:
        click.echo(f"fatal: {e.message}", err=True)
        raise SystemExit(128)
    except (OSError, AiApplyError) as e:
        click.echo(f"fatal: recovery failed: {e}", err=True)
        raise SystemExit(128)
    if rec.problems:
        # the repository's state, not a bad request: exit 128 as git's fatal errors
        click.echo("fatal: recover cannot repair this automatically; nothing was changed.",
                   err=True)
        for p in rec.problems:
            click.echo(p.render(), err=True)
        raise SystemExit(128)
    if not rec.done:
        click.echo("nothing to recover: no interrupted git ai-apply left anything behind")
        return
    for line in rec.done:
        click.echo(line)
