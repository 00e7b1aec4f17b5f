"""cli/commands/pick.py: what `git ai-apply pick` prints (the fast-forward, git's commit
lines, the deleted branch), -q and its warnings, and its usage errors."""
from __future__ import annotations

import pytest

from conftest import GitRepo


def patch(old: str, new: str, why: str = "Shout alpha.") -> str:
    return (f"{why}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-{old}\n+{new}\n"
            "</FILE_PATCH>\n</FILE_CHANGES>\n")


ADD_ONLY = ("Add a line and a file.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n"
            " alpha\n+inserted\n beta\n</FILE_PATCH>\n<FILE_NEW file_path=\"n.txt\">\nnew\n"
            "</FILE_NEW>\n</FILE_CHANGES>\n")


@pytest.fixture
def clean(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\n")
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    return repo


def attempt(repo: GitRepo, branch: str, response: str) -> str:
    r = repo.run("--branch", branch, response=response)
    assert r.returncode == 0, r.err
    return repo.git("rev-parse", branch).strip()


def test_fast_forward_lines_and_the_deleted_branch(clean: GitRepo):
    tip = attempt(clean, "try/1", patch("alpha", "ALPHA"))
    r = clean.run("pick", "-d", "try/1")
    assert r.returncode == 0, r.err
    assert clean.head() == tip
    assert r.out.splitlines() == [
        f"Fast-forward main to {tip[:7]} (try/1)",
        f"[main {tip[:7]}] Shout alpha",
        " 1 file changed, 1 insertion(+), 1 deletion(-)",
        f"Deleted branch try/1 (was {tip[:7]}).",
    ]
    assert r.err == ""
    assert clean.git("branch", "--list", "try/1") == ""


def test_the_diffstat_line_is_gits(clean: GitRepo):
    attempt(clean, "try/1", ADD_ONLY)
    clean.write("other.txt", "moved on\n")
    clean.git("commit", "-qam", "meanwhile")
    r = clean.run("pick", "try/1")
    assert r.returncode == 0, r.err
    assert r.out.splitlines()[0].startswith("[main ")
    assert r.out.splitlines()[1] == clean.git("diff", "--shortstat", "HEAD~1", "HEAD").rstrip("\n")


def test_quiet_prints_nothing_but_warnings(clean: GitRepo):
    """-q: a branch -d must keep (someone amended it) is still a warning on stderr."""
    tip = attempt(clean, "try/1", patch("alpha", "ALPHA"))
    message = clean.message("try/1").replace("Shout alpha", "Shout alpha, reworded", 1)
    amended = clean.git("commit-tree", "try/1^{tree}", "-p", "try/1^", "-m",
                        message.rstrip("\n")).strip()
    clean.git("update-ref", "-m", "commit (amend): by hand", "refs/heads/try/1", amended, tip)
    r = clean.run("pick", "-q", "-d", "try/1")
    assert r.returncode == 0, r.err
    assert r.out == ""
    assert r.err.startswith("warning: kept try/1: ") and "amend" in r.err
    assert clean.head() == amended
    assert clean.git("rev-parse", "try/1").strip() == amended
    r = clean.run("pick", "-q", "try/1")  # nothing to pick: still nothing printed
    assert (r.returncode, r.out) == (0, "")
    r = clean.run("pick", "try/1")
    assert r.out == "try/1 is already in main; nothing to pick\n"


def test_usage_errors(clean: GitRepo):
    before = clean.snapshot()
    r = clean.run("pick")
    assert r.returncode == 2 and "Missing argument 'BRANCH'" in r.err
    r = clean.run("pick", "a", "b")
    assert r.returncode == 2 and "Got unexpected extra argument (b)" in r.err
    r = clean.run("pick", "--fast", "a")
    assert r.returncode == 2 and r.err.startswith("error: unknown option 'fast'\nusage: git ai-apply pick ")
    assert clean.snapshot() == before
