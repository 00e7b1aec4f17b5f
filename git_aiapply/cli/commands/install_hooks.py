"""`git ai-apply install-hooks`: install the hook kit (hook_kit.py)."""
import sys

import click

from ...workflows.hook_kit import KIT_HOOKS


@click.command("install-hooks")
@click.option("--uninstall", "remove", is_flag=True, help="Remove the kit's hooks and restore the hooks they replaced.")
@click.option("--hook", "names", multiple=True, type=click.Choice(KIT_HOOKS),
              help="Only this hook (repeatable; default: all of the kit).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def command(remove, names, quiet):
    """Install the hook kit into this repository's hooks folder.

    pre-commit: refuses leftover edit markup in staged changes (every commit), and runs
    `git config aiapply.testCommand` for commits made by git ai-apply.  commit-msg: commits
    made by git ai-apply must carry their AI-* trailers.  An existing hook is kept as
    NAME.before-ai-apply and still runs first; --uninstall puts it back.  Where the
    pre-commit framework owns the hooks (.pre-commit-config.yaml), no hook it would move
    aside is installed: the ai-apply-guard entry to add to that file is printed instead.
    """
    from ...errors import UsageError
    from ...git.githooks import hooks_dir
    from ...git.repo import Repo
    from ...workflows.hook_kit import install, uninstall

    repo = Repo(".")
    names = tuple(dict.fromkeys(names)) or KIT_HOOKS
    try:
        lines = uninstall(repo, names) if remove else install(repo, names, sys.executable)
    except OSError as e:
        raise UsageError(f"cannot change {hooks_dir(repo)}: {e.strerror}") from None
    if not quiet:
        for line in lines:
            click.echo(line)
