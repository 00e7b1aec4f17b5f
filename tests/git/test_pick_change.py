"""git/pick_change.py on real repositories: an attempt's change merged onto HEAD as `git
cherry-pick` merges it (renames followed, conflicts named, an unborn HEAD), and
``commit_pick`` writing it through the worktree transaction, as a fast-forward (no hooks,
the attempt's own commit) or as a new commit (the hooks run), all or nothing."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.git.pick_change import commit_pick, fast_forward_plan, merged_change
from git_aiapply.git.repo import Repo

LINES = "".join(f"line {i}\n" for i in range(1, 11))


def _attempt(repo: GitRepo) -> dict[str, str]:
    """base: a.txt, b.txt; the attempt (branch try): a.txt moved to moved.txt, its last line
    changed; main: a.txt's first line changed."""
    repo.write("a.txt", LINES)
    repo.write("b.txt", "bee\n")
    ids = {"base": repo.commit_all("base")}
    repo.git("checkout", "-q", "-b", "try")
    os.rename(repo.root / "a.txt", repo.root / "moved.txt")
    repo.write("moved.txt", LINES.replace("line 10", "line TEN"))
    ids["tip"] = repo.commit_all("the attempt\n\nits body")
    repo.git("checkout", "-q", "main")
    return ids


@pytest.fixture
def picked(repo: GitRepo, env, monkeypatch) -> GitRepo:
    monkeypatch.chdir(repo.root)
    repo.ids = _attempt(repo)  # type: ignore[attr-defined]
    return repo


def _head_moves(repo: GitRepo, text: str) -> str:
    repo.write("a.txt", text)
    return repo.commit_all("main moves")


def test_the_change_merges_onto_head_as_git_cherry_pick_merges_it(picked: GitRepo):
    ids = picked.ids
    head = _head_moves(picked, LINES.replace("line 1\n", "line ONE\n"))
    merged = merged_change(Repo("."), ids["base"], head, ids["tip"])
    assert merged.conflicts is None
    picked.git("cherry-pick", "--no-commit", ids["tip"])  # what git makes of it
    changed = picked.git("diff", "--cached", "--no-renames", "--name-only", head).split()
    assert sorted(merged.plan.final) == changed == ["a.txt", "moved.txt"]
    assert merged.plan.final["a.txt"] is None  # moved away
    assert merged.plan.final["moved.txt"].data == picked.git("show", ":moved.txt").encode()
    assert b"line ONE\n" in merged.plan.final["moved.txt"].data  # HEAD's change followed it
    assert merged.plan.base["moved.txt"] is None and merged.plan.base["a.txt"].data == \
        picked.git("show", f"{head}:a.txt").encode()


def test_a_conflict_names_the_paths_git_cherry_pick_leaves_unmerged(picked: GitRepo):
    ids = picked.ids
    head = _head_moves(picked, LINES.replace("line 10", "line 10 on main"))
    before = picked.snapshot()
    merged = merged_change(Repo("."), ids["base"], head, ids["tip"])
    assert merged.conflicts is not None and merged.plan is None
    assert picked.snapshot() == before  # asking writes nothing
    picked.git("cherry-pick", ids["tip"], check=False)  # git stops on the conflict
    unmerged = set(picked.git("diff", "--name-only", "--diff-filter=U").split())
    picked.git("cherry-pick", "--abort")
    # git names the conflict at the new path; the merge names both sides of the rename
    assert unmerged == {"moved.txt"}
    assert merged.conflicts == ["a.txt", "moved.txt"]


def test_onto_an_unborn_head_everything_of_the_tip_comes(picked: GitRepo):
    tip = picked.ids["tip"]
    files = dict(picked.tree(tip))
    r = Repo(".")
    for plan in (fast_forward_plan(r, None, tip), merged_change(r, None, None, tip).plan):
        assert {p: (st.mode, st.data) for p, st in plan.final.items()} == \
            {p: (int(mode, 8), data) for p, (mode, data) in files.items()}
        assert set(plan.base.values()) == {None}
    plan = fast_forward_plan(r, picked.ids["base"], tip)  # from the base: only what changed
    assert sorted(plan.final) == ["a.txt", "moved.txt"]


def _failing_hook(repo: GitRepo) -> None:
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\necho no commits today >&2\nexit 1\n",
               mode=0o755)


def test_a_fast_forward_moves_the_branch_to_the_attempt_and_runs_no_hook(picked: GitRepo):
    ids = picked.ids
    _failing_hook(picked)
    r = Repo(".")
    plan = fast_forward_plan(r, ids["base"], ids["tip"])
    message = picked.git("cat-file", "commit", ids["tip"]).split("\n\n", 1)[1]  # as pick gives it
    res = commit_pick(r, plan, message, r.head(), reflog_prefix="ai-apply pick try (fast-forward)",
                      fast_forward_to=ids["tip"])
    assert str(res.commit) == picked.head() == ids["tip"]  # the attempt's own commit
    assert picked.git("status", "--porcelain") == ""
    assert sorted(os.listdir(picked.root)) == [".git", "b.txt", "moved.txt"]
    assert picked.git("reflog", "-1", "--format=%gs", "main").strip() == \
        "ai-apply pick try (fast-forward): the attempt"


def test_a_fast_forward_to_a_commit_that_is_not_the_plan_changes_nothing(picked: GitRepo):
    ids = picked.ids
    r = Repo(".")
    plan = fast_forward_plan(r, ids["base"], ids["tip"])
    before = picked.snapshot()
    with pytest.raises(ApplyError, match="cannot fast-forward to .*not the planned result"):
        commit_pick(r, plan, "m\n", r.head(), reflog_prefix="p", fast_forward_to=ids["base"])
    assert picked.snapshot() == before


def test_a_merged_pick_is_a_new_commit_through_the_hooks(picked: GitRepo):
    ids = picked.ids
    head = _head_moves(picked, LINES.replace("line 1\n", "line ONE\n"))
    picked.settle()
    _failing_hook(picked)
    r = Repo(".")
    plan = merged_change(r, ids["base"], head, ids["tip"]).plan
    before = picked.snapshot()
    with pytest.raises(ApplyError) as e:
        commit_pick(r, plan, "picked\n", r.head(), reflog_prefix="ai-apply pick try")
    assert "pre-commit" in e.value.render() and "no commits today" in e.value.render()
    assert picked.snapshot() == before  # all or nothing
    res = commit_pick(Repo("."), plan, "picked\n", ("refs/heads/main", r.head()[1]),
                      reflog_prefix="ai-apply pick try", no_verify=True)
    assert str(res.commit) == picked.head() != ids["tip"]
    assert picked.git("rev-parse", "HEAD^").strip() == head
    assert picked.message() == "picked\n\n"
    assert picked.git("status", "--porcelain") == ""
    assert picked.git("show", "HEAD:moved.txt") == \
        LINES.replace("line 1\n", "line ONE\n").replace("line 10", "line TEN")
    assert picked.git("reflog", "-1", "--format=%gs", "main").strip() == "ai-apply pick try: picked"
