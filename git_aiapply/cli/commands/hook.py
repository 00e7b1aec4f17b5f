"""`git ai-apply hook ...`: the hook kit's checks, run by its hooks (hook_kit.py)."""
import os
import subprocess
import sys

import click


@click.group("hook")
def command():
    """The checks the hook kit runs (see `git ai-apply install-hooks`)."""


@command.command("guard")
@click.argument("files", nargs=-1, type=click.Path())
def guard_cmd(files):
    """Refuse leftover edit markup: in the lines the staged changes add or, with FILES
    (the pre-commit framework), anywhere in those files.  Exit 1 when some is found."""
    from ...workflows.hook_kit import (GUARD_ID, exempt_paths, file_findings, render_findings,
                                       staged_findings)

    if GUARD_ID in {word.strip() for word in os.environ.get("SKIP", "").split(",")}:
        return  # SKIP=ai-apply-guard: skipped once, as the pre-commit framework skips an id
    if files:
        findings = file_findings(list(files))
    else:
        findings = staged_findings()
    if findings:
        exempt = exempt_paths(sorted({f[0] for f in findings}), cached=not files)
        findings = [f for f in findings if f[0] not in exempt]
    if findings:
        click.echo(render_findings(findings, staged=not files), err=True)
        sys.exit(1)


@command.command("commit-msg")
@click.argument("message_file", type=click.Path())
def commit_msg_cmd(message_file):
    """Check the AI-* trailers of the message in MESSAGE_FILE (exit 1 when wrong)."""
    from ...errors import UsageError
    from ...workflows.hook_kit import trailer_problems

    try:
        with open(message_file, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {message_file}: {e.strerror}") from None
    char = "#"
    r = subprocess.run(["git", "config", "--get", "core.commentChar"], capture_output=True)
    if r.returncode == 0 and r.stdout.strip() and r.stdout.strip() != b"auto":
        char = r.stdout.decode().strip()[:1]
    made = os.environ.get("GIT_AI_APPLY") == "1"
    problems = trailer_problems(text, made, comment_char=char)
    if problems:
        who = "This commit is made by git ai-apply, so its message" if made else "The commit message"
        click.echo("ai-apply commit-msg check: " + "; ".join(problems) + ".", err=True)
        click.echo(f"{who} must end with the trailers git ai-apply writes, e.g.\n"
                   "  AI-Format: unified-diff\n  AI-Response: 0123456789abcdef\n"
                   "(--no-trailers and aiapply.trailers=false leave them out, which this "
                   "repository's hook does not allow; --no-verify skips the check once.)", err=True)
        sys.exit(1)


if __name__ == "__main__":  # python -m git_aiapply.cli.commands.hook guard
    from ...run.term import guarded

    # as the command runs it: the package's errors are messages and git's exit codes
    guarded(command)
