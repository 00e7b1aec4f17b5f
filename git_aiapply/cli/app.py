"""The click command line: help, the subcommands (git_aiapply/cli/commands/, one module each,
imported only when used) and `git ai-apply apply`.  main.py hands it every command line
that is not a plain apply; the apply options come from the one table in options.py."""
from __future__ import annotations

import sys

import click

from ..run import options
from .commands import SUBCOMMANDS, load
from ..run.term import echo_err, guarded


class _ApplyCommand(click.Command):
    """The apply command; remembers the order of the options whose order matters
    (--include / --exclude: the first matching pattern decides, as in git apply)."""

    def parse_args(self, ctx, args):
        parser = self.make_parser(ctx)
        _opts, _rest, order = parser.parse_args(args=list(args))
        ctx.meta["aiapply.order"] = [p.name for p in order]
        return super().parse_args(ctx, args)


def _run_apply(**params):
    from .commands.apply import run

    ctx = click.get_current_context()
    params.update(options.ordered_values(params, ctx.meta.get("aiapply.order", [])))
    run(params)


def _click_params() -> list:
    """The apply options of options.py's table as click parameters (click lives in the
    CLI layer: options.py stays off it and on the fast path)."""
    from ..run.options import APPLY_OPTIONS, CONST, FLAG, INT, VALUES

    params = [click.Argument(["responses"], nargs=-1,
                             type=click.Path(allow_dash=True, dir_okay=True))]
    for o in APPLY_OPTIONS:
        decls = [*o.names, o.dest]
        if o.kind == FLAG:
            params.append(click.Option(decls, is_flag=True, default=o.default, help=o.help))
        elif o.kind == CONST:
            params.append(click.Option(decls, flag_value=o.const, default=o.default, help=o.help))
        elif o.kind == VALUES:
            params.append(click.Option(decls, multiple=True, metavar=o.metavar, help=o.help))
        else:
            params.append(click.Option(decls, type=int if o.kind == INT else str,
                                       default=o.default, metavar=o.metavar, help=o.help))
    return params


apply_cmd = _ApplyCommand(
    "apply", params=_click_params(), callback=_run_apply,
    help="Apply RESPONSE files (or standard input, or - ) and commit; the same as "
         "`git ai-apply [OPTIONS] [RESPONSE ...]`.",
    short_help="Apply responses and commit (the default command).")


class _CtrlC(BaseException):
    """A Ctrl-C in a command, carried past click's main (which turns KeyboardInterrupt into
    Abort, said "aborted", exit 1) to term.guarded: exit 130 naming the commits made."""


class DefaultToApply(click.Group):
    """`git ai-apply [OPTIONS] RESPONSE...` runs `apply`; other first words name a
    subcommand.  A response file called like a subcommand can be given as ./NAME.
    Its help lists the apply options too, as they are the command's own."""

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(SUBCOMMANDS))

    def get_command(self, ctx, name):
        if name in self.commands:
            return self.commands[name]
        if name in SUBCOMMANDS:
            return load(name)
        return None

    def parse_args(self, ctx, args):
        known = set(self.commands) | set(SUBCOMMANDS)
        if not args or (args[0] not in known and args[0] not in ("--help", "-h", "--version")):
            args = ["apply", *args]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx, args):
        name, cmd, rest = super().resolve_command(ctx, args)
        ctx.meta["aiapply.command"] = (name, cmd)
        return name, cmd, rest

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as e:  # past click's main, which would make it Abort
            raise _CtrlC(e) from None
        except click.exceptions.UsageError as e:
            # click's parser leaves some errors (a missing value) without the context of
            # the command it parsed, whose usage git's message shows (usage.py)
            if e.ctx is None and "aiapply.command" in ctx.meta:
                name, cmd = ctx.meta["aiapply.command"]
                e.ctx = click.Context(cmd, info_name=name, parent=ctx)
            raise

    def format_usage(self, ctx, formatter):
        formatter.write_usage("git ai-apply", "[OPTIONS] [RESPONSE ...]")
        formatter.write_usage("git ai-apply", "COMMAND [ARGS] ...", prefix="   or: ")

    def format_options(self, ctx, formatter):
        rows = [p.get_help_record(ctx) for p in apply_cmd.get_params(ctx)
                if isinstance(p, click.Option)]
        with formatter.section("Apply options"):
            formatter.write_dl([r for r in rows if r])
        super().format_options(ctx, formatter)


@click.group(cls=DefaultToApply, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="git-ai-apply", prog_name="git ai-apply")
def main():
    """Turn a language model's response into one git commit.

    Reads each RESPONSE (a file, a folder of them, or - for standard input; none means
    standard input), finds every edit in it, applies them all or nothing to the index
    and the worktree, and commits.  Exit codes: 0 applied (or already applied, or
    nothing to change), 1 refused for what the response says (nothing changed), 2 usage
    error, 128 fatal: the repository or the environment stopped it (nothing changed).
    The manual: git help ai-apply (man git-ai-apply).
    """


main.add_command(apply_cmd)


def run():
    """Click's side of the entry point; errors become messages and exit codes, never a
    traceback."""

    def invoke():
        try:
            main.main(prog_name="git ai-apply", standalone_mode=False)
        except _CtrlC as e:  # a command interrupted: what it made, exit 130
            raise e.args[0] from None
        except click.exceptions.Abort as e:
            if isinstance(e.__cause__, KeyboardInterrupt):  # while parsing: nothing made
                raise e.__cause__ from None
            echo_err("aborted")  # a prompt's input ended
            sys.exit(1)
        except click.exceptions.UsageError as e:  # in git's words (usage.py)
            from .usage import usage_error_text

            sys.stderr.write(usage_error_text(e, apply_cmd, main))
            sys.exit(2)
        except click.exceptions.ClickException as e:
            e.show()
            sys.exit(2)

    guarded(invoke)
