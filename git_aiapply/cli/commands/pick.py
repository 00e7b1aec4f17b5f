"""`git ai-apply pick BRANCH`: bring one attempt onto the current branch (attempts.py)."""
import click


@click.command("pick")
@click.argument("branch")
@click.option("-n", "--no-verify", is_flag=True, help="Skip the pre-commit and commit-msg hooks.")
@click.option("--no-ff", is_flag=True, help="Always make a new commit through the hooks, even "
              "when a fast-forward is possible.")
@click.option("-d", "--delete", "delete_branch", is_flag=True,
              help="Delete the attempt branch once picked.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def command(branch, no_verify, no_ff, delete_branch, quiet):
    """Bring attempt BRANCH onto the current branch: a fast-forward when the attempt was
    made on HEAD, otherwise its change merged onto HEAD and committed (clean files only,
    with the usual hooks)."""
    from ...workflows.attempts import pick
    from ...errors import ApplyError
    from ...git.repo import Repo
    from ...run.term import refused

    try:
        done = pick(Repo("."), branch, no_verify, no_ff, delete_branch)
    except ApplyError as e:
        refused("pick refused", e)
    for line in done.warnings:
        click.echo(line, err=True)
    if quiet:
        return
    if done.nothing:
        click.echo(done.nothing)
        return
    _report(done)


def _report(done) -> None:
    """git's lines for a commit: the fast-forward, the subject, the diffstat."""
    res, plan = done.result, done.plan
    if done.fast:
        click.echo(f"Fast-forward {done.label} to {str(res.commit)[:7]} ({done.branch})")
    subject = res.message.split("\n", 1)[0]
    click.echo(f"[{done.label} {str(res.commit)[:7]}] {subject}")
    from ...run.diffstat import shortstat_of
    from ...run.pipeline import net_changes

    changes, _renames = net_changes(plan)  # as git's diff of the commit sees it
    click.echo(shortstat_of(len(changes), sum(c.added for c in changes),
                            sum(c.removed for c in changes)))
    if res.hook_output.strip():
        click.echo(res.hook_output.rstrip("\n"), err=True)
    if done.deleted:
        click.echo(f"Deleted branch {done.branch} (was {done.tip[:7]}).")
