"""A broken repository is `fatal:` (exit 128) in git's words, never an internal error
(issue 33 item 6): HEAD's branch naming a missing object, a tree or a blob, a HEAD commit
whose tree is gone, and the same for a --branch or --base ref.  One guard
(Repo.tip_commit) stands behind every read of HEAD, a branch or a base."""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.errors import FatalError, UsageError
from git_aiapply.git.history import ref_tip
from git_aiapply.git.repo import Repo

MISSING = "1234567890" * 4
RESPONSE = ("Change a.txt.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-alpha\n"
            "+beta\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def _break(repo: GitRepo, how: str, ref: str = "refs/heads/main") -> None:
    """Point ``ref`` at something that is not a readable commit (``how``)."""
    if how == "tree gone":
        tree = repo.git("rev-parse", "HEAD^{tree}").strip()
        os.remove(repo.root / ".git" / "objects" / tree[:2] / tree[2:])
        return
    target = {"missing": MISSING, "tree": repo.git("rev-parse", "HEAD^{tree}").strip(),
              "blob": repo.git("rev-parse", "HEAD:a.txt").strip()}[how]
    (repo.root / ".git" / ref).write_text(target + "\n")


@pytest.fixture
def based(repo: GitRepo, env) -> GitRepo:
    repo.write("a.txt", "alpha\n")
    repo.commit_all("base")
    return repo


PHRASE = {"missing": "bad object", "tree": "expected commit type, but the object dereferences to tree type",
          "blob": "expected commit type, but the object dereferences to blob type",
          "tree gone": "bad tree object"}
WORDS = {"missing": f"bad object HEAD ({MISSING})", "tree": f"HEAD: {PHRASE['tree']}",
         "blob": f"HEAD: {PHRASE['blob']}", "tree gone": "bad tree object HEAD"}


@pytest.mark.parametrize("how", list(WORDS))
def test_a_broken_head_is_fatal_wherever_it_is_read(based: GitRepo, how):
    _break(based, how)
    repo = Repo(str(based.root))
    with pytest.raises(FatalError) as e:
        repo.head()
    assert e.value.kind == "repository" and e.value.message.startswith(WORDS[how])
    for read in (lambda: repo.resolve_commit("HEAD"),
                 lambda: repo.branch_commit("refs/heads/main"),
                 lambda: repo.ref_target("refs/heads/main"),
                 lambda: ref_tip(repo, "refs/heads/main")):
        with pytest.raises(FatalError) as e:
            read()
        assert e.value.kind == "repository" and PHRASE[how] in e.value.message
    # what is no ref at all stays a usage error or none
    assert repo.branch_commit("refs/heads/nothing") is None
    with pytest.raises(UsageError):
        repo.resolve_commit("nothing")


@pytest.mark.parametrize("how", ["missing", "tree", "tree gone"])
def test_the_command_stops_fatal_with_nothing_changed(based: GitRepo, how):
    _break(based, how)
    before = (based.read("a.txt"), (based.root / ".git" / "refs" / "heads" / "main").read_bytes(),
              (based.root / ".git" / "index").read_bytes())
    r = based.run(response=RESPONSE)
    assert r.returncode == 128, r.out + r.err
    assert r.err.startswith("fatal: ") and WORDS[how] in r.err, r.err
    assert "internal error" not in r.err
    assert before == (based.read("a.txt"),
                      (based.root / ".git" / "refs" / "heads" / "main").read_bytes(),
                      (based.root / ".git" / "index").read_bytes())
    # git itself finds no commit there, or cannot read its tree
    assert any(subprocess.run(["git", *args], cwd=based.root, env=based.env,
                              capture_output=True).returncode != 0
               for args in (["rev-parse", "--verify", "HEAD^{commit}"], ["ls-tree", "HEAD"]))


def test_a_broken_branch_or_base_is_fatal_too(based: GitRepo):
    based.git("branch", "other")
    _break(based, "tree", "refs/heads/other")
    _break(based, "missing", "refs/heads/gone")
    r = based.run("--branch", "other", response=RESPONSE)
    assert r.returncode == 128 and "fatal: refs/heads/other: expected commit type" in r.err, r.err
    r = based.run("--branch", "new", "--base", "gone", response=RESPONSE)
    assert r.returncode == 128 and f"fatal: bad object gone ({MISSING})" in r.err, r.err
    assert based.git("rev-parse", "--verify", "-q", "refs/heads/new", check=False) == ""
    assert based.read("a.txt") == b"alpha\n"
    # a revision that names a tree is the user's mistake, not a broken repository
    r = based.run("--branch", "new", "--base", "HEAD^{tree}", response=RESPONSE)
    assert r.returncode == 2 and "names a tree, not a commit" in r.err, r.err
