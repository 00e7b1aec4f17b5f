"""git/take_back.py on real repositories: `undo`'s write, the branch back to the parent
(or deleted, for a root commit), the files the commit touched back as they were in the
worktree and the index, ORIG_HEAD naming the undone commit, and a refusal that changes
nothing when a file is no longer as the commit left it."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError, ErrorKind
from git_aiapply.git.commits import changed_entries
from git_aiapply.git.repo import Repo
from git_aiapply.git.take_back import UNDO_CLEAN_HINT, UNDO_CLEAN_ONLY, take_back_commit


@pytest.fixture
def undoable(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """parent: keep.txt, edit.txt, gone.txt, run.sh; HEAD (the tool's commit): edit.txt
    changed, gone.txt deleted, new/file.txt added, run.sh no longer executable."""
    monkeypatch.chdir(repo.root)
    repo.write("keep.txt", "keep\n")
    repo.write("edit.txt", "before\n")
    repo.write("gone.txt", "bye\n")
    repo.write("run.sh", "#!/bin/sh\n", mode=0o755)
    repo.parent = repo.commit_all("parent")  # type: ignore[attr-defined]
    repo.write("edit.txt", "after\n")
    os.unlink(repo.root / "gone.txt")
    repo.write("new/file.txt", "new\n")
    os.chmod(repo.root / "run.sh", 0o644)
    repo.commit_all("the tool's commit")
    repo.settle()
    return repo


def _undo(repo: GitRepo, message: str = "ai-apply undo: the tool's commit") -> None:
    r = Repo(".")
    branch, head = r.head()
    parent = r.repo[head].parents[0].id if r.repo[head].parents else None
    parent = str(parent) if parent is not None else None
    take_back_commit(r, (branch, head), parent, changed_entries(r, parent, str(head)), message)


def test_the_branch_and_the_files_go_back_to_the_parent(undoable: GitRepo):
    undone = undoable.head()
    _undo(undoable)
    assert undoable.head() == undoable.parent
    assert undoable.git("status", "--porcelain", "--untracked-files=all") == ""
    assert undoable.read("edit.txt") == b"before\n" and undoable.read("gone.txt") == b"bye\n"
    assert not (undoable.root / "new").exists()  # the folder the commit made goes too
    assert os.stat(undoable.root / "run.sh").st_mode & 0o111
    assert undoable.git("rev-parse", "ORIG_HEAD").strip() == undone
    assert undoable.git("reflog", "-1", "--format=%gs", "main").strip() == \
        "ai-apply undo: the tool's commit"
    leftovers = [n for n in os.listdir(undoable.root / ".git") if "lock" in n or "AI_APPLY" in n]
    assert leftovers == []


def test_undo_of_a_root_commit_leaves_the_branch_unborn(repo: GitRepo, env, monkeypatch):
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "alpha\n")
    repo.write("dir/b.txt", "beta\n")
    root = repo.commit_all("root")
    repo.settle()
    _undo(repo, "ai-apply undo: root")
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("rev-parse", "--verify", "-q", "HEAD", check=False) == ""
    assert repo.git("for-each-ref") == ""
    assert repo.git("ls-files") == "" and sorted(os.listdir(repo.root)) == [".git"]
    assert repo.git("rev-parse", "ORIG_HEAD").strip() == root


def test_undo_on_a_detached_head_moves_head(undoable: GitRepo):
    undoable.git("checkout", "-q", "--detach")
    _undo(undoable)
    assert undoable.git("rev-parse", "HEAD").strip() == undoable.parent
    assert undoable.git("rev-parse", "main").strip() != undoable.parent  # the branch stays
    assert undoable.git("status", "--porcelain") == ""


@pytest.mark.parametrize("change, path, why", [
    (lambda r: r.write("edit.txt", "mine\n"), "edit.txt", "has unstaged changes"),
    (lambda r: (r.write("new/file.txt", "mine\n"), r.git("add", "new/file.txt")),
     "new/file.txt", "has staged changes"),
    (lambda r: r.write("gone.txt", "mine\n"), "gone.txt",
     "is in the worktree again (untracked); restoring it would overwrite that file"),
])
def test_a_file_not_as_the_commit_left_it_refuses_everything(undoable: GitRepo, change, path,
                                                             why):
    change(undoable)
    before = undoable.snapshot()
    with pytest.raises(ApplyError) as e:
        _undo(undoable)
    assert e.value.kind == ErrorKind.DIRTY
    assert [(p.file, p.reason, p.hint) for p in e.value.problems] == [
        (path, f"{path} {why}; {UNDO_CLEAN_ONLY}", UNDO_CLEAN_HINT)]
    assert undoable.snapshot() == before
    assert not (undoable.root / ".git" / "ORIG_HEAD").exists()
