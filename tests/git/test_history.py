"""git/history.py on a real history: ancestry, the commits between two, tree and index
entries and blobs, where a ref points, what a commit changed, each checked against the git
CLI; and ``run_side``, recover's question whether an interrupted run happened, answered
for each way the branch can be found (where the run found it, where it put it, moved on
since, rewound)."""
from __future__ import annotations

import gc
import os
import subprocess

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.git.history import (
    blob_data,
    commit_change,
    commit_id_and_message,
    commits_between,
    descends,
    entries_at,
    entries_at_commit,
    index_differs,
    ref_tip,
    run_side,
)
from git_aiapply.git.journal import JournalNote
from git_aiapply.git.repo import Repo

MODE = 0o100644


def _history(repo: GitRepo) -> None:
    """c0 -> R (the run: a.txt) -> U (b.txt), R -> U2 (a.txt again); c0 -> V1 -> V2
    (b.txt), c0 -> W (a.txt); X an unrelated root; main at U."""
    ids = {}
    repo.write("a.txt", "a0\n")
    repo.write("b.txt", "b0\n")
    repo.write("bin/run.sh", "#!/bin/sh\n", mode=0o755)
    os.symlink("a.txt", repo.root / "link")
    ids["c0"] = repo.commit_all("c0")
    repo.write("a.txt", "a1\n")
    ids["R"] = repo.commit_all("the run\n\nbody")
    repo.write("b.txt", "b1\n")
    ids["U"] = repo.commit_all("user after")
    for name, start, edits in (("U2", "R", {"a.txt": "a2\n"}),
                               ("V1", "c0", {"b.txt": "v1\n"}), ("V2", None, {"b.txt": "v2\n"}),
                               ("W", "c0", {"a.txt": "w\n"})):
        if start is not None:
            repo.git("checkout", "-q", "--detach", ids[start])
        for p, text in edits.items():
            repo.write(p, text)
        ids[name] = repo.commit_all(name)
    repo.git("checkout", "-q", "--orphan", "lone")
    repo.write("a.txt", "lone\n")
    ids["X"] = repo.commit_all("X")
    repo.git("checkout", "-q", "-f", "main")
    repo.git("update-ref", "refs/heads/lone", ids["X"])
    repo.ids = ids  # type: ignore[attr-defined]


@pytest.fixture
def hist(built_once, env) -> GitRepo:
    return built_once("history", _history)


def _blob(repo: GitRepo, rev: str, path: str) -> str:
    return repo.git("rev-parse", f"{rev}:{path}").strip()


def _note(repo: GitRepo, **given) -> JournalNote:
    """The journal of the run c0 -> R (a.txt a0 -> a1) on main."""
    ids = repo.ids
    fields = dict(pid=1, head=ids["c0"], paths={"a.txt": [MODE, _blob(repo, ids["c0"], "a.txt")]},
                  final={"a.txt": [MODE, _blob(repo, ids["R"], "a.txt")]}, written={},
                  branch="refs/heads/main", made_dirs=[], moves_to=None, kind="apply",
                  staged_index=[], perms={}, temps=[])
    fields.update(given)
    return JournalNote(**fields)


def _is_ancestor(repo: GitRepo, ancestor: str, commit: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", ancestor, commit],
                          cwd=repo.root, env=repo.env).returncode == 0


def test_descends_is_git_merge_base_is_ancestor(hist: GitRepo):
    r, ids = Repo(str(hist.root)).repo, hist.ids
    for commit, ancestor in (("U", "c0"), ("U", "R"), ("c0", "U"), ("W", "R"), ("X", "c0"),
                             ("R", "R")):
        by_git = _is_ancestor(hist, ids[ancestor], ids[commit])
        assert descends(r, ids[commit], ids[ancestor]) == by_git, (commit, ancestor)
        assert descends(r, pygit2.Oid(hex=ids[commit]), ids[ancestor]) == by_git
    assert descends(r, ids["R"], ids["R"])  # a commit is its own descendant, as git says
    assert not descends(r, ids["U"], "0" * 40) and not descends(r, "not-an-id", ids["c0"])


def test_commits_between_is_git_rev_list_newest_first(hist: GitRepo):
    r, ids = Repo(str(hist.root)).repo, hist.ids
    for tip, base in (("U", "c0"), ("V2", "c0"), ("U2", "R"), ("c0", "c0")):
        listed = hist.git("rev-list", "--topo-order", ids[tip], f"^{ids[base]}").split()
        got = [str(c.id) for c in commits_between(r, pygit2.Oid(hex=ids[tip]), ids[base], 100)]
        assert got == listed
    assert [str(c.id) for c in commits_between(r, pygit2.Oid(hex=ids["U"]), ids["c0"], 1)] == \
        [ids["U"]]


def test_entries_and_blobs_are_what_git_ls_tree_and_cat_file_show(hist: GitRepo):
    repo, ids = Repo(str(hist.root)), hist.ids
    paths = ["a.txt", "bin/run.sh", "link", "bin", "missing.txt"]
    got = entries_at_commit(repo, ids["c0"], paths)
    assert got == entries_at(repo.repo[ids["c0"]].tree, paths)
    listed = {}
    for line in hist.git("ls-tree", ids["c0"], "a.txt", "bin/run.sh", "link").splitlines():
        meta, path = line.split("\t")
        mode, _kind, oid = meta.split()
        listed[path] = [int(mode, 8), oid]
    assert got == {**listed, "bin": None, "missing.txt": None}  # a folder is no file
    assert blob_data(repo, listed["a.txt"][1]) == b"a0\n" == \
        hist.git("cat-file", "blob", listed["a.txt"][1]).encode()


# pygit2's Index, failing to read a file, complains when it is collected
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_index_differs_names_the_paths_the_index_does_not_hold(repo: GitRepo, env, tmp_path):
    repo.write("a.txt", "a\n")
    repo.write("b.txt", "b\n")
    repo.commit_all()
    r = Repo(str(repo.root))
    want = entries_at_commit(r, repo.head(), ["a.txt", "b.txt", "gone.txt"])
    index = str(repo.root / ".git" / "index")
    assert index_differs(index, want) == []  # gone.txt: absent in both
    repo.write("a.txt", "staged\n")
    repo.git("add", "a.txt")
    repo.git("rm", "-q", "--cached", "b.txt")
    assert repo.git("diff", "--cached", "--name-only").split() == ["a.txt", "b.txt"]
    assert index_differs(index, want) == ["a.txt", "b.txt"]
    bad = tmp_path / "not-an-index"
    bad.write_bytes(b"garbage")
    assert index_differs(str(bad), want) == ["a.txt", "b.txt", "gone.txt"]
    gc.collect()


def test_ref_tip_is_where_git_rev_parse_resolves_the_ref(hist: GitRepo, repo: GitRepo):
    r = Repo(str(hist.root))
    assert ref_tip(r, "refs/heads/main") == hist.ids["U"] == hist.head()
    assert ref_tip(r, "HEAD") == hist.head()
    assert ref_tip(r, "refs/heads/lone") == hist.ids["X"]
    assert ref_tip(r, "refs/heads/missing") is None
    assert ref_tip(r, "not a ref name") is None
    assert repo.git("rev-parse", "--verify", "-q", "HEAD", check=False) == ""  # unborn
    assert ref_tip(Repo(str(repo.root)), "HEAD") is None
    assert ref_tip(Repo(str(repo.root)), "refs/heads/main") is None


def test_commit_change_is_what_git_show_reports(hist: GitRepo):
    repo, ids = Repo(str(hist.root)), hist.ids
    change = commit_change(repo, ids["R"])
    assert (change["id"], change["root"]) == (ids["R"], False)
    assert change["message"] == hist.git("cat-file", "commit", ids["R"]).split("\n\n", 1)[1]
    assert change["before"] == {"a.txt": (MODE, b"a0\n")}
    assert change["after"] == {"a.txt": (MODE, b"a1\n")}
    who = hist.git("log", "-1", "--format=%an <%ae>%n%cn <%ce>%n%at", ids["R"]).split("\n")
    assert [change["author"], change["committer"], str(change["author_time"])] == who[:3]
    root = commit_change(repo, ids["c0"])
    assert root["root"] is True and root["before"] == {}
    assert sorted(root["after"]) == hist.git("ls-tree", "-r", "--name-only", ids["c0"]).split()
    assert root["after"]["bin/run.sh"] == (0o100755, b"#!/bin/sh\n")
    assert root["after"]["link"] == (0o120000, b"a.txt")
    full, message = commit_id_and_message(repo, ids["R"][:10])
    assert (full, message) == (ids["R"], "the run\n\nbody\n")


@pytest.mark.parametrize("tip, side, detail", [
    ("c0", "before", ""),  # the branch where the run found it
    ("R", "after", ""),  # the run's commit: parent c0, a.txt as the run left it
    ("U", "after-moved", "{R}"),  # the user committed on top, leaving a.txt alone
    ("V2", "before-moved", "2 commits"),  # the run never committed; the user did, twice
    ("U2", None, "later commits changed the files it committed"),
    ("W", None, "the commits since changed a.txt"),
    ("X", None, "{c0} is no longer in its history"),
    (None, None, "the history it started from is gone"),
])
def test_run_side_tells_whether_the_run_happened(hist: GitRepo, tip, side, detail):
    ids = hist.ids
    want = (side, detail.format(R=ids["R"][:12], c0=ids["c0"][:12]))
    assert run_side(Repo(str(hist.root)), _note(hist), ids.get(tip)) == want


def test_run_side_of_a_run_that_knew_where_the_ref_would_go(hist: GitRepo):
    ids, repo = hist.ids, Repo(str(hist.root))
    pick = _note(hist, kind="pick", moves_to=ids["R"])  # a fast-forward to R
    assert run_side(repo, pick, ids["R"]) == ("after", "")
    assert run_side(repo, pick, ids["U"]) == ("after-moved", ids["R"][:12])
    undo = _note(hist, head=ids["R"], kind="undo", moves_to=ids["c0"],
                 paths={"a.txt": [MODE, _blob(hist, ids["R"], "a.txt")]},
                 final={"a.txt": [MODE, _blob(hist, ids["c0"], "a.txt")]})
    assert run_side(repo, undo, ids["c0"]) == ("after", "")
    assert run_side(repo, undo, ids["R"]) == ("before", "")


def test_run_side_of_a_staging_run_is_read_from_the_index(repo: GitRepo, env):
    repo.write("a.txt", "a0\n")
    head = repo.commit_all()
    old = _blob(repo, head, "a.txt")
    new = repo.git("hash-object", "-w", "--stdin", input=b"a1\n").strip()
    note = JournalNote(pid=1, head=head, paths={"a.txt": [MODE, old]},
                       final={"a.txt": [MODE, new]}, written={}, branch="refs/heads/main",
                       made_dirs=[], moves_to=None, kind="no-commit", staged_index=[],
                       perms={}, temps=[])
    r = Repo(str(repo.root))
    assert run_side(r, note, head) == ("before", "")  # the index still holds a0
    repo.git("update-index", "--cacheinfo", f"100644,{new},a.txt")
    assert run_side(r, note, head) == ("after", "")
    lock = repo.root / ".git" / "index.lock"
    lock.write_bytes(b"")  # the new index not installed yet
    assert run_side(r, note, head) == ("before", "")
    lock.unlink()
