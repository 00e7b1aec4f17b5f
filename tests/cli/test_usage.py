"""cli/usage.py: command-line mistakes in git's own words.  Each mistake that `git apply`
can make too (same option) is checked against git's real message (older git quotes
`so', newer 'so'; the words are the same); every option of the table is covered by class
(a value missing, a value given to a flag, a number that is not one, an unknown name)."""
from __future__ import annotations

import string
import subprocess

import click
import pytest
from hypothesis import given, strategies as st

from git_aiapply.cli.app import apply_cmd, main
from git_aiapply.cli.commands import SUBCOMMANDS
from git_aiapply.cli.usage import mistyped_command, usage_error_text
from git_aiapply.run.options import APPLY_OPTIONS, FLAG, INT

COMMANDS = set(SUBCOMMANDS) | {"apply"}


def ours(*args: str) -> str:
    """What click's command line prints for ``args`` (it must be a usage error)."""
    with pytest.raises(click.exceptions.UsageError) as caught:
        main.main(list(args), prog_name="git ai-apply", standalone_mode=False)
    return usage_error_text(caught.value, apply_cmd, main)


def gits(*args: str, tmp_path) -> str:
    """git apply's error line for ``args``, quoted as newer git quotes ('so')."""
    r = subprocess.run(["git", "apply", *args], cwd=tmp_path, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    assert r.returncode == 129, r.stderr
    first = r.stderr.splitlines()[0]
    return first.replace("`", "'")


@pytest.mark.parametrize("args", [
    ["--reject-foo"], ["--frobnicate"], ["-x"], ["-qx"], ["--directory"], ["--include"],
    ["-p"], ["--check=1"], ["--stat=2"], ["--cached=yes"],
])
def test_the_error_line_is_gits(args, tmp_path):
    text = ours(*args)
    assert text.splitlines()[0] == gits(*args, tmp_path=tmp_path)
    assert text.splitlines()[1:3] == ["usage: git ai-apply [OPTIONS] [RESPONSE ...]", ""]


def test_the_usage_lists_the_options_four_spaces_in_as_git(tmp_path):
    listed = [line for line in ours("--reject").splitlines()[3:] if line.startswith("    -")]
    # then help's option (how click names it depends on the contexts made before)
    assert [line.split()[0].rstrip(",") for line in listed][:len(APPLY_OPTIONS)] == [
        o.names[0] for o in APPLY_OPTIONS]


@pytest.mark.parametrize("opt", APPLY_OPTIONS, ids=lambda o: o.names[-1])
def test_every_option_of_the_table_in_gits_words(opt):
    """A value missing or given to a flag, a number that is not one: git's words, for each
    spelling of each option."""
    for name in opt.names:
        what = f"option '{name[2:]}'" if name.startswith("--") else f"switch '{name[1:]}'"
        if opt.kind in (FLAG, "const"):
            if name.startswith("--"):
                assert ours(f"{name}=1").startswith(f"error: {what} takes no value\n")
        else:
            assert ours(name).startswith(f"error: {what} requires a value\n")
            if opt.kind == INT:
                assert ours(name, "x").startswith(f"error: {what} expects a numerical value\n")


def test_a_subcommand_shows_its_own_usage():
    text = ours("pick", "--fast", "a")
    assert text.splitlines()[:3] == ["error: unknown option 'fast'",
                                     "usage: git ai-apply pick [OPTIONS] BRANCH", ""]
    assert "--no-ff" in text
    text = ours("show", "--rev")  # click leaves this one without its context
    assert text.splitlines()[:2] == ["error: option 'rev' requires a value",
                                     "usage: git ai-apply show [OPTIONS] PATHS..."]


def test_no_click_words():
    for args in (["--reject"], ["apply", "--directroy", "x"], ["undo", "--hard"]):
        text = ours(*args)
        assert "Did you mean" not in text and "Usage:" not in text and "Error:" not in text


def test_a_mistyped_command_in_gits_words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert mistyped_command("pikc", COMMANDS) == (
        "git ai-apply: 'pikc' is not a git ai-apply command. See 'git ai-apply --help'.\n\n"
        "The most similar command is\n\tpick\n")
    # git's own shape for the same mistake
    r = subprocess.run(["git", "comit"], capture_output=True, text=True, cwd=tmp_path)
    git_lines = r.stderr.splitlines()
    ours_lines = mistyped_command("undoo", COMMANDS).splitlines()
    assert [line.replace("git ai-apply", "git") for line in ours_lines[:3]] == [
        git_lines[0].replace("comit", "undoo"), "", "The most similar command is"]
    assert ours_lines[3] == "\tundo" and git_lines[3] == "\tcommit"


def _typos(word):
    """A letter dropped, doubled, or two swapped."""
    out = {word[:i] + word[i + 1:] for i in range(len(word))}
    out |= {word[:i] + word[i] + word[i:] for i in range(len(word))}
    out |= {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    return out - COMMANDS - {""}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_one_letter_typo_of_every_command_names_it(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for typo in _typos(command):
        text = mistyped_command(typo, COMMANDS)
        if text is not None:  # too short to tell (a two-letter word) is a file name
            assert f"\t{command}\n" in text, (typo, text)
    assert mistyped_command(command + command[-1], COMMANDS) is not None


@given(st.text(string.ascii_lowercase + "-", min_size=1, max_size=12))
def test_a_file_of_that_name_is_a_response_not_a_typo(word):
    """A word that names a file is always a response (checked in the current folder)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        old = os.getcwd()
        os.chdir(d)
        try:
            if word not in (".", ".."):
                open(word, "w").close()
            assert mistyped_command(word, COMMANDS) is None
        finally:
            os.chdir(old)


@pytest.mark.parametrize("word", ["pick.md", "./pikc", "answers/shwo", "Pikc", "-pikc",
                                  "undo", "zzzz", "responses"])
def test_a_word_not_shaped_like_a_command_or_not_close_to_one_is_left_to_apply(
        word, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert mistyped_command(word, COMMANDS) is None
