"""git/state.py as plain functions on real repositories: what a file is on disk and in a
commit's tree, whether the worktree and the index agree with HEAD, the conflict stages,
and the plan between two trees, each checked against what the git CLI says."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.git.repo import Repo
from git_aiapply.git.state import (
    TreeSnapshot,
    blob_id,
    dirty_paths,
    patch_text,
    plan_between,
    read_disk,
    refuse_symlinked_parent,
    symlinked_parent,
    tree_entry,
    unmerged_paths,
    worktree_matches,
)
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileState


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """A committed repository, the process in it with the command's environment."""
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "alpha\n")
    repo.write("src/b.txt", "beta\n")
    repo.write("run.sh", "#!/bin/sh\n", mode=0o755)
    os.symlink("a.txt", repo.root / "link")
    repo.commit_all()
    repo.settle()
    return repo


def _head_snapshot(r: Repo) -> TreeSnapshot:
    return TreeSnapshot(r.repo, r.repo.revparse_single("HEAD").tree, r.workdir)


def test_blob_id_is_the_id_git_hash_object_gives(base: GitRepo):
    for data in (b"", b"alpha\n", b"\0binary\xff", "é\r\n".encode()):
        assert blob_id(data) == base.git("hash-object", "--stdin", input=data).strip()


def test_read_disk_gives_mode_and_bytes_as_on_disk(base: GitRepo):
    workdir = str(base.root)
    assert read_disk(workdir, "a.txt") == FileState(MODE_FILE, b"alpha\n")
    assert read_disk(workdir, "run.sh").mode == MODE_EXEC
    assert read_disk(workdir, "link") == FileState(MODE_LINK, b"a.txt")
    assert read_disk(workdir, "missing.txt") is None
    assert read_disk(workdir, "src") is None  # a folder is no file


def test_a_symlinked_folder_is_never_read_through(base: GitRepo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, base.root / "linked")
    workdir = str(base.root)
    assert symlinked_parent(workdir, "linked/secret.txt") == "linked"
    assert symlinked_parent(workdir, "src/b.txt") is None
    assert symlinked_parent(workdir, "new/folder/c.txt") is None  # missing: made by the writer
    assert symlinked_parent(workdir, "a.txt/c.txt") == "a.txt"  # a file on the way
    assert read_disk(workdir, "linked/secret.txt") is None
    with pytest.raises(ApplyError, match="linked is a symbolic link on disk"):
        refuse_symlinked_parent(workdir, "linked/secret.txt")
    refuse_symlinked_parent(workdir, "src/b.txt")


def test_the_tree_snapshot_answers_as_git_ls_tree(base: GitRepo):
    snap = _head_snapshot(Repo(str(base.root)))
    listed = {}
    for line in base.git("ls-tree", "-r", "-t", "HEAD").splitlines():
        meta, path = line.split("\t")
        mode, kind, oid = meta.split()
        listed[path] = (int(mode, 8), kind, oid)
    assert {p: snap.kind(p) for p in listed} == {
        "a.txt": "file", "run.sh": "file", "link": "symlink", "src": "dir", "src/b.txt": "file"}
    for path, (mode, kind, oid) in listed.items():
        assert tree_entry(snap.tree, path) == (mode, snap.repo[oid].id)
        if kind == "blob":
            assert snap.entry(path) == (mode, base.git("cat-file", "blob", oid).encode())
    assert snap.entry("src") is None and snap.kind("nowhere/x") is None
    assert snap.files_under("src") == 1 and snap.files_under("nowhere") is None
    assert snap.disk_kind("src") == "dir" and snap.disk_kind("link") == "symlink"


def test_a_tracked_folder_that_is_a_link_on_disk_counts_as_a_link(base: GitRepo, tmp_path):
    (base.root / "src" / "b.txt").unlink()
    (base.root / "src").rmdir()
    os.symlink(tmp_path, base.root / "src")
    snap = _head_snapshot(Repo(str(base.root)))
    assert snap.kind("src") == "symlink"
    assert snap.disk_kind("src/b.txt") == "symlink"  # below a link


def test_worktree_matches_as_git_diff_files_decides(base: GitRepo):
    base.write("a.txt", "changed\n")
    r = Repo(str(base.root))
    index = r.read_index()
    unstaged = set(base.git("diff-files", "--name-only").split())
    for path in ("a.txt", "src/b.txt", "run.sh", "link"):
        e = index[path]
        assert worktree_matches(r, path, int(e.mode), e.id, index) == (path not in unstaged)
    assert unstaged == {"a.txt"}
    os.chmod(base.root / "run.sh", 0o644)  # the mode counts while core.fileMode is on
    e = index["run.sh"]
    assert not worktree_matches(r, "run.sh", int(e.mode), str(e.id), index)


def test_dirty_paths_name_what_git_status_shows(base: GitRepo):
    base.write("a.txt", "unstaged\n")
    base.write("src/b.txt", "staged\n")
    base.git("add", "src/b.txt")
    (base.root / "run.sh").unlink()
    r = Repo(str(base.root))
    got = dict(dirty_paths(r, r.read_index(), _head_snapshot(r),
                           ["a.txt", "src/b.txt", "run.sh", "link", "new.txt"]))
    assert got == {"a.txt": "has unstaged changes", "src/b.txt": "has staged changes",
                   "run.sh": "was deleted in the worktree"}
    status = {line[3:]: line[:2] for line in base.git("status", "--porcelain").splitlines()}
    assert status == {"a.txt": " M", "src/b.txt": "M ", "run.sh": " D"}


def test_unmerged_paths_are_those_git_lists_as_unmerged(base: GitRepo):
    base.git("checkout", "-q", "-b", "other")
    base.write("a.txt", "theirs\n")
    base.commit_all("theirs")
    base.git("checkout", "-q", "main")
    base.write("a.txt", "ours\n")
    base.commit_all("ours")
    assert base.git("merge", "-q", "other", check=False) is not None
    r = Repo(str(base.root))
    index = r.read_index()
    assert unmerged_paths(index) == ["a.txt"]
    assert base.git("diff", "--name-only", "--diff-filter=U").split() == ["a.txt"]
    assert dirty_paths(r, index, _head_snapshot(r), ["a.txt"]) == [
        ("a.txt", "has unresolved merge conflicts")]
    base.git("merge", "--abort")
    assert unmerged_paths(Repo(str(base.root)).read_index()) == []


def test_plan_between_two_trees_is_the_change_git_diff_finds(base: GitRepo):
    old = base.head()
    base.git("mv", "src/b.txt", "src/renamed.txt")
    base.write("a.txt", "alpha\nmore\n")
    base.git("rm", "-q", "run.sh")
    base.write("added.txt", "new\n")
    base.commit_all("second")
    r = Repo(str(base.root))
    plan = plan_between(r.repo, r.repo[old].tree, r.repo.revparse_single("HEAD").tree)
    got = {(c.action, c.path, c.old_path) if c.action == "rename" else (c.action, c.path)
           for c in plan.changes}
    assert got == {("update", "a.txt"), ("delete", "run.sh"), ("add", "added.txt"),
                   ("rename", "src/renamed.txt", "src/b.txt")}
    status = base.git("diff", "--name-status", "-M", old, "HEAD").split("\n")
    assert sorted(s for s in status if s) == ["A\tadded.txt", "D\trun.sh", "M\ta.txt",
                                              "R100\tsrc/b.txt\tsrc/renamed.txt"]
    assert plan.final["a.txt"] == FileState(MODE_FILE, b"alpha\nmore\n")
    assert plan.final["run.sh"] is None and plan.final["src/b.txt"] is None
    assert plan.base["added.txt"] is None and plan.base["a.txt"] == FileState(MODE_FILE, b"alpha\n")


def test_patch_text_holds_the_hunk_git_diff_prints(base: GitRepo):
    base.write("a.txt", "alpha\nmore\n")
    text = patch_text(b"alpha\n", b"alpha\nmore\n", "a.txt", "a.txt")
    git_diff = base.git("diff", "a.txt")
    assert text[text.index("@@"):] == git_diff[git_diff.index("@@"):]
    assert patch_text(b"same\n", b"same\n", "a.txt", "a.txt") == ""


def test_folder_questions_answer_in_names_as_git_ls_tree(base: GitRepo):
    # the core asks the snapshot about folders in plain names (no pygit2 tree leaves git/)
    base.write("src/deep/c.txt", "gamma\n")
    base.commit_all()
    snap = _head_snapshot(Repo(str(base.root)))
    root = base.git("ls-tree", "--name-only", "HEAD").split()
    assert sorted(snap.names_in("")) == sorted(root)
    assert sorted(snap.names_in("src")) == sorted(
        base.git("ls-tree", "--name-only", "HEAD:src").split())
    every = base.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert sorted(p for p, _kind in snap.paths_under("")) == sorted(every)
    assert sorted(p for p, _kind in snap.paths_under("src")) == sorted(
        p for p in every if p.startswith("src/"))
    assert dict(snap.paths_under(""))["link"] == "symlink"
    assert snap.files_under("src") == 2
    assert len(snap.paths_under("", budget=2)) >= 2
    # a file or a missing path is no folder: None, not an error
    for not_a_folder in ("a.txt", "src/b.txt", "missing", "a.txt/x"):
        assert snap.names_in(not_a_folder) is None
        assert snap.paths_under(not_a_folder) is None
        assert snap.files_under(not_a_folder) is None
