"""The `git ai-apply` command line.  Heavy modules are imported inside the commands:
this runs thousands of times in agent loops and hooks."""
from __future__ import annotations

import os
import sys

import click

from .errors import AiApplyError, ApplyError, UsageError

# Subcommands that live in their own modules, imported only when used (start-up time).
LAZY_COMMANDS = {
    "install-hooks": "git_aiapply.hookkit:install_hooks_cmd",
    "hook": "git_aiapply.hookkit:hook_cmd",
    "undo": "git_aiapply.undo:undo_cmd",
    "attempts": "git_aiapply.attempts:attempts_cmd",
    "pick": "git_aiapply.attempts:pick_cmd",
    "recover": "git_aiapply.recover:recover_cmd",
}


class DefaultToApply(click.Group):
    """`git ai-apply [OPTIONS] RESPONSE...` runs `apply`; other first words name a
    subcommand.  A response file called like a subcommand can be given as ./NAME."""

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(LAZY_COMMANDS))

    def get_command(self, ctx, name):
        if name in self.commands:
            return self.commands[name]
        target = LAZY_COMMANDS.get(name)
        if target is None:
            return None
        import importlib

        mod, _, attr = target.partition(":")
        return getattr(importlib.import_module(mod), attr)

    def parse_args(self, ctx, args):
        known = set(self.commands) | set(LAZY_COMMANDS)
        if not args or (args[0] not in known and args[0] not in ("--help", "-h", "--version")):
            args = ["apply", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultToApply, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="git-ai-apply", prog_name="git ai-apply")
def main():
    """Turn a language model's response into one git commit.

    git ai-apply [OPTIONS] [RESPONSE ...] reads each RESPONSE (a file, or - for standard
    input; none means standard input), finds every edit in it (file-changes, hashline,
    apply-patch, codechange, unified-diff), applies them all or nothing, and commits.
    Exit codes: 0 applied (or already applied), 1 refused (nothing changed), 2 usage error.
    """


def _echo_err(text: str) -> None:
    click.echo(text, err=True)


@main.command("apply", context_settings={"ignore_unknown_options": False})
@click.argument("responses", nargs=-1, type=click.Path(allow_dash=True, dir_okay=True))
@click.option("--format", "fmt", metavar="NAME", help="Only look for this format "
              "(file-changes, hashline, apply-patch, codechange, unified-diff).")
@click.option("--check", is_flag=True, help="Do everything but write; exit 0 if it would apply.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the resulting diff; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object.")
@click.option("--include-dirty", is_flag=True, default=None,
              help="Apply on top of uncommitted changes of the touched files (they go into the commit).")
@click.option("--allow-empty", is_flag=True, help="A response with no change block is not an error.")
@click.option("-m", "--message", "messages", multiple=True, help="Use this commit message.")
@click.option("-F", "--file", "message_file", type=click.Path(allow_dash=True),
              help="Take the commit message from this file.")
@click.option("-e", "--edit", is_flag=True, help="Edit the message in your editor, as git commit -e.")
@click.option("-n", "--no-verify", is_flag=True, help="Skip the pre-commit and commit-msg hooks.")
@click.option("--verify", is_flag=True, help="With --branch: run the commit hooks in a temporary "
              "worktree (branch mode skips them by default).")
@click.option("--branch", metavar="NAME", help="Commit onto branch NAME without touching HEAD, "
              "the index or the worktree ({n} and {name} give each response its own branch).")
@click.option("--base", metavar="REV", help="With --branch: where a new branch starts (default HEAD).")
@click.option("-s", "--signoff", is_flag=True, help="Add a Signed-off-by trailer.")
@click.option("-S", "--gpg-sign", "gpg_sign", flag_value=True, default=None, help="Sign the commit.")
@click.option("--no-gpg-sign", "gpg_sign", flag_value=False, help="Do not sign the commit.")
@click.option("--no-trailers", is_flag=True, help="Leave out the AI-* trailers.")
@click.option("--max-bytes", type=int, default=None, help="Largest response accepted (bytes).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def apply_cmd(responses, fmt, check, show_diff, as_json, include_dirty, allow_empty, messages,
              message_file, edit, no_verify, verify, branch, base, signoff, gpg_sign, no_trailers,
              max_bytes, quiet):
    """Apply RESPONSE files (or standard input) and commit."""
    params = dict(locals())
    from .main import apply_main

    apply_main(**params)


@main.command("show")
@click.argument("paths", nargs=-1, required=True)
@click.option("--rev", default=None, help="Show the files as they are in REV instead of the worktree.")
def show_cmd(paths, rev):
    """Print files with hashline ids (LINE#ID:text), for a model's prompt."""
    from .git.repo import Repo
    from .git.state import read_disk
    from .hashline import render_view
    from .paths import normalize_path

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


@main.command("prompt")
@click.argument("fmt", required=False, metavar="[FORMAT]")
def prompt_cmd(fmt):
    """Print the instructions a model needs to answer in FORMAT."""
    from .prompts import prompt_for

    try:
        click.echo(prompt_for(fmt or "file-changes"))
    except KeyError as e:
        raise UsageError(str(e.args[0])) from None


@main.command("demo")
@click.option("--keep/--no-keep", default=True, help="Keep the scratch repository (default).")
def demo_cmd(keep):
    """Apply built-in example responses in a scratch repository and show the log."""
    from .demo import run_demo

    sys.exit(run_demo(keep=keep))


def run():
    """Click's side of the entry point (main.run hands it every command line that is not
    a plain apply); errors become messages and exit codes, never a traceback."""
    from .main import guarded

    def invoke():
        try:
            main.main(prog_name="git ai-apply", standalone_mode=False)
        except click.exceptions.Abort:
            _echo_err("aborted")
            sys.exit(1)
        except click.exceptions.ClickException as e:
            e.show()
            sys.exit(2)

    guarded(invoke)
