"""term.write is click.echo's writing for the domain modules that hold no click (branch
mode's lines): the same characters reach the stream, colour codes dropped off a terminal."""
from __future__ import annotations

import contextlib
import io

import click
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.run.term import write

# text with the escape sequences a diff or a response may carry, and plain characters
PIECES = st.sampled_from(["\x1b[31m", "\x1b[m", "\x1b[1;32m", "\x1b[K", "\x1b", "[", "m",
                          "a", " ", "\n", "é", "\t"])
TEXTS = st.lists(PIECES, max_size=12).map("".join)


def _captured(fn, text, nl, err):
    """What ``fn`` wrote to standard output and error (neither a terminal)."""
    out, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        fn(text, nl=nl, err=err)
    return out.getvalue(), errs.getvalue()


@settings(max_examples=150, deadline=None)
@given(text=TEXTS, nl=st.booleans(), err=st.booleans())
def test_write_writes_what_click_echo_writes(text, nl, err):
    assert _captured(write, text, nl, err) == _captured(click.echo, text, nl, err)


def test_colour_is_dropped_off_a_terminal(capsys):
    write("\x1b[31mred\x1b[m", err=True)
    assert capsys.readouterr().err == "red\n"


def _interrupt(capsys) -> tuple[int, str]:
    import pytest

    from git_aiapply.run.term import guarded

    def cut():
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as ended:
        guarded(cut)
    return ended.value.code, capsys.readouterr().err


def test_ctrl_c_names_the_commits_made_or_says_nothing_was_changed(capsys):
    from git_aiapply.git import commits_made

    commits_made.forget()
    assert _interrupt(capsys) == (130, "interrupted; nothing was changed\n")
    commits_made.note("main", "a" * 40, "First")
    assert _interrupt(capsys) == (130, "interrupted after a commit was made; it stays, nothing "
                                       "else was changed:\n  [main aaaaaaa] First\n")
    commits_made.note("try/2", "b" * 40, "Second")
    assert _interrupt(capsys) == (130, "interrupted after 2 commits were made; they stay, "
                                       "nothing else was changed:\n  [main aaaaaaa] First\n"
                                       "  [try/2 bbbbbbb] Second\n")
    for k in range(commits_made.KEPT + 5):
        commits_made.note("main", f"{k:040x}", f"c{k}")
    code, err = _interrupt(capsys)
    assert err.startswith(f"interrupted after {commits_made.KEPT + 7} commits were made; they "
                          f"stay, nothing else was changed; the last {commits_made.KEPT}:\n")
    assert err.count("\n") == commits_made.KEPT + 1 and err.endswith(f"c{commits_made.KEPT + 4}\n")
    commits_made.forget()
