"""`git ai-apply attempts`: list (and prune) the branch-per-attempt results (attempts.py
decides which branches are the tool's own)."""
import sys

import click


@click.command("attempts")
@click.argument("pattern", required=False)
@click.option("--prune", is_flag=True, help="Delete the listed branches (asks first).")
@click.option("-y", "--yes", is_flag=True, help="With --prune: do not ask.")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def command(pattern, prune, yes, as_json):
    """List the branches git ai-apply made (--branch), optionally only those matching
    PATTERN (a glob such as 'try/*', or a name: 'try' lists try and try/*)."""
    from ...workflows.attempts import list_attempts, listing_json
    from ...git.repo import Repo

    repo = Repo(".")
    found = list_attempts(repo, pattern)
    if as_json and not prune:
        import json

        click.echo(json.dumps(listing_json(repo, found), indent=2))
        return
    if not found:
        click.echo("no attempt branches" + (f" matching {pattern!r}" if pattern else ""))
        return
    _print_attempts(found)
    if prune:
        _prune(repo, found, yes)


def _prune(repo, found, yes: bool) -> None:
    """--prune: say which branches are kept and why, ask, delete the others."""
    from ...workflows.attempts import delete_attempts, prune_choice

    doomed, kept = prune_choice(found)
    for branch, why in kept:
        click.echo(f"keeping {branch}: {why}", err=True)
    if not doomed or not _confirmed(len(doomed), yes):
        return
    failed = 0
    for a, error in delete_attempts(repo, doomed):
        if error is not None:
            failed += 1
            click.echo(f"error: {error.render()}", err=True)
            continue
        click.echo(f"Deleted branch {a.branch} (was {a.tip.id[:7]}).")
    if failed:
        sys.exit(1)


def _confirmed(count: int, yes: bool) -> bool:
    """Whether to delete ``count`` branches: --yes, or the user says so at a terminal."""
    from ...errors import UsageError
    from ...run.term import isatty

    if yes:
        return True
    if not isatty(sys.stdin):
        raise UsageError("--prune asks before deleting; pass --yes when not at a terminal")
    if not click.confirm(f"Delete {count} branch{'es' if count != 1 else ''}?", default=False):
        click.echo("nothing deleted")
        return False
    return True


def _print_attempts(found) -> None:
    from ...workflows.attempts import subject_of
    from ...run.term import table_lines

    rows = [("BRANCH", "BASE", "BASE IS HEAD", "FORMAT", "MODEL", "FILES", "+/-", "SUBJECT")]
    for a in found:
        base = a.base.id[:7] if a.base is not None else "(root)"
        state = {"on HEAD": "yes", "HEAD moved": "no", "in HEAD": "merged"}[a.state]
        branch = a.branch + (" *" if a.checked_out else "")
        rows.append((branch, base, state, a.format or "-", a.model or "-", str(a.files),
                     f"+{a.added} -{a.removed}", subject_of(a.tip)))
    for line in table_lines(rows):
        click.echo(line)
    if any(a.checked_out for a in found):
        click.echo("* checked out in a worktree")
