"""git/gitfile.py: a ``.git`` file (``gitdir: PATH``, left by linked worktrees and
``--separate-git-dir``) followed to the git dir git itself finds, a relative one read from
the gitfile's folder, and anything else given back unchanged."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo
from git_aiapply.git.gitfile import gitfile_target


def _git_dir(repo: GitRepo, where) -> str:
    return os.path.realpath(repo.git("rev-parse", "--absolute-git-dir", cwd=where).strip())


def test_a_linked_worktrees_gitfile_leads_where_git_goes(repo: GitRepo, tmp_path):
    repo.write("a.txt", "a\n")
    repo.commit_all()
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "-b", "other", str(linked))
    gitfile = linked / ".git"
    assert gitfile.is_file()
    assert os.path.realpath(gitfile_target(str(gitfile))) == _git_dir(repo, linked)
    assert _git_dir(repo, linked) != _git_dir(repo, repo.root)


def test_a_separate_git_dir_and_a_relative_gitfile(repo: GitRepo, tmp_path):
    work, store = tmp_path / "work", tmp_path / "store" / "x.git"
    store.parent.mkdir()
    repo.git("init", "-q", f"--separate-git-dir={store}", str(work))
    assert os.path.realpath(gitfile_target(str(work / ".git"))) == _git_dir(repo, work) \
        == os.path.realpath(store)
    # relative to the gitfile's folder (not to the current one), as git reads it
    (work / ".git").write_text("gitdir: ../store/x.git\n")
    assert _git_dir(repo, work) == os.path.realpath(store)
    assert gitfile_target(str(work / ".git")) == os.path.normpath(str(store))


def test_anything_but_a_gitfile_is_given_back(repo: GitRepo, tmp_path):
    folder = str(repo.root / ".git")
    assert gitfile_target(folder) == folder  # a git dir
    missing = str(tmp_path / "nothing" / ".git")
    assert gitfile_target(missing) == missing
    other = tmp_path / "notes.txt"
    other.write_text("not a gitfile\n")
    assert gitfile_target(str(other)) == str(other)


def test_a_gitfile_that_is_not_text_is_given_back(tmp_path):
    binary = tmp_path / ".git"
    binary.write_bytes(b"\xff\xfe gitdir: x")
    assert gitfile_target(str(binary)) == str(binary)
