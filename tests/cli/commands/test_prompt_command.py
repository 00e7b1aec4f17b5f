"""cli/commands/prompt.py: `git ai-apply prompt [FORMAT]` prints the instructions (FORMAT
defaults to file-changes), --base adds the AI-Base line naming HEAD after them, and an
unknown format, an unborn branch with --base or extra words are usage errors."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.workflows.prompts import PROMPTS, prompt_for


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("src/a.txt", "a\n")
    repo.commit_all("base")
    return repo


def test_the_default_format_is_file_changes(based: GitRepo):
    r = based.run("prompt")
    assert (r.returncode, r.err) == (0, "")
    assert r.out == prompt_for("file-changes") + "\n"
    assert based.run("prompt", "file-changes").out == r.out


def test_base_adds_the_line_naming_head_after_the_instructions(based: GitRepo):
    plain = based.run("prompt", "unified-diff").out
    r = based.run("prompt", "unified-diff", "--base", cwd=based.root / "src")
    assert r.returncode == 0, r.err
    assert r.out.startswith(plain)
    assert r.out[len(plain):].splitlines() == [
        "The files are as of the commit below. Repeat this line, unchanged, on a line of its "
        "own at the end of your answer:",
        f"AI-Base: {based.head()}"]


def test_an_unknown_format_is_a_usage_error_naming_the_known_ones(based: GitRepo):
    r = based.run("prompt", "diff")
    assert r.returncode == 2 and r.out == ""
    assert r.err == f"usage error: unknown format 'diff'; known formats: {', '.join(PROMPTS)}\n"
    r = based.run("prompt", "whole", "hashline")
    assert r.returncode == 2 and "Got unexpected extra argument (hashline)" in r.err


def test_base_on_an_unborn_branch_is_a_usage_error(repo: GitRepo):
    r = repo.run("prompt", "--base")
    assert r.returncode == 2
    assert r.err == "usage error: --base needs a commit: the branch has none yet\n"


def test_base_on_an_unborn_branch_prints_no_instructions(repo: GitRepo):
    r = repo.run("prompt", "--base")
    assert r.returncode == 2 and r.out == ""
