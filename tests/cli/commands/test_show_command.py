"""cli/commands/show.py: `git ai-apply show PATH...` takes paths as the shell gives them
(relative to the current folder, or absolute, a worktree reached through a symbolic link
too) and names each by its path in the repository, one view per path in order; --rev
with --base names REV's commit (a tag peeled); no PATH or a missing one is a usage
error."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.locate.hashline import line_id


def view(path: str, lines: list[str]) -> list[str]:
    return ([f'<FILE_CONTENT path="{path}">']
            + [f"{n}#{line_id(text)}:{text}" for n, text in enumerate(lines, 1)]
            + ["</FILE_CONTENT>"])


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("top.txt", "top\n")
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.git("tag", "-a", "v1", "-m", "first")
    repo.write("src/b.txt", "alpha\nbeta\ngamma\n")
    repo.commit_all("second")
    return repo


def test_paths_are_the_shells_and_views_name_them_from_the_root(based: GitRepo):
    r = based.run("show", "b.txt", "../top.txt", str(based.root / "src" / "b.txt"),
                  cwd=based.root / "src")
    assert r.returncode == 0, r.err
    assert r.out.splitlines() == (view("src/b.txt", ["alpha", "beta", "gamma"])
                                  + view("top.txt", ["top"])
                                  + view("src/b.txt", ["alpha", "beta", "gamma"]))


def test_a_worktree_named_through_a_symbolic_link(based: GitRepo, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(based.root)
    env = dict(based.env, GIT_DIR=str(link / ".git"), GIT_WORK_TREE=str(link))
    r = based.run("show", "b.txt", cwd=based.root / "src", env=env)
    assert r.returncode == 0, r.err
    assert r.out.splitlines() == view("src/b.txt", ["alpha", "beta", "gamma"])


def test_rev_and_base_name_the_revisions_commit(based: GitRepo):
    r = based.run("show", "--rev", "v1", "--base", "b.txt", cwd=based.root / "src")
    assert r.returncode == 0, r.err
    commit = based.git("rev-parse", "v1^{commit}").strip()
    assert commit != based.git("rev-parse", "v1").strip()  # an annotated tag: peeled
    assert r.out.splitlines() == view("src/b.txt", ["alpha", "beta"]) + [f"AI-Base: {commit}"]


def test_usage_errors(based: GitRepo):
    r = based.run("show")
    assert r.returncode == 2 and r.out == ""
    assert "Missing argument 'PATHS...'" in r.err
    r = based.run("show", "nope.txt", cwd=based.root / "src")
    assert r.returncode == 2 and r.out == ""
    assert r.err == "usage error: cannot read src/nope.txt\n"
