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
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            return None  # not built yet in this version

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


def _read_inputs(paths: tuple[str, ...], max_bytes: int):
    from .response import read_response

    if not paths:
        paths = ("-",)
    out = []
    for p in paths:
        if p == "-":
            # bounded: a response above the limit is refused without holding all of it
            raw = sys.stdin.buffer.read(max_bytes + 1) if max_bytes > 0 else sys.stdin.buffer.read()
            name = "-"
        elif os.path.isdir(p):
            from .attempts import folder_inputs  # a folder of responses (docs/ATTEMPTS.md)

            out.extend(folder_inputs(p, max_bytes))
            continue
        else:
            try:
                with open(p, "rb") as f:
                    raw = f.read(max_bytes + 1) if max_bytes > 0 else f.read()  # 0: no limit
            except OSError as e:
                raise UsageError(f"cannot read {p}: {e.strerror}") from None
            name = p
        out.append((name, raw))
    return out


def _print_outcome(o, quiet: bool) -> None:
    if o.status == "refused":
        kind = {"hook": "a hook refused the commit", "dirty": "files the response touches are not clean",
                "parse": "the response is malformed"}.get(o.error_kind or "", "the response was refused")
        label = f"{o.response.name}: " if o.response.name not in ("-", None) else ""
        _echo_err(f"error: {label}{kind}; nothing was changed.")
        for p in o.problems:
            _echo_err(p.render())
        return
    if o.diff is not None:
        from .term import print_paged

        print_paged(o.diff)
    if o.hook_output.strip():  # what the hooks printed, shown even with -q, as git does
        _echo_err(o.hook_output.rstrip("\n"))
    if quiet:
        return
    if o.status == "applied":
        subject = (o.message or "").split("\n", 1)[0]
        click.echo(f"[{o.branch} {o.commit[:7]}] {subject}")
        n = len(o.changes)
        click.echo(f" {n} file{'s' if n != 1 else ''} changed, {o.added} insertion"
                   f"{'s' if o.added != 1 else ''}(+), {o.removed} deletion{'s' if o.removed != 1 else ''}(-)")
        for c in o.changes:
            if c.action == "add":
                click.echo(f" create {c.path}")
            elif c.action == "delete":
                click.echo(f" delete {c.path}")
            elif c.action == "rename":
                click.echo(f" rename {c.old_path} => {c.path}")
    elif o.status == "would-apply" and o.diff is None:
        n = len(o.changes)
        click.echo(f"{o.response.name if o.response.name != '-' else 'response'}: applies cleanly "
                   f"({n} file{'s' if n != 1 else ''}, +{o.added} -{o.removed})")
    elif o.note:
        click.echo(o.note)


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
    from .apply import Options, apply_one
    from .git import Repo
    from .response import DEFAULT_MAX_BYTES, read_response

    repo = Repo(".")
    if branch is None and os.path.exists(os.path.join(repo.gitdir, "AI_APPLY_JOURNAL")):
        # an interrupted (or still running) run: the worktree may be half written
        from .recover import interrupted_problem

        problem = interrupted_problem(repo.gitdir)
        if problem is not None:
            raise ApplyError(problem)
    if max_bytes is None:
        max_bytes = repo.config_int("aiapply.maxResponseBytes", DEFAULT_MAX_BYTES)
    if include_dirty is None:
        include_dirty = repo.config_bool("aiapply.includeDirty", False)
    fmt = fmt or repo.config_get("aiapply.format")
    from .formats import FORMAT_NAMES

    if fmt and fmt not in FORMAT_NAMES:
        raise UsageError(f"unknown format {fmt!r}; known formats: {', '.join(FORMAT_NAMES)}")
    if base and not branch:
        raise UsageError("--base goes with --branch")
    if verify and (not branch or no_verify):
        raise UsageError("--verify goes with --branch, and not with --no-verify")
    message = None
    if messages and message_file:
        raise UsageError("-m and -F cannot be used together")
    if messages:
        message = "\n\n".join(messages)
    elif message_file:
        try:
            if message_file == "-":
                message = sys.stdin.read()
            else:
                with open(message_file, encoding="utf-8", errors="surrogateescape") as f:
                    message = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {message_file}: {e.strerror}") from None
    opts = Options(check=check, diff=show_diff, include_dirty=include_dirty,
                   allow_empty=allow_empty, format=fmt, message=message, edit=edit,
                   no_verify=no_verify, verify=verify, branch=branch, base=base,
                   signoff=signoff, sign=gpg_sign, trailers=not no_trailers)
    inputs = _read_inputs(responses, max_bytes)
    if branch is not None and (len(inputs) > 1 or "{" in branch
                               or any(n.endswith(".jsonl") for n, _ in inputs)):
        from .attempts import run_attempts

        code = run_attempts(repo, inputs, opts, branch, as_json=as_json, quiet=quiet,
                            max_bytes=max_bytes)
        sys.exit(code)
    from .term import diff_color

    color = show_diff and not as_json and diff_color(repo)
    outcomes = []
    code = 0
    for name, raw in inputs:
        try:
            resp = read_response(raw, name=name, max_bytes=max_bytes)
        except ApplyError as e:
            from .apply import Outcome
            from .response import Response

            resp = Response(text="", given_text="", response_id="", model=None,
                            name=name, is_json=False)
            o = Outcome(resp, "refused", 1, problems=e.problems, error_kind=e.kind)
        else:
            o = apply_one(repo, resp, opts, editor=_edit_message, color=color)
        outcomes.append(o)
        if not as_json:
            _print_outcome(o, quiet)
        if o.exit_code:
            code = o.exit_code
            break  # later responses usually build on earlier ones
    if as_json:
        import json

        if len(outcomes) == 1:
            click.echo(json.dumps(outcomes[0].to_json(), indent=2))
        else:
            click.echo(json.dumps({"results": [o.to_json() for o in outcomes]}, indent=2))
    sys.exit(code)


def _edit_message(message: str) -> str:
    """Open the message in the user's editor and return the result (branch mode; a
    worktree commit edits .git/COMMIT_EDITMSG between the hooks, see hooks.py)."""
    from .git import Repo
    from .hooks import edit_text

    return edit_text(Repo("."), message)


def _git_config(key: str) -> str | None:
    try:
        from .git import Repo

        return Repo(".").config_get(key)
    except AiApplyError:
        return None


@main.command("show")
@click.argument("paths", nargs=-1, required=True)
@click.option("--rev", default=None, help="Show the files as they are in REV instead of the worktree.")
def show_cmd(paths, rev):
    """Print files with hashline ids (LINE#ID:text), for a model's prompt."""
    from .git import Repo, read_disk
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
    """Console-script entry point: every error is a message and an exit code, never a
    traceback."""
    try:
        main.main(prog_name="git ai-apply", standalone_mode=False)
    except click.exceptions.Abort:
        _echo_err("aborted")
        sys.exit(1)
    except click.exceptions.ClickException as e:
        e.show()
        sys.exit(2)
    except UsageError as e:
        _echo_err(f"usage error: {e}")
        sys.exit(2)
    except ApplyError as e:
        _echo_err("error: the response was refused; nothing was changed.")
        _echo_err(e.render())
        sys.exit(1)
    except AiApplyError as e:
        _echo_err(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        _echo_err("interrupted; nothing was changed")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except SystemExit:
        raise
    except Exception as e:  # a bug: say it plainly, without a traceback
        _echo_err(f"internal error: {type(e).__name__}: {e}")
        _echo_err("please report this; set GIT_AI_APPLY_DEBUG=1 for details")
        if os.environ.get("GIT_AI_APPLY_DEBUG"):
            import traceback

            traceback.print_exc()
        sys.exit(1)
