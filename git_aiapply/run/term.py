"""How the command talks to the terminal, as git does: lines with control characters
escaped, errors as ``error:`` / ``fatal:`` with git's exit codes, aligned tables.  The
command line and the workflows print through it (run/ is below both); git's pager and
colours, which read the repository's config, are in cli/pager.py.  No click here (start-up
time)."""
from __future__ import annotations

import os
import sys

from ..errors import (AiApplyError, ApplyError, FatalError, UsageError, printable,
                      store_errors_fatal)


def _write(stream, text: str) -> None:
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:  # a terminal that cannot show every character
        stream.flush()
        stream.buffer.write((text + "\n").encode(stream.encoding or "utf-8", "replace"))
    stream.flush()


def echo(text: str) -> None:
    """Print a line with its control characters escaped: subjects and paths come from
    the response and must not drive the terminal."""
    _write(sys.stdout, printable(text))


def echo_err(text: str) -> None:
    _write(sys.stderr, text)


_ANSI = None


def write(text: str, nl: bool = True, err: bool = False) -> None:
    """Write as click.echo writes a string (the domain modules hold no click): a newline
    unless ``nl`` is false, colour codes dropped when the stream is not a terminal,
    flushed."""
    global _ANSI
    stream = sys.stderr if err else sys.stdout
    out = text + "\n" if nl else text
    if out and "\x1b" in out and not isatty(stream):
        if _ANSI is None:
            import re

            _ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")  # click's strip_ansi
        out = _ANSI.sub("", out)
    if out:
        stream.write(out)
    stream.flush()


def isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def refused(what: str, e: ApplyError) -> None:
    """Report a refusal and exit 1: ``error: WHAT; nothing was changed.``, then its
    problems.  WHAT names what was refused in the command's own terms ("the response was
    refused", "undo refused", "pick refused")."""
    kept = getattr(e, "kept", None)  # a rollback left them (transaction.raise_with_kept)
    echo_err(f"error: {what}; " + ("nothing was changed." if not kept else
             "files changed during the run were left as they are: " + ", ".join(kept) + "."))
    echo_err(e.render())
    sys.exit(1)


def interrupted(kept: list[str] | None = None) -> None:
    """Ctrl-C: exit 130 saying what stays, as git ends: the commits made that no report
    named yet (git/commits_made.py: a series, attempts, serve's current request), else
    "nothing was changed" (or the files a rollback kept: someone changed them meanwhile)."""
    made_module = sys.modules.get("git_aiapply.git.commits_made")  # not loaded: none made
    count, made = made_module.made() if made_module is not None else (0, [])
    if not count:
        echo_err("interrupted; nothing was changed" if not kept else
                 "interrupted; nothing was committed, and files changed during the run were "
                 "left as they are: " + ", ".join(kept))
        sys.exit(130)
    if count == 1:
        echo_err("interrupted after a commit was made; it stays, nothing else was changed:")
    else:
        echo_err(f"interrupted after {count} commits were made; they stay, nothing else was "
                 "changed" + (":" if count == len(made) else f"; the last {len(made)}:"))
    for branch, commit_id, subject in made:
        echo_err(printable(f"  [{branch} {commit_id[:7]}] {subject}"))
    sys.exit(130)


def guarded(fn, *args, **kwargs) -> None:
    """Run ``fn``: every error becomes a message and git's exit code, never a traceback.
    1: the response was refused; 2: a bad call; 128: ``fatal:``, the repository or the
    environment stopped the run; 130: interrupted."""
    try:
        with store_errors_fatal():  # a missing object, a corrupt store: the repository's
            fn(*args, **kwargs)
    except UsageError as e:
        echo_err(f"usage error: {e}")
        sys.exit(2)
    except FatalError as e:
        echo_err(printable(f"fatal: {e.message}"))
        if e.hint:
            echo_err(printable(f"hint: {e.hint}"))
        sys.exit(128)
    except ApplyError as e:
        refused("the response was refused", e)
    except AiApplyError as e:
        echo_err(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt as e:
        interrupted(getattr(e, "kept", None))  # kept: a rollback left them (transaction.raise_with_kept)
    except BrokenPipeError:
        sys.exit(0)
    except SystemExit:
        raise
    except Exception as e:  # a bug: say it plainly, without a traceback
        echo_err(f"internal error: {type(e).__name__}: {e}")
        echo_err("please report this; set GIT_AI_APPLY_DEBUG=1 for details")
        if os.environ.get("GIT_AI_APPLY_DEBUG"):
            import traceback

            traceback.print_exc()
        sys.exit(1)


def table_lines(rows: list[tuple[str, ...]], wrap_last: bool = False) -> list[str]:
    """``rows`` (the first is the header) as aligned columns.  With ``wrap_last`` the last
    column (an error a user acts on) is never cut: it wraps to the terminal's width under
    itself, or on indented lines below the row when the columns before it leave less than
    30 characters."""
    import shutil
    import textwrap

    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    columns = shutil.get_terminal_size((100, 20)).columns
    out = []
    for k, r in enumerate(rows):
        lead = "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  "
        room = columns - len(lead) - 1
        if not (wrap_last and k) or len(lead) + len(r[-1]) < columns:
            out.append((lead + r[-1]).rstrip())
        elif room < 30:
            out.append(lead.rstrip())
            out += ["    " + part for part in textwrap.wrap(
                r[-1], max(30, columns - 5), break_on_hyphens=False)]
        else:
            parts = textwrap.wrap(r[-1], room, break_on_hyphens=False)
            out.append((lead + parts[0]).rstrip())
            out += [" " * len(lead) + part for part in parts[1:]]
    return out


def progress_bar(done: int, total: int, label: str) -> None:
    """A progress line on standard error (a terminal): a bar, ``done/total`` and
    ``label``, drawn over the last one."""
    import shutil

    width = shutil.get_terminal_size((80, 20)).columns
    bar_w = 24
    filled = bar_w * done // total if total else bar_w
    text = f"[{'#' * filled}{'.' * (bar_w - filled)}] {done}/{total} {label}"
    sys.stderr.write("\r\x1b[K" + text[: max(10, width - 1)])
    sys.stderr.flush()


def clear_progress() -> None:
    sys.stderr.write("\r\x1b[K")
    sys.stderr.flush()
