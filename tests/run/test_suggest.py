"""A refusal names the fix the tool already knows (run/suggest.py, issue 35): retry with
-3 when a base fits, already applied in C when one of the tool's commits made the change,
--format whole for a fence after a tracked path; each as --json's ``suggestion`` and the
library's ``Result.suggestion``, nothing changed and no object written."""
from __future__ import annotations

import json

from conftest import GitRepo
from git_aiapply.doors.results import Result, Suggestion
from git_aiapply.run import suggest

LINES = "".join(f"l{n}\n" for n in range(1, 9))

TWO = """Change line two.

```diff
--- a/a.txt
+++ b/a.txt
@@ -1,6 +1,6 @@
 l1
-l2
+TWO
 l3
 l4
 l5
 l6
```
"""


def _json(r) -> dict:
    return json.loads(r.out)


def _objects(repo: GitRepo) -> str:
    return repo.git("count-objects", "-v")


def test_an_answer_written_before_later_commits_names_three_way_and_its_base(repo: GitRepo):
    repo.write("a.txt", LINES)
    base = repo.commit_all("base")
    repo.write("a.txt", LINES.replace("l6", "L6"))
    repo.commit_all("later")
    repo.settle()
    before, objects = repo.snapshot(), _objects(repo)
    r = repo.run("--json", response=TWO)
    assert r.returncode == 1
    d = _json(r)
    assert d["suggestion"] == {"kind": "three-way", "base": base, "argv": ["-3"],
                               "text": suggest.three_way(base)["text"]}
    assert repo.snapshot() == before and _objects(repo) == objects  # nothing written
    r = repo.run(response=TWO)
    assert f"hint: retry with -3 (base {base[:12]})" in r.err
    # the suggestion is what -3 does
    r = repo.run("-3", response=TWO)
    assert r.returncode == 0, r.err
    assert repo.read("a.txt").decode() == LINES.replace("l2", "TWO").replace("l6", "L6")


def test_no_suggestion_when_no_older_commit_holds_the_lines(repo: GitRepo):
    repo.write("a.txt", LINES.replace("l3", "x3"))
    repo.commit_all("base")
    r = repo.run("--json", response=TWO)
    assert r.returncode == 1 and "suggestion" not in _json(r)


def test_an_answer_already_on_the_branch_names_the_commit(repo: GitRepo):
    repo.write("a.txt", LINES)
    repo.commit_all("base")
    assert repo.run("-q", response=TWO).returncode == 0
    done = repo.head()
    repo.write("b.txt", "other\n")
    repo.commit_all("unrelated, by hand")
    again = TWO.replace("Change line two.", "Make line two upper case.")  # another response
    r = repo.run("--json", response=again)
    assert r.returncode == 1
    assert _json(r)["suggestion"] | {"text": ""} == {
        "kind": "already-applied", "commit": done, "argv": [], "text": ""}
    r = repo.run(response=again)
    assert f"hint: already applied in {done[:12]}" in r.err


def test_a_change_made_by_hand_is_in_place_and_names_no_commit(repo: GitRepo):
    repo.write("a.txt", LINES)
    repo.commit_all("base")
    repo.write("a.txt", LINES.replace("l2", "TWO").replace("l4", "L4"))
    repo.commit_all("by hand")  # no AI-Response trailer; a context line changed too
    r = repo.run("--json", response=TWO)
    assert r.returncode == 1
    assert _json(r)["suggestion"] == suggest.already_applied(None)  # no commit named
    assert repo.run("-3", response=TWO).returncode == 0  # as -3 finds: nothing to commit


FORTY = "".join(f"line {n}\n" for n in range(1, 41))
NEW = """```diff
--- a/f.txt
+++ b/f.txt
@@ -20,3 +20,3 @@
 line 20
-line 21
+line 21 fixed
 line 22
```
"""


def test_a_context_line_changed_after_the_tools_commit_is_still_already_applied(repo: GitRepo):
    """The answer's commit C, then a commit changing a context line next to its edit:
    the answer run again is already applied in C (-3's merge would conflict on the
    neighbouring lines, so the rule is not the merge's), never "retry with -3"."""
    repo.write("f.txt", FORTY)
    repo.commit_all("base")
    assert repo.run("-q", response=NEW).returncode == 0
    done = repo.head()
    repo.write("f.txt", FORTY.replace("line 21\n", "line 21 fixed\n")
               .replace("line 20\n", "line twenty\n"))
    repo.commit_all("ctx")
    for answer in (NEW, "Fix line 21.\n\n" + NEW):  # the same answer, and another one
        r = repo.run("--json", response=answer)
        assert r.returncode == 1
        assert _json(r)["suggestion"] == suggest.already_applied(done)


OLD = """```diff
--- a/f.txt
+++ b/f.txt
@@ -3,7 +3,7 @@
 line 3
 line 4
 line 5
-line 6
+line SIX changed
 line 7
 line 8
 line 9
```
"""


def test_a_plain_rerun_after_three_way_is_already_applied(repo: GitRepo):
    repo.write("f.txt", FORTY)
    repo.commit_all("base")
    repo.write("f.txt", FORTY.replace("line 3\n", "line three\n"))
    repo.commit_all("later")
    assert repo.run("-q", response=OLD).returncode == 1
    assert repo.run("-q", "-3", response=OLD).returncode == 0
    done = repo.head()
    r = repo.run("--json", response=OLD)
    assert r.returncode == 1 and _json(r)["suggestion"] == suggest.already_applied(done)
    assert f"hint: already applied in {done[:12]}" in repo.run(response=OLD).err


def test_an_answer_that_would_conflict_is_not_told_to_retry_with_three_way(repo: GitRepo):
    repo.write("a.txt", LINES)
    repo.commit_all("base")
    repo.write("a.txt", LINES.replace("l2", "two, by hand"))
    repo.commit_all("later")
    repo.settle()
    objects = _objects(repo)
    r = repo.run("--json", response=TWO)
    assert r.returncode == 1 and "suggestion" not in _json(r)
    assert _objects(repo) == objects  # the merge was tried in memory
    assert repo.run("-3", response=TWO).returncode == 1  # as -3 finds: a conflict


WHOLE = """Here is the new version.

src/app.py
```python
print("hello")
```
"""


def test_a_fence_after_a_tracked_path_names_format_whole(repo: GitRepo):
    repo.write("src/app.py", "print('hi')\n")
    repo.commit_all("base")
    r = repo.run("--json", response=WHOLE)
    assert r.returncode == 1
    d = _json(r)
    assert d["error_kind"] == "empty"
    assert {k: v for k, v in d["suggestion"].items() if k != "text"} == {
        "kind": "format", "format": "whole", "argv": ["--format", "whole"]}
    assert "hint: retry with --format whole" in repo.run(response=WHOLE).err
    assert repo.run("--format", "whole", response=WHOLE).returncode == 0
    assert repo.read("src/app.py") == b'print("hello")\n'


def test_no_format_suggestion_for_an_untracked_path(repo: GitRepo):
    repo.write("README", "x\n")
    repo.commit_all("base")
    r = repo.run("--json", response=WHOLE)
    assert r.returncode == 1 and "suggestion" not in _json(r)


def test_the_library_result_reads_the_suggestion():
    d = suggest.three_way("a" * 40)
    s = Suggestion.from_json(d)
    assert (s.kind, s.base, s.argv) == ("three-way", "a" * 40, ("-3",))
    obj = {"response": "-", "response_id": "0" * 16, "model": None, "status": "refused",
           "exit_code": 1, "commit": None, "branch": "main", "base": None, "formats": [],
           "files": [], "added": 0, "removed": 0, "message": None, "note": None,
           "error_kind": "refused", "fault": "response", "errors": [], "error_text": None,
           "warnings": [], "hook_output": None, "diff": None, "suggestion": d}
    result = Result.from_json(obj)
    assert result.suggestion == s and result.to_json()["suggestion"] == d
    assert "base" not in suggest.already_applied("b" * 40)
