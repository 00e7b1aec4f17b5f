"""A later block that quotes lines an earlier block of the answer wrote, while the file also
holds those lines unchanged in another function (BEHAVIOR.md §3, issue 30): it used to
land on that older copy and be committed.  In every format that chains blocks it is
refused as ambiguous, naming both places, unless its line numbers or its anchors pick
one; tool calls are applied in turn and refused by their own count of the old text."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from plan_base import DictBase

FENCE = "```"
# a() holds `x = 1 / return x`; the first block writes the same two lines into b()
BASE = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    return 0\n"
IN_A = BASE.replace("x = 1", "x = 2").replace("return 0", "x = 1\n    return x")
IN_B = BASE.replace("return 0", "x = 2\n    return x")
THEN = "\n\nThen set x to 2 there:\n\n"

WRITE_DIFF = " def b():\n-    return 0\n+    x = 1\n+    return x\n"
EDIT_DIFF = "-    x = 1\n+    x = 2\n     return x\n"


def plan(response: str):
    ops = parse_with_tools(read_response(response.encode(), "r.json")).ops
    return make_plan(ops, DictBase({"m.py": (0o100644, BASE.encode())}),
                     lambda p: normalize_path(p, worktree="/w"))


def final(response: str) -> str:
    return plan(response).final["m.py"].data.decode()


def search_replace(search: str, replace: str) -> str:
    return (f"m.py\n{FENCE}python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n"
            f">>>>>>> REPLACE\n{FENCE}\n")


def udiff(body: str, header: str = "@@ ... @@") -> str:
    return f"{FENCE}diff\n--- a/m.py\n+++ b/m.py\n{header}\n{body}{FENCE}\n"


def codex(second_anchor: str = "") -> str:
    return (f"{FENCE}\n*** Begin Patch\n*** Update File: m.py\n@@\n{WRITE_DIFF}"
            f"*** Update File: m.py\n@@{second_anchor}\n{EDIT_DIFF}*** End Patch\n{FENCE}\n")


def file_patches() -> str:
    body = "".join(f'<FILE_PATCH file_path="m.py">\n@@\n{d}</FILE_PATCH>\n'
                   for d in (WRITE_DIFF, EDIT_DIFF))
    return f"<FILE_CHANGES>\n{body}</FILE_CHANGES>\n"


def apply_patch_calls() -> str:
    calls = [{"type": "apply_patch_call", "call_id": str(i), "status": "completed",
              "operation": {"type": "update_file", "path": "m.py", "diff": "@@\n" + d}}
             for i, d in enumerate((WRITE_DIFF, EDIT_DIFF))]
    return json.dumps({"id": "r", "object": "response", "status": "completed", "output": calls})


def edit_calls(replace_all: bool = False) -> str:
    """Claude Code Edit tool calls, one after another."""
    edits = [("def b():\n    return 0", "def b():\n    x = 1\n    return x"),
             ("    x = 1\n    return x", "    x = 2\n    return x")]
    content = [{"type": "tool_use", "id": f"t{i}", "name": "Edit",
                "input": {"file_path": "/w/m.py", "old_string": old, "new_string": new,
                          **({"replace_all": True} if replace_all and i else {})}}
               for i, (old, new) in enumerate(edits)]
    return json.dumps({"id": "m", "type": "message", "role": "assistant",
                       "stop_reason": "tool_use", "content": content})


CHAINS = {
    "SEARCH/REPLACE": search_replace("def b():\n    return 0", "def b():\n    x = 1\n    return x")
    + THEN + search_replace("    x = 1\n    return x", "    x = 2\n    return x"),
    "unified diffs in two fences": udiff(WRITE_DIFF) + THEN + udiff(EDIT_DIFF),
    "apply-patch, two Update File sections": codex(),
    "file-changes": file_patches(),
    "apply_patch tool calls": apply_patch_calls(),
}


@pytest.mark.parametrize("kind", list(CHAINS))
def test_a_block_quoting_what_an_earlier_one_wrote_and_the_files_own_copy_is_refused(kind):
    with pytest.raises(ApplyError) as e:
        plan(CHAINS[kind])
    text = str(e.value)
    assert "writes, and the file as it is holds the same lines (lines 2-3)" in text, text
    assert "m.py" in text and "the earlier " in text and "ambiguous" in text, text


def test_the_refusal_names_the_earlier_block_and_this_one():
    with pytest.raises(ApplyError) as e:
        plan(CHAINS["unified diffs in two fences"])
    assert "block 2 (diff m.py) quotes lines that the earlier block 1 (diff m.py) writes" \
        in str(e.value)
    with pytest.raises(ApplyError) as e:
        plan(CHAINS["SEARCH/REPLACE"])
    assert "edit 2" in str(e.value) and "the earlier edit 1 ('def b():') writes" in str(e.value)


@pytest.mark.parametrize("header, want", [("@@ -2,2 +2,2 @@", IN_A), ("@@ -7,2 +7,2 @@", IN_B)],
                         ids=["the-original-counting", "the-first-diffs-result-counting"])
def test_line_numbers_that_name_one_reading_decide(header, want):
    assert final(udiff(WRITE_DIFF) + THEN + udiff(EDIT_DIFF, header)) == want


@pytest.mark.parametrize("anchor, want", [(" def a():", IN_A), (" def b():", IN_B)])
def test_an_anchor_that_names_one_function_decides(anchor, want):
    assert final(codex(anchor)) == want


def test_claude_code_edit_calls_apply_in_turn_and_refuse_two_occurrences():
    # the second call's old_string occurs twice once the first is made: its own count
    # refuses it; with replace_all the model asked for both
    with pytest.raises(ApplyError) as e:
        plan(edit_calls())
    assert "m.py" in str(e.value)
    assert final(edit_calls(replace_all=True)) == IN_B.replace("x = 1", "x = 2")


def _message(*content) -> str:
    return json.dumps({"id": "m", "type": "message", "role": "assistant",
                       "stop_reason": "tool_use", "content": list(content)})


def _edit(i: int, old: str, new: str) -> dict:
    return {"type": "tool_use", "id": f"t{i}", "name": "Edit",
            "input": {"file_path": "/w/m.py", "old_string": old, "new_string": new}}


MIXED = {
    "an Edit call, then a diff": _message(
        _edit(0, "def b():\n    return 0", "def b():\n    x = 1\n    return x"),
        {"type": "text", "text": "Then:\n\n" + udiff(EDIT_DIFF)}),
    "a diff, then an Edit call": _message(
        {"type": "text", "text": "First:\n\n" + udiff(WRITE_DIFF)},
        _edit(1, "    x = 1\n    return x", "    x = 2\n    return x")),
}


@pytest.mark.parametrize("kind", list(MIXED))
def test_a_tool_call_next_to_a_block_is_located_on_what_the_other_wrote(kind):
    # a tool call closes the file's group: what comes after it is located on the text
    # as the earlier edits left it, where the lines occur twice
    with pytest.raises(ApplyError) as e:
        plan(MIXED[kind])
    assert "2 times" in str(e.value) and "lines 2, 7" in str(e.value)


def test_a_block_quoting_only_the_files_own_lines_still_applies():
    # `def a():` is no line the first block wrote: the copy in a() is the only reading
    response = CHAINS["SEARCH/REPLACE"].rsplit(THEN, 1)[0] + THEN + search_replace(
        "def a():\n    x = 1", "def a():\n    x = 2")
    assert final(response) == IN_A


def test_e2e_the_ambiguous_block_commits_nothing(repo: GitRepo):
    repo.write("m.py", BASE)
    head = repo.commit_all("base")
    r = repo.run(response="Give b() the same body, then set x to 2:\n\n" + CHAINS["SEARCH/REPLACE"])
    assert r.returncode == 1, r.out + r.err
    assert "Traceback" not in r.err
    assert "writes, and the file as it is holds the same lines (lines 2-3)" in r.err, r.err
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert repo.git("status", "--porcelain").strip() == ""
    assert repo.read("m.py").decode() == BASE
