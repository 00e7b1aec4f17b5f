"""git/commits.py and git/pick_change.py answer undo, attempts and pick in plain values
(hex ids, text, tuples), so that no pygit2 object leaves the git layer (issue 23)."""
from __future__ import annotations

from conftest import GitRepo

from git_aiapply.git.commits import (branch_refnames, branch_tip_facts, changed_entries,
                                     commit_facts, descends_from, diff_stats, first_parent_run,
                                     paths_in_commit, reflog_moves, ref_exists,
                                     remote_branches_containing)
from git_aiapply.git.pick_change import fast_forward_plan, merged_change
from git_aiapply.git.repo import Repo


def _two_commits(repo: GitRepo) -> tuple[str, str]:
    repo.write("a.txt", "one\n")
    first = repo.commit_all("first")
    repo.write("a.txt", "one\ntwo\n")
    repo.write("dir/b.txt", "b\n")
    second = repo.commit_all("second\n\nbody")
    return first, second


def test_commit_facts_and_ancestry_are_hex_strings(repo: GitRepo):
    first, second = _two_commits(repo)
    r = Repo(str(repo.root))
    facts = commit_facts(r, second)
    assert (facts.id, facts.parents) == (second, (first,))
    assert facts.message.startswith("second\n") and isinstance(facts.raw_message, str)
    assert commit_facts(r, "0" * 40) is None
    assert descends_from(r, second, first) and not descends_from(r, first, second)
    assert not descends_from(r, second, second)  # strictly, as descendant_of
    assert branch_tip_facts(r, "refs/heads/main").id == second
    assert branch_refnames(r) == ["refs/heads/main"]
    assert ref_exists(r, "refs/heads/main") and not ref_exists(r, "refs/heads/nope")
    assert remote_branches_containing(r, second) == []


def test_reflog_moves_name_a_creation_with_no_old_commit(repo: GitRepo):
    first, second = _two_commits(repo)
    moves = reflog_moves(Repo(str(repo.root)), "refs/heads/main")
    assert [(m.old, m.new) for m in moves] == [(first, second), (None, first)]
    assert all(isinstance(m.message, str) for m in moves)


def test_changed_entries_stats_and_paths(repo: GitRepo):
    first, second = _two_commits(repo)
    r = Repo(str(repo.root))
    changes = changed_entries(r, first, second)
    assert sorted(changes) == ["a.txt", "dir/b.txt"]
    old, new = changes["a.txt"]
    assert old[0] == new[0] == 0o100644 and isinstance(old[1], str) and old[1] != new[1]
    assert changes["dir/b.txt"][0] is None
    assert set(changed_entries(r, None, first)) == {"a.txt"}
    assert diff_stats(r, first, second) == (2, 2, 0)
    assert paths_in_commit(r, second, ["a.txt", "dir", "x"]) == {"a.txt", "dir"}
    assert paths_in_commit(r, None, ["a.txt"]) == set()


def test_first_parent_run_stops_where_keep_fails(repo: GitRepo):
    first, second = _two_commits(repo)
    r = Repo(str(repo.root))
    run = first_parent_run(r, second, None, lambda c: c.id == second)
    assert [c.id for c in run.commits] == [second] and run.base.id == first
    run = first_parent_run(r, second, first, lambda c: True)  # first is HEAD's history
    assert [c.id for c in run.commits] == [second] and run.base.id == first


def test_pick_plans_from_ids(repo: GitRepo):
    first, second = _two_commits(repo)
    r = Repo(str(repo.root))
    plan = fast_forward_plan(r, first, second)
    assert sorted(plan.final) == ["a.txt", "dir/b.txt"]
    assert merged_change(r, first, second, second).plan is None  # HEAD holds it already
    merged = merged_change(r, first, first, second)
    assert merged.conflicts is None and sorted(merged.plan.final) == ["a.txt", "dir/b.txt"]
