"""cli/commands/undo.py: what `git ai-apply undo` prints (one commit or a --batch of them,
then the files), -q and --json together, its usage errors, and the repository missing
(git's fatal, and with --json the fatal object docs/JSON.md gives)."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo


def patch(path: str, old: str, new: str, why: str) -> str:
    return (f"{why}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n-{old}\n+{new}\n"
            "</FILE_PATCH>\n</FILE_CHANGES>\n")


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit_all("base")
    return repo


def test_batch_text_names_the_commits_and_the_files(based: GitRepo, tmp_path):
    base = based.head()
    files = []
    for k, (path, old, new) in enumerate((("a.txt", "alpha", "ALPHA"), ("b.txt", "beta", "BETA"))):
        p = tmp_path / f"r{k}.md"
        p.write_text(patch(path, old, new, f"Step {k}."))
        files.append(str(p))
    assert based.run(*files).returncode == 0
    newest = based.head()
    r = based.run("undo", "--batch")
    assert (r.returncode, r.err) == (0, "")
    assert r.out.splitlines() == [
        f"undid 2 commits, the newest {newest[:7]} Step 1; main is now at {base[:7]}",
        " revert a.txt", " revert b.txt"]
    assert based.head() == base


def test_quiet_says_nothing_but_json_still_answers(based: GitRepo):
    assert based.run(response=patch("a.txt", "alpha", "ALPHA", "Shout.")).returncode == 0
    assert based.run(response=patch("b.txt", "beta", "BETA", "Shout more.")).returncode == 0
    r = based.run("undo", "-q")
    assert (r.returncode, r.out, r.err) == (0, "", "")
    assert based.git("log", "-1", "--format=%s").strip() == "Shout"
    r = based.run("undo", "-q", "--json")
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "undone" and out["subject"] == "Shout" and out["head"] == based.head()


def test_usage_errors_change_nothing(based: GitRepo):
    assert based.run(response=patch("a.txt", "alpha", "ALPHA", "Shout.")).returncode == 0
    before = based.snapshot()
    r = based.run("undo", "--hard")
    assert r.returncode == 2 and r.out == ""
    assert r.err.startswith("error: unknown option 'hard'\nusage: git ai-apply undo [OPTIONS]\n")
    r = based.run("undo", "HEAD~1")
    assert r.returncode == 2 and "Got unexpected extra argument (HEAD~1)" in r.err
    assert based.snapshot() == before


@pytest.fixture
def outside(tmp_path, git_env):
    folder = tmp_path / "outside"
    folder.mkdir()
    return GitRepo(folder, dict(git_env, GIT_CEILING_DIRECTORIES=str(tmp_path)))


def test_outside_a_repository_is_fatal(outside: GitRepo):
    r = outside.run("undo")
    assert (r.returncode, r.out) == (128, "")
    assert r.err == "fatal: not a git repository (or any of the parent directories): .git\n"


def test_outside_a_repository_json_gives_the_fatal_object(outside: GitRepo):
    r = outside.run("undo", "--json")
    assert r.returncode == 128
    out = json.loads(r.out)
    assert out["status"] == "fatal" and out["exit_code"] == 128
    assert out["fault"] == "repository"
