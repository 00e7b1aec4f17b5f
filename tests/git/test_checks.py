"""git/checks.py on real repositories: the refusals the repository itself causes (a run's
journal, a merge/rebase/cherry-pick/revert in progress, unmerged entries, dirty touched
files, no worktree), each raised with its kind and checked against what the git CLI says."""
from __future__ import annotations

import json
import os

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError, ErrorKind, FatalError, UsageError
from git_aiapply.git.checks import (
    CLEAN_HINT,
    CLEAN_ONLY,
    refuse_dirty,
    refuse_in_progress,
    refuse_interrupted,
    refuse_unmerged,
    require_worktree,
)
from git_aiapply.git.repo import Repo
from git_aiapply.git.state import TreeSnapshot


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """A committed repository, the process in it with the command's environment."""
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.write("c.txt", "gamma\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def _head_snapshot(r: Repo) -> TreeSnapshot:
    return TreeSnapshot(r.repo, r.repo.revparse_single("HEAD").tree, r.workdir)


def _conflict(repo: GitRepo, paths=("a.txt",)) -> tuple[str, str]:
    """Branch ``other`` and main each change ``paths`` differently; returns (main, other)."""
    repo.git("checkout", "-q", "-b", "other")
    for p in paths:
        repo.write(p, f"theirs {p}\n")
    other = repo.commit_all("theirs")
    repo.git("checkout", "-q", "main")
    for p in paths:
        repo.write(p, f"ours {p}\n")
    return repo.commit_all("ours"), other


def _diverged(repo: GitRepo) -> None:
    """main: base -> ours -> again (a.txt each time); other: base -> theirs (a.txt)."""
    repo.write("a.txt", "alpha\n")
    repo.commit_all("base")
    _conflict(repo)
    repo.write("a.txt", "ours again\n")
    repo.commit_all("again")


@pytest.fixture
def diverged(repo: GitRepo, env, monkeypatch, copy_of) -> GitRepo:
    copy_of(repo, "checks-diverged", _diverged)
    monkeypatch.chdir(repo.root)
    return repo


def test_no_journal_passes_and_a_live_runs_journal_is_fatal(base: GitRepo):
    gitdir = base.git("rev-parse", "--absolute-git-dir").strip()
    refuse_interrupted(gitdir)  # no journal: nothing to say
    journal = os.path.join(gitdir, "AI_APPLY_JOURNAL")
    with open(journal, "w") as f:
        json.dump({"pid": os.getpid()}, f)  # a live process: a run going on
    with pytest.raises(FatalError) as e:
        refuse_interrupted(gitdir)
    assert e.value.kind == ErrorKind.STATE and e.value.exit_code == 128
    assert f"another git ai-apply (pid {os.getpid()})" in e.value.message
    assert e.value.message.endswith("; nothing was changed") and "wait" in e.value.hint
    assert os.path.exists(journal)  # never removed by the check


@pytest.mark.parametrize("operation, status, what, cure", [
    (("merge", "other"), "You have unmerged paths", "a merge", "git merge --abort"),
    (("cherry-pick", "other"), "You are currently cherry-picking", "a cherry-pick",
     "git cherry-pick --continue"),
    (("revert", "--no-edit", "HEAD~1"), "You are currently reverting", "a revert",
     "git revert --continue"),
    (("rebase", "other"), "rebase in progress", "a rebase", "git rebase --abort"),
])
def test_an_operation_git_has_in_progress_is_refused_until_it_ends(diverged: GitRepo,
                                                                   operation, status, what, cure):
    refuse_in_progress(Repo("."))  # nothing in progress yet
    diverged.git(*operation, check=False)  # each stops on a conflict in a.txt
    assert status in diverged.git("status")  # git says so too
    with pytest.raises(FatalError) as e:
        refuse_in_progress(Repo("."))
    assert e.value.kind == ErrorKind.STATE
    assert f"in the middle of {what};" in e.value.message and cure in e.value.message
    diverged.git(operation[0], "--abort")
    refuse_in_progress(Repo("."))  # over once git says so


def test_unmerged_entries_are_refused_naming_the_first_five(base: GitRepo):
    paths = [f"f{i}.txt" for i in range(7)]
    for p in paths:
        base.write(p, "base\n")
    base.commit_all("more")
    _conflict(base, paths)
    refuse_unmerged(Repo(".").read_index())  # a clean index passes
    base.git("merge", "-q", "other", check=False)
    unmerged = base.git("diff", "--name-only", "--diff-filter=U").split()
    assert unmerged == paths
    with pytest.raises(FatalError) as e:
        refuse_unmerged(Repo(".").read_index())
    assert e.value.kind == ErrorKind.STATE
    assert "(" + ", ".join(unmerged[:5]) + ", ...)" in e.value.message
    assert unmerged[5] not in e.value.message


def test_every_dirty_touched_path_is_named_with_the_refusal_and_its_hint(base: GitRepo):
    r = Repo(".")
    refuse_dirty(r, r.read_index(), _head_snapshot(r), ["a.txt", "b.txt", "new.txt"])
    base.write("b.txt", "unstaged\n")
    base.write("a.txt", "staged\n")
    base.git("add", "a.txt")
    base.write("c.txt", "dirty but not touched\n")
    before = base.snapshot()
    with pytest.raises(ApplyError) as e:
        refuse_dirty(r, r.read_index(), _head_snapshot(r), ["b.txt", "a.txt"])
    assert e.value.kind == ErrorKind.DIRTY and e.value.exit_code == 1
    assert [p.file for p in e.value.problems] == ["a.txt", "b.txt"]  # sorted, c.txt not touched
    assert [p.reason for p in e.value.problems] == [
        f"a.txt has staged changes; {CLEAN_ONLY}", f"b.txt has unstaged changes; {CLEAN_ONLY}"]
    assert {p.hint for p in e.value.problems} == {CLEAN_HINT}
    status = {line[3:]: line[:2] for line in base.git("status", "--porcelain").splitlines()}
    assert status == {"a.txt": "M ", "b.txt": " M", "c.txt": " M"}
    with pytest.raises(ApplyError) as e:  # another command's words
        refuse_dirty(r, r.read_index(), _head_snapshot(r), ["b.txt"], refusal="no", hint="h")
    assert [(p.reason, p.hint) for p in e.value.problems] == [
        ("b.txt has unstaged changes; no", "h")]
    assert base.snapshot() == before


def test_a_file_to_restore_that_is_back_on_disk_is_refused(base: GitRepo):
    base.git("rm", "-q", "c.txt")
    base.commit_all("drop c")
    r = Repo(".")
    refuse_dirty(r, r.read_index(), _head_snapshot(r), ["c.txt"], restored=["c.txt"])
    base.write("c.txt", "mine now\n")
    assert base.git("status", "--porcelain") == "?? c.txt\n"
    with pytest.raises(ApplyError) as e:
        refuse_dirty(r, r.read_index(), _head_snapshot(r), ["c.txt"], restored=["c.txt"])
    assert [p.reason for p in e.value.problems] == [
        "c.txt is in the worktree again (untracked); restoring it would overwrite that file; "
        + CLEAN_ONLY]
    # named once when it is dirty as well
    base.write("b.txt", "changed\n")
    with pytest.raises(ApplyError) as e:
        refuse_dirty(r, r.read_index(), _head_snapshot(r), ["b.txt"], restored=["b.txt"])
    assert [p.reason for p in e.value.problems] == [f"b.txt has unstaged changes; {CLEAN_ONLY}"]


def test_a_bare_repository_has_no_worktree_to_write(base: GitRepo, tmp_path):
    require_worktree(Repo("."))
    bare = tmp_path / "bare.git"
    base.git("clone", "-q", "--bare", str(base.root), str(bare))
    assert base.git("rev-parse", "--is-bare-repository", cwd=bare).strip() == "true"
    with pytest.raises(UsageError, match="bare repository: use --branch NAME"):
        require_worktree(Repo(str(bare)))
    with pytest.raises(UsageError, match="^pick needs a worktree$"):
        require_worktree(Repo(str(bare)), "pick needs a worktree")
