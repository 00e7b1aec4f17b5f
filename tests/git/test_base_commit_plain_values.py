"""git/base_commit.py: what pipeline asks of the repository, answered in plain values
(ids as str), so that no pygit2 object leaves the git layer (issue 23 item 3)."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError, ErrorKind, UsageError
from git_aiapply.git import base_commit as bc
from git_aiapply.git.repo import Repo
from git_aiapply.plan.plan import FileState, Plan


@pytest.fixture
def two_commits(repo: GitRepo, env) -> GitRepo:
    repo.write("a.txt", "alpha\n")
    repo.commit_all("first")
    repo.write("a.txt", "alpha\nbeta\n")
    repo.commit_all("second\n\nAI-Response: r-1")
    return repo


def test_bases_are_ids_and_tree_ids(two_commits: GitRepo):
    r = Repo(str(two_commits.root))
    head = bc.current_head(r)[1]
    assert head == two_commits.head() and isinstance(head, str)
    base = bc.base_at(r, head)
    assert base == bc.resolve_base(r, "HEAD")
    assert base.tree == two_commits.git("rev-parse", "HEAD^{tree}").strip()
    assert bc.base_at(r, None) is None
    with pytest.raises(UsageError):
        bc.resolve_base(r, "no-such-rev")


def test_history_questions(two_commits: GitRepo):
    r = Repo(str(two_commits.root))
    first = two_commits.git("rev-parse", "HEAD~1").strip()
    head = two_commits.head()
    assert bc.contains(r, head, first) and bc.contains(r, head, head)
    assert not bc.contains(r, first, head)
    assert bc.applied_as(r, head, "r-1", None, bc.base_at(r, head)) == head
    # the tree no longer holds what the commit made: not applied
    assert bc.applied_as(r, head, "r-1", None, bc.base_at(r, first)) is None
    assert bc.applied_as(r, head, "r-2", None, bc.base_at(r, head)) is None


def test_branch_tip_follows_a_symbolic_branch(two_commits: GitRepo):
    r = Repo(str(two_commits.root))
    two_commits.git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
    assert bc.branch_tip(r, "refs/heads/alias") == ("refs/heads/main", two_commits.head())
    assert bc.branch_tip(r, "refs/heads/new") == ("refs/heads/new", None)


def test_commit_onto_branch_from_plain_values(two_commits: GitRepo):
    r = Repo(str(two_commits.root))
    base = bc.base_at(r, two_commits.head())
    plan = Plan({"a.txt": FileState(0o100644, b"gamma\n")},
                {"a.txt": FileState(0o100644, b"alpha\nbeta\n")})
    res = bc.commit_onto_branch(r, plan, "m\n", "refs/heads/side", base, None, sign=None,
                                edit_message=None, verify=False, formats=[], no_verify=False)
    assert two_commits.git("rev-parse", "side").strip() == res.commit
    assert two_commits.git("show", "side:a.txt") == "gamma\n"
    with pytest.raises(ApplyError) as e:  # the branch moved since it was planned
        bc.commit_onto_branch(r, plan, "m\n", "refs/heads/side", base, base.id, sign=None,
                              edit_message=None, verify=False, formats=[], no_verify=False)
    assert "moved while the response was being applied" in e.value.render()


def test_dirty_and_staged_touched_files_are_refused(two_commits: GitRepo):
    r = Repo(str(two_commits.root))
    base = bc.base_at(r, two_commits.head())
    snapshot = bc.tree_snapshot(r, base, r.workdir)
    bc.refuse_dirty_touched(r, snapshot, ["a.txt"], base)
    two_commits.write("a.txt", "changed\n")
    with pytest.raises(ApplyError) as e:
        bc.refuse_dirty_touched(r, snapshot, ["a.txt"], base)
    assert e.value.kind == ErrorKind.DIRTY
    bc.refuse_dirty_touched(r, snapshot, ["a.txt"], base, cached=True)  # only the index counts
    two_commits.git("add", "a.txt")
    with pytest.raises(ApplyError, match="has staged changes"):
        bc.refuse_dirty_touched(r, snapshot, ["a.txt"], base, cached=True)


def test_current_head_in_plain_values(repo: GitRepo, env):
    r = Repo(str(repo.root))
    assert bc.current_head(r) == ("refs/heads/main", None)  # unborn
    repo.write("a.txt", "alpha\n")
    head = repo.commit_all("first")
    assert bc.current_head(Repo(str(repo.root))) == ("refs/heads/main", head)
    repo.git("checkout", "-q", "--detach")
    assert bc.current_head(Repo(str(repo.root))) == (None, head)
