"""Options as git reads them (issue 24 item 9): `-p 0` strips nothing, as `git apply -p0`
(a diff's a/ b/ prefix is then part of the path); an absolute or climbing `--directory`
is refused before anything is read, as git apply refuses every path under it.  Each case
is run through git apply on a twin repository and compared."""
from __future__ import annotations

import pytest

from git_aiapply.run.limits import directory_problem, reroot
from git_aiapply.ops import Source
from test_like_git import git_out, twins

FILES = {"x.txt": "alpha\nbeta\n", "b/x.txt": "alpha\nbeta\n", "a/x.txt": "alpha\nbeta\n",
         "a/a/x.txt": "alpha\nbeta\n", "a/b/x.txt": "alpha\nbeta\n",
         "keep.txt": "k\n"}

MODIFY = "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"
DELETE = "--- a/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-alpha\n-beta\n"
CREATE = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"


@pytest.mark.parametrize("patch", [MODIFY, DELETE, CREATE], ids=["modify", "delete", "create"])
@pytest.mark.parametrize("options", [["-p0"], ["-p", "0"], ["-p1"], ["-p0", "--directory=a"]])
def test_strip_zero_keeps_the_prefix_as_git_apply_does(tmp_path, git_env, patch, options):
    ours, theirs = twins(tmp_path, git_env, FILES)
    git = git_out(theirs, "apply", "--index", *options, input=patch)
    assert git.returncode == 0, git.stderr
    mine = ours.run("-q", *options, response=f"Change it.\n\n```diff\n{patch}```\n")
    assert mine.returncode == 0, mine.err
    assert ours.git("diff", "--name-status", "HEAD~1", "HEAD") == \
        theirs.git("diff", "--cached", "--name-status")


def test_reroot_puts_back_the_prefix_it_was_given_only_for_p0():
    source = Source("unified-diff", "diff x", git_prefix=True, prefixes="cw")
    assert reroot("x.txt", 0, None, source, 0) == "c/x.txt"
    assert reroot("x.txt", 0, None, source, 1) == "w/x.txt"
    assert reroot("x.txt", None, None, source) == "x.txt"  # no -p: git's default -p1
    assert reroot("x.txt", 0, None, Source("unified-diff", "diff x")) == "x.txt"


@pytest.mark.parametrize("folder", ["/abs", "/", "../up", "sub/../../up", "C:/x", "\\\\srv\\x"])
def test_a_directory_outside_the_worktree_is_refused_before_reading(tmp_path, git_env, folder):
    ours, _ = twins(tmp_path, git_env, FILES)
    before = ours.snapshot()
    r = ours.run(f"--directory={folder}", response=f"Change it.\n\n```diff\n{CREATE}```\n")
    assert r.returncode == 2, r.out + r.err
    assert "invalid path" in r.err and "--directory" in r.err
    assert ours.snapshot() == before


def test_a_directory_inside_the_worktree_is_accepted():
    for folder in ("sub", "sub/", "a/b", "./a", "x..y"):
        assert directory_problem(folder) is None, folder
