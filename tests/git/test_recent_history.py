"""git/recent_history.py: the commits a session walked are kept, and the next walk from a
commit whose one parent is the last tip is that commit then the kept ones: always the
walk libgit2 gives from the new tip (checked against it, merges included), redone in
full for any other tip or when the shallow boundary changed."""
from __future__ import annotations

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.git.recent_history import RecentHistory


def walk(r: pygit2.Repository, tip, limit: int = 1000) -> list:
    return [c.id for n, c in zip(range(limit), r.walk(tip, pygit2.enums.SortMode.NONE))]


@pytest.fixture
def merged(repo: GitRepo) -> GitRepo:
    """A history with a merge in it."""
    for n in range(3):
        repo.write("a.txt", f"{n}\n")
        repo.commit_all(f"main {n}")
    repo.git("checkout", "-q", "-b", "side", "HEAD~1")
    for n in range(2):
        repo.write(f"s{n}.txt", "side\n")
        repo.commit_all(f"side {n}\nAI-Response: r{n}\n")
    repo.git("checkout", "-q", "-")
    repo.git("merge", "-q", "--no-edit", "side")
    return repo


def test_kept_and_extended_walks_are_libgit2s_walks(merged: GitRepo):
    r = pygit2.Repository(str(merged.root))
    ref = pygit2.Repository(str(merged.root))  # the walks to compare with
    h = RecentHistory()
    calls = []
    real_walk = r.walk
    r.walk = lambda *a: calls.append(a) or real_walk(*a)  # type: ignore[method-assign]
    tip = r.head.target
    git_dir = str(merged.root / ".git")
    assert [i for i, _m in h.commits(r, tip, 1000, git_dir)] == walk(ref, tip)
    for n in range(3):  # a session's commits, one after another
        merged.write("a.txt", f"next {n}\n")
        tip = pygit2.Oid(hex=merged.commit_all(f"next {n}\nAI-Response: n{n}\n"))
        got = h.commits(r, tip, 1000, git_dir)
        assert [i for i, _m in got] == walk(ref, tip)
        assert got[0][1] is not None and got[-1][1] is None  # messages kept only with a trailer
    assert len(calls) == 1  # the first walk only
    assert [i for i, _m in h.commits(r, tip, 3, git_dir)] == walk(ref, tip, 3)  # another limit
    merged.git("checkout", "-q", "side")  # another tip: walked in full
    side = r.head.target
    assert [i for i, _m in h.commits(r, side, 3, git_dir)] == walk(ref, side, 3)
    assert len(calls) == 3


def test_a_changed_shallow_boundary_walks_again(merged: GitRepo):
    r = pygit2.Repository(str(merged.root))
    h = RecentHistory()
    git_dir = str(merged.root / ".git")
    tip = r.head.target
    first = h.commits(r, tip, 1000, git_dir)
    (merged.root / ".git" / "shallow").write_text(str(r[tip].parent_ids[0]) + "\n")
    r = pygit2.Repository(str(merged.root))
    again = h.commits(r, tip, 1000, git_dir)
    assert again is not first and [i for i, _m in again] == walk(r, tip)


def test_a_commit_missing_from_the_store_ends_the_walk_as_a_shallow_boundary(repo: GitRepo):
    """`git commit` works in a repository that lacks an old commit; the already-applied
    search must too: the walk stops where the history is cut."""
    for n in range(4):
        repo.write("a.txt", f"{n}\n")
        repo.commit_all(f"c{n}\nAI-Response: r{n}\n" if n == 2 else f"c{n}")
    gone = repo.git("rev-parse", "HEAD~2").strip()
    (repo.root / ".git" / "objects" / gone[:2] / gone[2:]).unlink()
    r = pygit2.Repository(str(repo.root))
    got = RecentHistory().commits(r, r.head.target, 10, str(repo.root / ".git"))
    assert [str(oid) for oid, _ in got] == [repo.head(), repo.git("rev-parse", "HEAD~1").strip()]
    assert got[1][1] is not None  # its trailer is read, as in a whole walk
