"""cli/commands/attempts.py: what `git ai-apply attempts` prints when nothing matches, the
`*` of an attempt checked out in a worktree, --prune's question at a terminal and its
deletion lines (git branch -D's), and its usage errors."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import AI_APPLY, GitRepo


def patch(old: str, new: str) -> str:
    return (f"Change {old}.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-{old}\n"
            f"+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    return repo


def attempt(repo: GitRepo, branch: str, old: str = "alpha", new: str = "ALPHA") -> str:
    r = repo.run("--branch", branch, response=patch(old, new))
    assert r.returncode == 0, r.err
    return repo.git("rev-parse", branch).strip()


def at_terminal(repo: GitRepo, args: list[str], keys: bytes) -> tuple[int, str, str]:
    """Run the command with standard input on a terminal where ``keys`` are typed."""
    master, slave = os.openpty()
    p = subprocess.Popen([*AI_APPLY, *args], cwd=repo.root, env=repo.env, stdin=slave,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        os.write(master, keys)
        out, err = p.communicate(timeout=20)
    finally:
        os.close(master)
    return p.returncode, out.decode(), err.decode()


def test_nothing_to_list(base: GitRepo):
    base.git("branch", "try/mine")  # a branch of the user's: never an attempt
    r = base.run("attempts")
    assert (r.returncode, r.out, r.err) == (0, "no attempt branches\n", "")
    r = base.run("attempts", "try")
    assert (r.returncode, r.out) == (0, "no attempt branches matching 'try'\n")
    r = base.run("attempts", "--json")
    assert r.returncode == 0
    assert json.loads(r.out) == {"head": base.head(), "attempts": []}
    r = base.run("attempts", "try", "other")
    assert r.returncode == 2 and "Got unexpected extra argument (other)" in r.err


def test_an_attempt_checked_out_in_a_worktree_is_starred(base: GitRepo, tmp_path):
    attempt(base, "try/1")
    attempt(base, "try/2", "beta", "BETA")
    base.git("worktree", "add", "-q", str(tmp_path / "wt"), "try/2")
    r = base.run("attempts")
    assert r.returncode == 0, r.err
    lines = r.out.splitlines()
    assert [line.split()[0] for line in lines[1:3]] == ["try/1", "try/2"]
    assert lines[1].split()[1] != "*" and lines[2].split()[1] == "*"
    assert lines[-1] == "* checked out in a worktree"
    listed = json.loads(base.run("attempts", "--json").out)["attempts"]
    assert listed[0]["checked_out"] is None
    assert os.path.realpath(listed[1]["checked_out"]) == os.path.realpath(tmp_path / "wt")


def test_prune_at_a_terminal_asks_first(base: GitRepo):
    tip1 = attempt(base, "try/1")
    tip2 = attempt(base, "try/2", "beta", "BETA")
    code, out, err = at_terminal(base, ["attempts", "--prune", "try/1"], b"n\n")
    assert code == 0, err
    assert "Delete 1 branch? [y/N]" in out and out.rstrip().endswith("nothing deleted")
    assert base.git("rev-parse", "try/1").strip() == tip1
    code, out, err = at_terminal(base, ["attempts", "--prune"], b"y\n")
    assert code == 0, err
    assert "Delete 2 branches? [y/N]" in out
    # (the answer typed is not echoed: standard output is not the terminal)
    assert f"Delete 2 branches? [y/N]: Deleted branch try/1 (was {tip1[:7]}).\n" in out
    assert out.endswith(f"\nDeleted branch try/2 (was {tip2[:7]}).\n")
    assert base.git("branch", "--list", "try/*") == ""


def test_prune_prints_git_branch_ds_lines(base: GitRepo):
    tip = attempt(base, "try/1")
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0, r.err
    ours = [line for line in r.out.splitlines() if line.startswith("Deleted")]
    base.git("branch", "try/1", tip)
    assert ours == base.git("branch", "-D", "try/1").splitlines()
