"""git/refs.py as plain functions on real repositories: branch names as git checks them,
symbolic refs, reflogs, merge bases, deleting a ref only while it is where it was, and the
branches checked out in each worktree, each checked against the git CLI."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError, FatalError, UsageError
from git_aiapply.git.ident import identity
from git_aiapply.git.refs import (
    branch_refname,
    BranchInUse,
    branch_in_use,
    branch_uses,
    delete_ref,
    merge_base,
    refuse_bad_packed_refs,
    reflog,
    remove_ref,
    resolve_symbolic,
    short_branch,
    update_ref,
)
from git_aiapply.git.repo import Repo


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """Two commits on main, the process in the repository with the command's environment."""
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "one\n")
    repo.commit_all("first")
    repo.write("a.txt", "two\n")
    repo.commit_all("second")
    return repo


@pytest.mark.parametrize("name", ["topic", "try/1", "refs/heads/feature-x", "a.b"])
def test_a_branch_name_git_accepts_is_a_branch_ref(base: GitRepo, name):
    short = name.removeprefix("refs/heads/")
    assert branch_refname(name) == f"refs/heads/{short}"
    assert base.git("check-ref-format", "--branch", short).strip() == short


@pytest.mark.parametrize("name", ["", "HEAD", "-x", "a..b", "a b", "x.lock", "a/", "refs/heads/"])
def test_a_branch_name_git_refuses_is_a_usage_error(base: GitRepo, name):
    with pytest.raises(UsageError):
        branch_refname(name)
    before = base.git("for-each-ref", "--format=%(refname)")
    r = subprocess.run(["git", "branch", name.removeprefix("refs/heads/")], cwd=base.root,
                       env=base.env, capture_output=True)
    assert r.returncode != 0 and base.git("for-each-ref", "--format=%(refname)") == before


def test_short_branch_drops_only_refs_heads():
    assert short_branch("refs/heads/try/1") == "try/1"
    assert short_branch("refs/tags/v1") == "refs/tags/v1"
    assert short_branch(None) is None


def test_a_symbolic_branch_resolves_to_the_ref_it_names(base: GitRepo):
    base.git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
    r = Repo(str(base.root)).repo
    assert resolve_symbolic(r, "refs/heads/alias") == "refs/heads/main"
    assert base.git("symbolic-ref", "refs/heads/alias").strip() == "refs/heads/main"
    assert resolve_symbolic(r, "refs/heads/main") == "refs/heads/main"
    assert resolve_symbolic(r, "refs/heads/missing") == "refs/heads/missing"


def test_reflog_is_git_reflog_newest_first(base: GitRepo):
    r = Repo(str(base.root)).repo
    entries = reflog(r, "refs/heads/main")
    git_ids = base.git("reflog", "show", "--format=%H", "refs/heads/main").split()
    assert [str(e.oid_new) for e in entries] == git_ids and len(git_ids) == 2
    assert reflog(r, "refs/heads/missing") == []


def test_merge_base_is_git_merge_base(base: GitRepo):
    fork = base.head()
    base.git("checkout", "-q", "-b", "side")
    base.write("b.txt", "side\n")
    side = base.commit_all("side")
    base.git("checkout", "-q", "main")
    base.write("a.txt", "three\n")
    main = base.commit_all("third")
    r = Repo(str(base.root)).repo
    found = merge_base(r, pygit2.Oid(hex=main), pygit2.Oid(hex=side))
    assert str(found) == base.git("merge-base", main, side).strip() == fork
    assert merge_base(r, pygit2.Oid(hex=main), None) is None


def test_a_ref_is_removed_only_while_it_points_where_expected(base: GitRepo):
    first = base.git("rev-parse", "HEAD~1").strip()
    base.git("branch", "old", first)
    r = Repo(str(base.root))
    with pytest.raises(ApplyError, match="moved; not deleted"):
        remove_ref(r, "refs/heads/old", pygit2.Oid(hex=base.head()))
    assert base.git("rev-parse", "refs/heads/old").strip() == first
    remove_ref(r, "refs/heads/old", pygit2.Oid(hex=first))
    assert base.git("show-ref", "--verify", "--quiet", "refs/heads/old", check=False) == ""
    assert "refs/heads/old" not in base.git("for-each-ref", "--format=%(refname)")


def test_delete_ref_takes_the_reflog_and_empty_folders_as_git_branch_d(base: GitRepo):
    base.git("branch", "try/deep/one")
    logs = base.root / ".git" / "logs" / "refs" / "heads" / "try"
    assert logs.is_dir()
    r = Repo(str(base.root))
    delete_ref(r, "refs/heads/try/deep/one", pygit2.Oid(hex=base.head()))
    assert base.git("branch", "--list", "try/*") == ""
    assert not logs.exists() and not (base.root / ".git" / "refs" / "heads" / "try").exists()
    assert (base.root / ".git" / "refs" / "heads").is_dir()


def test_checked_out_branches_are_those_git_worktree_list_shows(base: GitRepo, tmp_path):
    base.git("branch", "free")
    elsewhere = tmp_path / "linked"
    base.git("worktree", "add", "-q", "-b", "busy", str(elsewhere))
    listed = {}
    for block in base.git("worktree", "list", "--porcelain").strip().split("\n\n"):
        fields = dict(line.split(" ", 1) for line in block.splitlines() if " " in line)
        listed[fields["branch"]] = os.path.realpath(fields["worktree"])
    got = branch_uses(Repo(str(base.root)))
    assert {k: (how, os.path.realpath(v)) for k, (how, v) in got.items()} == {
        k: ("checked out", v) for k, v in listed.items()}
    assert set(listed) == {"refs/heads/main", "refs/heads/busy"}
    # seen alike from the linked worktree
    from_linked = branch_uses(Repo(str(elsewhere)))
    assert from_linked == got


def test_a_branch_being_bisected_is_in_use(base: GitRepo, tmp_path):
    elsewhere = tmp_path / "linked"
    base.git("worktree", "add", "-q", "-b", "hunt", str(elsewhere))
    base.git("bisect", "start", cwd=elsewhere)
    base.git("checkout", "-q", "--detach", "HEAD", cwd=elsewhere)  # as bisect leaves it
    repo = Repo(str(base.root))
    assert branch_in_use(repo, "refs/heads/main").startswith("checked out in ")
    assert branch_in_use(repo, "refs/heads/hunt") == f"being bisected in {elsewhere}"
    base.git("bisect", "reset", cwd=elsewhere)


def test_update_ref_is_compare_and_swap(base: GitRepo):
    base.git("branch", "side")
    first = base.head()
    base.write("a.txt", "second\n")
    second = base.commit_all("second")
    repo = Repo(".")
    r = repo.repo
    who = identity(repo, "committer")
    ids = {h: r.revparse_single(h).id for h in (first, second)}
    with pytest.raises(ApplyError, match="moved"):  # side is at first, not second
        update_ref(repo, "refs/heads/side", ids[first], ids[second], "x", who)
    assert base.git("rev-parse", "side").strip() == first
    update_ref(repo, "refs/heads/side", ids[second], ids[first], "ai-apply: move", who)
    assert base.git("rev-parse", "side").strip() == second
    assert base.git("reflog", "-1", "--format=%gs", "side").strip() == "ai-apply: move"


def test_branch_in_use_names_checked_out_branches(base: GitRepo, tmp_path):
    base.git("branch", "elsewhere")
    base.git("worktree", "add", "-q", str(tmp_path / "linked"), "elsewhere")
    repo = Repo(".")
    assert branch_in_use(repo, "refs/heads/main").startswith("checked out in")
    assert "linked" in branch_in_use(repo, "refs/heads/elsewhere")
    assert branch_in_use(repo, "refs/heads/side") is None


def _uses_of_every_kind(base: GitRepo, tmp_path) -> dict[str, str]:
    """Branches a linked worktree uses, one of each kind git knows: checked out there,
    being rebased there, being bisected there (the state files as git writes them)."""
    for name in ("busy", "rebased", "hunted", "free"):
        base.git("branch", name, "HEAD~1")
    linked = tmp_path / "linked"
    base.git("worktree", "add", "-q", str(linked), "busy")
    gitdir = Path(base.git("rev-parse", "--absolute-git-dir", cwd=linked).strip())
    (gitdir / "rebase-merge").mkdir()
    (gitdir / "rebase-merge" / "head-name").write_text("refs/heads/rebased\n")
    (gitdir / "BISECT_START").write_text("hunted\n")
    (gitdir / "BISECT_LOG").write_text("")
    return {"busy": f"checked out in {linked}", "rebased": f"being rebased in {linked}",
            "hunted": f"being bisected in {linked}"}


def test_no_ref_update_or_delete_touches_a_branch_a_worktree_uses(base: GitRepo, tmp_path):
    """One answer (branch_in_use), asked under the ref's lock by every update and delete:
    a branch checked out, rebased or bisected in a worktree stays where it is, as git
    refuses `git branch -f` and `git branch -D` for it."""
    uses = _uses_of_every_kind(base, tmp_path)
    repo = Repo(".")
    who = identity(repo, "committer")
    old = pygit2.Oid(hex=base.git("rev-parse", "HEAD~1").strip())
    new = pygit2.Oid(hex=base.head())
    for name, why in uses.items():
        refname = f"refs/heads/{name}"
        assert branch_in_use(repo, refname) == why
        with pytest.raises(BranchInUse, match=f"cannot update branch '{name}': it is {why}"):
            update_ref(repo, refname, new, old, "x", who)
        with pytest.raises(BranchInUse, match=f"cannot delete branch '{name}': it is {why}"):
            delete_ref(repo, refname, old)
        with pytest.raises(BranchInUse):  # not even as the run's own checked-out branch
            update_ref(repo, refname, new, old, "x", who, mine=True)
        assert base.git("rev-parse", name).strip() == str(old)
        git_says = subprocess.run(["git", "branch", "-f", name, "HEAD"], cwd=base.root,
                                  env=base.env, capture_output=True)
        assert git_says.returncode != 0 and b"checked out" in git_says.stderr
    assert branch_in_use(repo, "refs/heads/free") is None
    update_ref(repo, "refs/heads/free", new, old, "x", who)
    delete_ref(repo, "refs/heads/free", new)
    # the current branch: in use here, which is no use for the run committing onto it
    assert branch_in_use(repo, "refs/heads/main").startswith("checked out in ")
    assert branch_in_use(repo, "refs/heads/main", mine=True) is None
    assert branch_in_use(Repo(str(tmp_path / "linked")), "refs/heads/busy", mine=True) is None
    assert branch_in_use(repo, "HEAD") is None


_SHA = "34f03fbfac3880dffd331663d3e64f478537ab07"


@pytest.mark.parametrize("extra, said", [
    ("", None),
    (f"^{_SHA}\n", None),  # a peeled tag
    ("garbage\n", "unexpected line in .git/packed-refs: garbage"),
    ("\n", "unexpected line in .git/packed-refs: "),
    (f"{_SHA}refs/heads/x\n", f"unexpected line in .git/packed-refs: {_SHA}refs/heads/x"),
    (f"{_SHA} refs/heads/cut", f"unterminated line in .git/packed-refs: {_SHA} refs/heads/cut"),
])
def test_a_packed_refs_line_git_cannot_read_is_fatal_in_its_words(base: GitRepo, extra, said):
    """A file without the sorted trait is read whole at a ref update (git sorts it
    first), and a line git cannot read is fatal in git's words where libgit2 would skip
    it and commit; the words checked against git reading the whole file."""
    base.git("pack-refs", "--all")
    path = base.root / ".git" / "packed-refs"
    unsorted = path.read_bytes().replace(b" sorted", b"", 1)
    path.write_bytes(unsorted + extra.encode())
    git = subprocess.run(["git", "for-each-ref"], cwd=base.root,
                         env=base.env, capture_output=True, text=True)
    if said is None:
        refuse_bad_packed_refs(str(base.root / ".git"))
        assert git.returncode == 0, git.stderr
        return
    with pytest.raises(FatalError) as caught:
        refuse_bad_packed_refs(str(base.root / ".git"))
    assert (caught.value.message, caught.value.kind) == (said, "repository")
    assert git.returncode == 128 and git.stderr == f"fatal: {said}\n"


def test_a_sorted_packed_refs_is_searched_as_git_searches_it(base: GitRepo):
    # git pack-refs writes the sorted trait: a ref update searches the file (a large one
    # is never read whole), so a bad line in it stops only a listing; an unterminated
    # last line stops the update too
    base.git("pack-refs", "--all")
    path = base.root / ".git" / "packed-refs"
    good = path.read_bytes()
    path.write_bytes(good + b"garbage\n")
    refuse_bad_packed_refs(str(base.root / ".git"))  # as `git commit` goes on
    path.write_bytes(good + f"{_SHA} refs/heads/cut".encode())
    with pytest.raises(FatalError, match="unterminated line"):
        refuse_bad_packed_refs(str(base.root / ".git"))
