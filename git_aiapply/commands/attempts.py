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
    from ..attempts import list_attempts
    from ..errors import ApplyError, UsageError
    from ..git.refs import delete_branch_at
    from ..git.repo import Repo
    from ..term import isatty

    repo = Repo(".")
    found = list_attempts(repo, pattern)
    if as_json and not prune:
        import json

        click.echo(json.dumps({"head": str(repo.head()[1]) if repo.head()[1] else None,
                               "attempts": [a.to_json() for a in found]}, indent=2))
        return
    if not found:
        click.echo("no attempt branches" + (f" matching {pattern!r}" if pattern else ""))
        return
    _print_attempts(found)
    if not prune:
        return
    doomed = [a for a in found if a.checked_out is None and a.kept_because is None]
    for a in found:
        if a.checked_out is not None:
            click.echo(f"keeping {a.branch}: it is checked out in {a.checked_out}", err=True)
        elif a.kept_because is not None:
            click.echo(f"keeping {a.branch}: {a.kept_because}", err=True)
    if not doomed:
        return
    if not yes:
        if not isatty(sys.stdin):
            raise UsageError("--prune asks before deleting; pass --yes when not at a terminal")
        if not click.confirm(f"Delete {len(doomed)} branch{'es' if len(doomed) != 1 else ''}?",
                             default=False):
            click.echo("nothing deleted")
            return
    failed = 0
    for a in doomed:
        try:
            delete_branch_at(repo, a.refname, a.tip.id)
        except ApplyError as e:
            failed += 1
            click.echo(f"error: {e.render()}", err=True)
            continue
        click.echo(f"Deleted branch {a.branch} (was {str(a.tip.id)[:7]}).")
    if failed:
        sys.exit(1)


def _print_attempts(found) -> None:
    from ..attempts import subject_of
    from ..term import table_lines

    rows = [("BRANCH", "BASE", "BASE IS HEAD", "FORMAT", "MODEL", "FILES", "+/-", "SUBJECT")]
    for a in found:
        base = str(a.base.id)[:7] if a.base is not None else "(root)"
        state = {"on HEAD": "yes", "HEAD moved": "no", "in HEAD": "merged"}[a.state]
        branch = a.branch + (" *" if a.checked_out else "")
        rows.append((branch, base, state, a.format or "-", a.model or "-", str(a.files),
                     f"+{a.added} -{a.removed}", subject_of(a.tip)))
    for line in table_lines(rows):
        click.echo(line)
    if any(a.checked_out for a in found):
        click.echo("* checked out in a worktree")
