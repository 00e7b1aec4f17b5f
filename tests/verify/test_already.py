"""'Already applied' only while the files hold every edit's result (BEHAVIOR.md §8).

The AI-Response trailer of an earlier commit says the response was applied once; after a
revert, or when that commit took only some of its edits (--include), the response is not
applied any more and is not called so.
"""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo
from git_aiapply.verify.already import missing_edit
from git_aiapply.formats import parse_response

RESPONSE = """Shout the greeting and drop the old note.

```diff
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 alpha
-beta
+BETA
 gamma
--- a/b.txt
+++ b/b.txt
@@ -1,2 +1,3 @@
 one
+one and a half
 two
```
"""


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\ngamma\n")
    repo.write("b.txt", "one\ntwo\n")
    repo.commit_all("base")
    return repo


def test_the_same_response_again_is_already_applied(based: GitRepo):
    assert based.run(response=RESPONSE).returncode == 0
    head = based.head()
    r = based.run("--json", response=RESPONSE)
    out = json.loads(r.out)
    assert (r.returncode, out["status"], out["commit"]) == (0, "already-applied", head)
    assert based.head() == head


def test_after_a_revert_the_response_applies_again(based: GitRepo):
    assert based.run(response=RESPONSE).returncode == 0
    based.git("revert", "--no-edit", "HEAD")
    reverted = based.head()
    r = based.run("--json", response=RESPONSE)
    assert json.loads(r.out)["status"] == "applied", r.out
    assert based.git("rev-parse", "HEAD^").strip() == reverted
    assert based.read("a.txt") == b"alpha\nBETA\ngamma\n"
    assert based.read("b.txt") == b"one\none and a half\ntwo\n"


def test_a_commit_of_only_some_edits_is_not_already_applied(based: GitRepo):
    assert based.run("--include", "a.txt", response=RESPONSE).returncode == 0
    head = based.head()
    r = based.run("--json", response=RESPONSE)
    # b.txt's edit is missing: never "already applied" for a subset.  a.txt's edit no
    # longer fits (its result is there): refused, nothing changed
    assert json.loads(r.out)["status"] != "already-applied", r.out
    assert based.head() == head and based.read("b.txt") == b"one\ntwo\n"
    # the same subset again is applied already
    r = based.run("--json", "--include", "a.txt", response=RESPONSE)
    assert json.loads(r.out)["status"] == "already-applied", r.out


# ------------------------------------------------------------------ missing_edit, pure

def _missing(text: str, files: dict[str, str]) -> str | None:
    ops = parse_response(text).ops
    return missing_edit(ops, lambda p: (0o100644, files[p].encode()) if p in files else None,
                        lambda raw: raw)


def test_every_edit_present_is_no_missing_edit():
    assert _missing(RESPONSE, {"a.txt": "alpha\nBETA\ngamma\n",
                               "b.txt": "one\none and a half\ntwo\n"}) is None


@pytest.mark.parametrize("files,missing", [
    ({"a.txt": "alpha\nbeta\ngamma\n", "b.txt": "one\none and a half\ntwo\n"}, "a.txt"),
    ({"a.txt": "alpha\nBETA\ngamma\n", "b.txt": "one\ntwo\n"}, "b.txt"),
    ({"a.txt": "alpha\nBETA\ngamma\n"}, "b.txt does not exist"),
])
def test_one_edit_missing_is_named(files, missing):
    assert missing in _missing(RESPONSE, files)


def test_whitespace_and_typographic_quotes_the_apply_corrected_still_count_as_present():
    text = "--- a/q.py\n+++ b/q.py\n@@ -1,2 +1,2 @@\n def f():\n-  return 1\n+  return \u201cx\u201d\n"
    assert _missing(text, {"q.py": 'def f():\n    return "x"\n'}) is None


def test_new_deleted_and_renamed_files():
    text = ("diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\n"
            "rename to new.txt\ndiff --git a/made.txt b/made.txt\nnew file mode 100644\n"
            "--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+made\n"
            "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"
            "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n")
    done = {"new.txt": "x\n", "made.txt": "made\n"}
    assert _missing(text, done) is None
    assert "gone.txt still exists" in _missing(text, {**done, "gone.txt": "gone\n"})
    assert "made.txt does not exist" in _missing(text, {"new.txt": "x\n"})
    assert "new.txt does not exist" in _missing(text, {"made.txt": "made\n"})
