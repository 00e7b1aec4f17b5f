"""Command-line mistakes in git's own words (parse-options and help.c): an unknown option is
``error: unknown option 'reject'`` followed by the command's usage, a mistyped
subcommand ``git ai-apply: 'pikc' is not a git ai-apply command`` with the most similar
ones.  Exit 2, the contract's usage error (git's parse-options exits 129).

``mistyped_command`` runs on every start (main.py) and imports nothing until the first
word is neither a file nor a subcommand; ``usage_error_text`` is click's side."""
from __future__ import annotations

import os

PROG = "git ai-apply"


def mistyped_command(word: str, commands) -> str | None:
    """git's message when ``word``, the first word of the command line, is shaped like a
    subcommand's name (lower-case letters and dashes), names no file, and is close to
    some subcommands; None otherwise (it is then a response file, or not a word like a
    command: the apply command says what is wrong with it)."""
    if (not word or word in commands or not word[0].isalpha()
            or not all(c.islower() or c == "-" for c in word) or os.path.lexists(word)):
        return None
    similar = _most_similar(word, sorted(commands))
    if not similar:
        return None
    lead = "The most similar command is" if len(similar) == 1 else \
        "The most similar commands are"
    listed = "".join(f"\t{name}\n" for name in similar)
    return (f"{PROG}: '{word}' is not a {PROG} command. See '{PROG} --help'.\n\n"
            f"{lead}\n{listed}")


def _most_similar(word: str, commands: list[str]) -> list[str]:
    """The commands closest to ``word`` (all those tied for closest), if close enough."""
    from difflib import SequenceMatcher

    scores = {c: SequenceMatcher(None, word, c).ratio() for c in commands}
    best = max(scores.values(), default=0.0)
    if best < 0.6:
        return []
    return [c for c in commands if scores[c] == best]


def _option_name(opt: str) -> str:
    """``option 'reject'`` for ``--reject``, ``switch 'x'`` for ``-x``, as git names them."""
    if opt.startswith("--"):
        return f"option '{opt[2:]}'"
    return f"switch '{opt.lstrip('-')}'"


def error_line(e) -> str:
    """The ``error:`` line git would print for click's usage error ``e``."""
    import click

    if isinstance(e, click.exceptions.NoSuchOption):
        opt = e.option_name
        return f"error: unknown {_option_name(opt)}"
    if isinstance(e, click.exceptions.BadOptionUsage):
        # click raises it for a value missing or a value given to a flag: the option's
        # declaration tells which
        option = _option(e.ctx, e.option_name)
        if option is not None:
            takes = not (option.is_flag or option.count)
            return f"error: {_option_name(e.option_name)} " + (
                "requires a value" if takes else "takes no value")
    if isinstance(e, click.exceptions.BadParameter) and isinstance(e.param, click.Option) \
            and isinstance(e.param.type, click.types.IntParamType):
        names = sorted(e.param.opts, key=len, reverse=True)
        return f"error: {_option_name(names[0])} expects a numerical value"
    return f"error: {e.format_message()}"


def _option(ctx, name: str):
    """The click option of ``ctx``'s command named ``name`` (None: none)."""
    import click

    params = ctx.command.params if ctx is not None else []
    return next((p for p in params if isinstance(p, click.Option)
                 and name in (*p.opts, *p.secondary_opts)), None)


def usage_text(ctx, apply_cmd, group) -> str:
    """git's usage block for the command of ``ctx``: the usage line, then its options;
    the apply command's (``apply_cmd``, the default of ``group``) when ``ctx`` is the
    group's or unknown."""
    import click

    command = ctx.command if ctx is not None else apply_cmd
    if command is group or command is apply_cmd or ctx is None:
        line = f"usage: {PROG} [OPTIONS] [RESPONSE ...]"
        command = apply_cmd
        ctx = click.Context(apply_cmd, info_name=PROG, **group.context_settings)
    else:
        pieces = " ".join(command.collect_usage_pieces(ctx))
        line = f"usage: {ctx.command_path} {pieces}".rstrip()
    rows = [p.get_help_record(ctx) for p in command.get_params(ctx)
            if isinstance(p, click.Option)]
    formatter = click.HelpFormatter(indent_increment=4, width=ctx.terminal_width,
                                    max_width=ctx.max_content_width)
    with formatter.indentation():  # as git lists them, four spaces in
        formatter.write_dl([r for r in rows if r])
    return f"{line}\n\n{formatter.getvalue()}"


def usage_error_text(e, apply_cmd, group) -> str:
    """What is printed for click's usage error ``e`` of ``group`` (whose default command
    is ``apply_cmd``): git's error line and the usage."""
    return f"{error_line(e)}\n{usage_text(e.ctx, apply_cmd, group)}\n"
