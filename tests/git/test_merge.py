"""git/merge.py on real repositories: the three-way merge of one file (clean, in conflict,
any bytes, a side absent) as `git merge-file` makes it, the commits of the first-parent
history that touched some paths as `git log --first-parent -- PATHS` lists them, and
renames as `git diff -M` finds them."""
from __future__ import annotations

import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.git.merge import commits_touching, merge_file, renamed_since
from git_aiapply.git.repo import Repo

FILE = 0o100644


@pytest.fixture
def r(repo: GitRepo, env) -> Repo:
    return Repo(str(repo.root))  # an empty repository: a merge needs no history


def merge_file_by_git(repo: GitRepo, tmp_path, ancestor: bytes, ours: bytes,
                      theirs: bytes) -> tuple[bytes, bool]:
    """`git merge-file -p` of the three contents, labelled as libgit2 labels them (the path)."""
    for name, data in (("o", ours), ("b", ancestor), ("t", theirs)):
        (tmp_path / name).write_bytes(data)
    p = subprocess.run(["git", "merge-file", "-p", "-L", "f.txt", "-L", "f.txt", "-L", "f.txt",
                        "o", "b", "t"], cwd=tmp_path, env=repo.env, capture_output=True)
    assert p.returncode < 128, p.stderr  # the number of conflicts
    return p.stdout, p.returncode == 0


@pytest.mark.parametrize("ancestor, ours, theirs", [
    (b"a\nb\nc\nd\ne\n", b"A\nb\nc\nd\ne\n", b"a\nb\nc\nd\nE\n"),  # apart: clean
    (b"a\nb\nc\n", b"a\nX\nc\n", b"a\nY\nc\n"),  # the same line: a conflict
    (b"a\nb\nc\n", b"a\nB\nc\n", b"a\nB\nc\n"),  # the same change on both sides
    (b"caf\xe9\n1\n2\n3\n", b"caf\xe9 au lait\n1\n2\n3\n", b"caf\xe9\n1\n2\n3\n\xff\xfe\n"),
    (b"x\n", b"x\ny", b"w\nx\n"),  # no final newline on one side
])
def test_a_file_merges_as_git_merge_file_merges_it(repo: GitRepo, r: Repo, tmp_path, ancestor,
                                                    ours, theirs):
    got = merge_file(r, "f.txt", (FILE, ancestor), (FILE, ours), (FILE, theirs))
    assert (got.data, got.clean) == merge_file_by_git(repo, tmp_path, ancestor, ours, theirs)
    if not got.clean:
        assert b"<<<<<<< f.txt\n" in got.data and b"\n>>>>>>> f.txt\n" in got.data


def test_absent_sides(r: Repo):
    same = merge_file(r, "f.txt", None, (FILE, b"a\nX\n"), (FILE, b"a\nX\n"))
    assert (same.data, same.clean) == (b"a\nX\n", True)  # added alike on both sides
    apart = merge_file(r, "f.txt", None, (FILE, b"a\nX\n"), (FILE, b"a\nY\n"))
    assert not apart.clean and b"=======" in apart.data  # added differently
    gone = merge_file(r, "f.txt", (FILE, b"a\n"), (FILE, b"a\nX\n"), None)
    assert not gone.clean  # changed on one side, deleted on the other


def test_the_sides_are_written_as_objects_as_git_apply_3_writes_them(repo: GitRepo, r: Repo):
    sides = [b"base side\n", b"our side\n", b"their side\n"]
    ids = [repo.git("hash-object", "--stdin", input=s).strip() for s in sides]
    for oid in ids:
        assert subprocess.run(["git", "cat-file", "-e", oid], cwd=repo.root,
                              env=repo.env).returncode != 0  # not there yet
    merge_file(r, "f.txt", *((FILE, s) for s in sides))
    for oid, data in zip(ids, sides):
        assert repo.git("cat-file", "blob", oid).encode() == data


def _linear_history(repo: GitRepo) -> list[str]:
    """c1 adds a; c2 b; c3 a; c4 b; (side branch changing a, merged in as c5); c6 a."""
    ids = []
    for n, (path, text) in enumerate([("a.txt", "1\n"), ("b.txt", "2\n"), ("a.txt", "3\n"),
                                      ("b.txt", "4\n")], 1):
        repo.write(path, text)
        ids.append(repo.commit_all(f"c{n}"))
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.txt", "side\n")
    repo.commit_all("side")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "c5", "side")
    ids.append(repo.head())
    repo.write("a.txt", "6\n")
    ids.append(repo.commit_all("c6"))
    return ids


def test_commits_touching_are_git_log_first_parent_without_the_start(repo: GitRepo, env):
    ids = _linear_history(repo)
    r = Repo(str(repo.root))
    start = ids[-1]
    for paths in (["a.txt"], ["b.txt"], ["a.txt", "b.txt"], ["nowhere.txt"]):
        logged = repo.git("log", "--first-parent", "--format=%H", start, "--", *paths).split()
        logged = [c for c in logged if c != start]
        assert commits_touching(r, start, paths, 10) == logged, paths
        assert commits_touching(r, start, paths, 1) == logged[:1]
    assert commits_touching(r, ids[4], ["a.txt"], 10)[0] == ids[2]  # the merge itself is the start
    assert commits_touching(r, None, ["a.txt"], 5) == []
    assert commits_touching(r, start, [], 5) == [] == commits_touching(r, start, ["a.txt"], 0)


def test_a_root_start_is_not_among_the_commits_touching(repo: GitRepo, env):
    repo.write("a.txt", "1\n")
    root = repo.commit_all("root")
    assert commits_touching(Repo(str(repo.root)), root, ["a.txt"], 5) == []


def test_renamed_since_is_where_git_diff_finds_each_file_now(repo: GitRepo, env):
    body = "".join(f"line {i}\n" for i in range(20))
    repo.write("old/a.txt", body)
    repo.write("b.txt", body.upper())
    repo.write("gone.txt", "short\n")
    base = repo.commit_all("base")
    (repo.root / "new").mkdir()
    repo.git("mv", "old/a.txt", "new/a.txt")
    repo.write("new/a.txt", body + "one more\n")  # renamed and changed a little
    repo.git("rm", "-q", "gone.txt")
    repo.commit_all("moves")
    r = Repo(str(repo.root))
    tree = r.repo.revparse_single("HEAD").tree.id
    by_git = {tuple(line.split("\t")[1:]): line[0]
              for line in repo.git("diff", "-M", "--name-status", base, "HEAD").splitlines()}
    assert by_git == {("old/a.txt", "new/a.txt"): "R", ("gone.txt",): "D"}
    assert renamed_since(r, base, tree, ["old/a.txt", "gone.txt"]) == {"old/a.txt": "new/a.txt"}
    assert renamed_since(r, base, tree, ["gone.txt"]) == {}  # deleted, not moved
    assert renamed_since(r, base, None, ["old/a.txt"]) == {}
    assert renamed_since(r, base, tree, []) == {}
