"""An answer that revises itself (BEHAVIOR.md §3, issue 30): a first block, "wait, that's
not quite right", then a second block of the same lines with other added lines.  Two
different versions of the same lines are refused as overlapping in every format, naming
both blocks and asking for the final version alone; never the first one committed, nor the
second moved to another copy of its lines because the first took them."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from plan_base import DictBase

FENCE = "```"
ONCE = "def f(x):\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n"
# the lines the blocks change are in g() too: the second block could go there by elimination
TWICE = ONCE.replace("    return 0\n", "    a = 1\n    b = 2\n    return a * b\n")
WAIT = "\nWait, that's not quite right. Let me fix it:\n\n"


def plan(response: str, files: dict):
    """The planner over ``files`` for a response as the command reads it (text or JSON)."""
    ops = parse_with_tools(read_response(response.encode(), "r.json")).ops
    return make_plan(ops, DictBase(files), lambda p: normalize_path(p, worktree="/w"))


def udiff(new: str, header: str = "@@ -2,2 +2,2 @@", context: str = "     b = 2\n") -> str:
    return (f"{FENCE}diff\n--- a/m.py\n+++ b/m.py\n{header}\n-    a = 1\n+    a = {new}\n"
            f"{context}{FENCE}\n")


def search_replace(new: str, search: str = "    a = 1") -> str:
    replace = search.replace("a = 1", f"a = {new}")
    return f"m.py\n{FENCE}python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n{FENCE}\n"


def apply_patch(new: str, anchor: str = "") -> str:
    return (f"{FENCE}\n*** Begin Patch\n*** Update File: m.py\n@@{anchor}\n-    a = 1\n"
            f"+    a = {new}\n     b = 2\n*** End Patch\n{FENCE}\n")


def file_patch(new: str) -> str:
    return (f'<FILE_CHANGES>\n<FILE_PATCH file_path="m.py">\n@@\n-    a = 1\n+    a = {new}\n'
            "</FILE_PATCH>\n</FILE_CHANGES>\n")


def tool_calls(*news: str) -> str:
    calls = [{"type": "apply_patch_call", "call_id": str(i), "status": "completed",
              "operation": {"type": "update_file", "path": "m.py",
                            "diff": f"@@\n-    a = 1\n+    a = {n}\n     b = 2\n"}}
             for i, n in enumerate(news)]
    return json.dumps({"id": "r", "object": "response", "status": "completed", "output": calls})


def revised(block) -> str:
    return block("10") + WAIT + block("100")


REVISIONS = {
    "unified diff, numbered": revised(udiff),
    "unified diff, no numbers": revised(lambda n: udiff(n, "@@ ... @@")),
    "unified diff, other header": udiff("10") + WAIT + udiff("100", "@@ -40,2 +40,2 @@"),
    "unified diff, other context": udiff("10") + WAIT + udiff("100", "@@ -1,3 +1,3 @@", "")
    .replace("-    a = 1", " def f(x):\n-    a = 1"),
    "unified diff, a superset": udiff("10") + WAIT + udiff("100", context="-    b = 2\n+    b = 20\n"),
    "SEARCH/REPLACE": revised(search_replace),
    "SEARCH/REPLACE, more context": search_replace("10") + WAIT
    + search_replace("100", "    a = 1\n    b = 2"),
    "apply-patch": revised(apply_patch),
    "file-changes": revised(file_patch),
    "tool calls": tool_calls("10", "100"),
}


@pytest.mark.parametrize("base", [ONCE, TWICE], ids=["lines-once", "lines-twice"])
@pytest.mark.parametrize("kind", list(REVISIONS))
def test_two_versions_of_the_same_lines_are_refused_naming_both_blocks(kind, base):
    with pytest.raises(ApplyError) as e:
        plan(REVISIONS[kind], {"m.py": (0o100644, base.encode())})
    text = str(e.value)
    assert "two different versions of the same lines" in text, text
    assert "edit 1 (" in text and "send the final version alone" in text, text


def test_the_refusal_names_each_block_by_its_number_and_first_line():
    with pytest.raises(ApplyError) as e:
        plan(revised(lambda n: udiff(n, "@@ ... @@")), {"m.py": (0o100644, TWICE.encode())})
    text = str(e.value)
    assert "block 2 (diff m.py)" in text and "edit 1 ('a = 1') of the earlier block 1" in text


def test_an_anchor_that_names_the_other_copy_decides():
    # the second chunk says it means g(): no revision, both places are edited
    response = apply_patch("10", " def f(x):") + "\nAnd in g:\n\n" + apply_patch("100", " def g():")
    final = plan(response, {"m.py": (0o100644, TWICE.encode())}).final["m.py"].data.decode()
    assert final == TWICE.replace("a = 1", "a = 10", 1).replace("    a = 1\n", "    a = 100\n")


def test_line_numbers_that_name_the_other_copy_decide():
    response = udiff("10") + "\nAnd in g:\n\n" + udiff("100", "@@ -8,2 +8,2 @@")
    final = plan(response, {"m.py": (0o100644, TWICE.encode())}).final["m.py"].data.decode()
    assert final == TWICE.replace("a = 1", "a = 10", 1).replace("    a = 1\n", "    a = 100\n")


def test_two_edits_of_one_diff_still_go_down_the_file_in_turn():
    # the hunks of one diff are one block: the second hunk of the same lines is the next copy
    body = "@@ ... @@\n-    a = 1\n+    a = 10\n     b = 2\n@@ ... @@\n-    a = 1\n+    a = 100\n     b = 2\n"
    final = plan(f"{FENCE}diff\n--- a/m.py\n+++ b/m.py\n{body}{FENCE}\n",
                 {"m.py": (0o100644, TWICE.encode())}).final["m.py"].data.decode()
    assert final == TWICE.replace("a = 1", "a = 10", 1).replace("    a = 1\n", "    a = 100\n")


BLOCKS = {"unified diff": lambda n: udiff(n, "@@ ... @@"), "SEARCH/REPLACE": search_replace,
          "apply-patch": apply_patch, "file-changes": file_patch}


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(sorted(BLOCKS)), copies=st.integers(1, 3),
       first=st.integers(2, 99), second=st.integers(2, 99))
def test_property_a_revision_never_applies(kind, copies, first, second):
    """Whatever the format and however many copies of the lines the file holds, two
    blocks with other added lines for the same old lines are refused; the same block
    twice is never refused (it takes as many copies as there are, BEHAVIOR.md §3)."""
    base = "".join(f"def f{k}():\n    a = 1\n    b = 2\n\n\n" for k in range(copies))
    response = BLOCKS[kind](str(first)) + WAIT + BLOCKS[kind](str(second))
    if first == second:  # copies of one edit: one place each (fewer copies than places: which?)
        if copies <= 2:
            plan(response, {"m.py": (0o100644, base.encode())})
        return
    with pytest.raises(ApplyError) as e:  # with three copies: ambiguous for the first too
        plan(response, {"m.py": (0o100644, base.encode())})
    assert copies > 2 or "two different versions of the same lines" in str(e.value)


def test_e2e_a_self_revising_answer_commits_nothing(repo: GitRepo):
    repo.write("m.py", TWICE)
    head = repo.commit_all("base")
    r = repo.run(response="Set a to ten:\n\n" + REVISIONS["SEARCH/REPLACE"])
    assert r.returncode == 1, r.out + r.err
    assert "two different versions of the same lines" in r.err and "final version alone" in r.err
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert repo.git("status", "--porcelain").strip() == ""
    assert repo.read("m.py").decode() == TWICE
