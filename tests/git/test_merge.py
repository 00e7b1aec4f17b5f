"""git/merge.py on real repositories: the three-way merge of one file (clean, in conflict,
any bytes) as `git merge-file` makes it, its merge attribute and driver as `git apply -3`
honours them, nothing written to the repository, the commit that took a file, the commits of the first-parent
history that touched some paths as `git log --first-parent -- PATHS` lists them, and
renames as `git diff -M` finds them."""
from __future__ import annotations

import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.git.merge import commits_touching, merge_file, removed_in, renamed_since
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


def _objects(repo: GitRepo) -> list[str]:
    return sorted(str(p.relative_to(repo.root)) for p in (repo.root / ".git" / "objects").rglob("*")
                  if p.is_file())


def test_nothing_is_written_to_the_repository(repo: GitRepo, r: Repo):
    """The sides are read from memory: `--check -3` leaves no object, and works where the
    object store cannot be written (git apply -3 writes them; docs/DECISIONS.md)."""
    sides = [b"base side\n1\n2\n", b"our side\n1\n2\n", b"base side\n1\n2\ntheirs\n"]
    before = _objects(repo)
    got = merge_file(r, "f.txt", *((FILE, s) for s in sides))
    assert (got.data, got.clean) == (b"our side\n1\n2\ntheirs\n", True)
    assert _objects(repo) == before


DRIVER = "printf 'driver: %s %s\\n' %P %L > %A"


@pytest.mark.parametrize("attributes, config", [
    ("", {}),
    ("f.txt merge=binary\n", {}),
    ("f.txt -merge\n", {}),
    ("f.txt merge=union\n", {}),
    ("f.txt merge=text\n", {}),
    ("f.txt merge=nosuchdriver\n", {}),  # a name no driver has: the text merge, as git
    ("", {"merge.default": "binary"}),
    ("f.txt merge=mine conflict-marker-size=9\n", {"merge.mine.driver": DRIVER}),
    ("f.txt merge=mine\n", {"merge.mine.driver": DRIVER + "; exit 3"}),
    ("f.txt merge=text\n", {"merge.text.driver": DRIVER}),  # a user's driver comes first
])
def test_merge_attributes_are_honoured_as_git_apply_3_honours_them(repo: GitRepo, env,
                                                                     attributes, config):
    """The same three sides through `git apply -3` (its result and whether it conflicts)
    and through merge_file: the same answer for each merge attribute and driver."""
    base, ours, theirs = "1\n2\n3\n4\n5\n", "1\nTWO\n3\n4\n5\n", "1\n2\n3\n4\nFIVE\n"
    for key, value in config.items():
        repo.git("config", key, value)
    repo.write(".gitattributes", attributes)
    repo.write("f.txt", theirs)
    repo.write("f.txt", base)
    repo.commit_all("base")
    repo.write("f.txt", theirs)
    patch = repo.git("diff", "f.txt")
    repo.write("f.txt", ours)
    repo.commit_all("ours")
    applied = subprocess.run(["git", "apply", "-3", "-"], cwd=repo.root, env=repo.env,
                             input=patch.encode(), capture_output=True)
    assert applied.returncode in (0, 1), applied.stderr
    by_git = repo.read("f.txt")
    got = merge_file(Repo(str(repo.root)), "f.txt", (FILE, base.encode()), (FILE, ours.encode()), (FILE, theirs.encode()))
    assert got.clean == (applied.returncode == 0), applied.stderr
    if got.clean or b"<<<<<<<" not in by_git:  # git's conflict markers name its own sides
        assert got.data == by_git
    if not got.clean and b"<<<<<<<" not in got.data:
        assert got.note  # why there is nothing to show: the attribute or the driver


def test_with_a_commit_the_attributes_are_that_commits(repo: GitRepo, r: Repo):
    """--branch plans on a commit: its .gitattributes choose the driver, not the worktree's."""
    repo.write(".gitattributes", "f.txt merge=binary\n")
    tip = repo.commit_all("binary")
    repo.write(".gitattributes", "")
    repo.commit_all("text again")
    sides = [(FILE, b"1\n2\n3\n4\n"), (FILE, b"one\n2\n3\n4\n"), (FILE, b"1\n2\n3\nfour\n")]
    assert merge_file(r, "f.txt", *sides).clean
    kept = merge_file(r, "f.txt", *sides, commit=tip)
    assert not kept.clean and kept.data == b"one\n2\n3\n4\n" and "merge=binary" in kept.note


def test_removed_in_names_the_commit_that_took_the_file(repo: GitRepo, env):
    repo.write("a.txt", "a\n")
    repo.write("d/b.txt", "b\n")
    base = repo.commit_all("base")
    repo.write("other.txt", "x\n")
    repo.commit_all("unrelated")
    repo.git("rm", "-q", "a.txt")
    gone = repo.commit_all("drop a")
    repo.git("rm", "-q", "d/b.txt")
    repo.write("d", "now a file\n")
    folder = repo.commit_all("d is a file")
    repo.write("z.txt", "z\n")
    head = repo.commit_all("later")
    r = Repo(str(repo.root))
    assert removed_in(r, head, base, "a.txt") == f"commit {gone[:12]} (drop a)"
    assert removed_in(r, head, base, "d/b.txt") == f"commit {folder[:12]} (d is a file)"
    assert removed_in(r, head, base, "other.txt") is None
    assert removed_in(r, head, folder, "a.txt") is None  # not below the base


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
