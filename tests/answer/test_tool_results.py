"""Every conversation shape's tool result says whether its call was applied, failed or
was rejected (BEHAVIOR.md §8): one reader (``tool_result_outcome``) takes the shape's own
flag (Anthropic ``is_error``, Responses ``status``, Codex ``exit_code``) and, where a
shape has no flag (a Chat Completions ``role: tool`` message), the well-known wordings of
agent harnesses.  A result that is not clearly a failure counts as applied."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.answer.response import read_response
from git_aiapply.answer.tool_results import tool_result_outcome

CLAUDE_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was "
                   "rejected (eg. if it was a file edit, the new_string was NOT written to the "
                   "file). STOP what you are doing and wait for the user to tell you how to "
                   "proceed.")
SWE_AGENT_LINT = ("Your proposed edit has introduced new syntax error(s). Please read this "
                  "error message carefully and then retry editing the file.\nERRORS:\n- E999 "
                  "SyntaxError: '(' was never closed\nYour changes have not been applied. "
                  "Please fix your edit command and try again.")


def _chat(content) -> dict:
    return {"role": "tool", "tool_call_id": "1", "content": content}


def _codex(output, kind="function_call_output") -> dict:
    return {"type": kind, "call_id": "a", "output": output}


def _codex_json(exit_code: int, text: str) -> str:
    return json.dumps({"output": text, "metadata": {"exit_code": exit_code,
                                                    "duration_seconds": 0}})


@pytest.mark.parametrize("result, outcome", [
    # Chat Completions: no flag, the harness's words
    (_chat("The file m.py has been edited."), "applied"),
    (_chat(SWE_AGENT_LINT), "failed"),
    (_chat(CLAUDE_REJECTED), "rejected"),
    (_chat([{"type": "text", "text": CLAUDE_REJECTED}]), "rejected"),
    (_chat("Error: old_str `x` not found in m.py"), "failed"),
    (_chat("ERROR:\nInvalid `path` parameter"), "failed"),
    (_chat("error: patch failed: m.py:3"), "failed"),
    (_chat("No replacement was performed, old_str `x` did not appear verbatim in m.py."),
     "failed"),
    (_chat("<tool_use_error>String to replace not found in file.</tool_use_error>"), "failed"),
    (_chat("Edited m.py. The tests report no error: all passed."), "applied"),
    (_chat("Rejected requests are now logged (m.py updated)."), "applied"),
    (_chat(None), "applied"),
    # Codex / Responses function and custom tool outputs: exit code
    (_codex(_codex_json(1, "patch rejected by user")), "rejected"),
    (_codex(_codex_json(1, "Failed to find expected lines")), "failed"),
    (_codex(_codex_json(0, "Success. Updated the following files:\nM m.py\n")), "applied"),
    (_codex("Exit code: 1\nWall time: 0 seconds\nOutput:\npatch rejected by user\n"),
     "rejected"),
    (_codex("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"), "applied"),
    (_codex("Exit code: 2\nWall time: 0 seconds\nOutput:\nInvalid patch\n",
            "custom_tool_call_output"), "failed"),
    (_codex("patch rejected by user", "custom_tool_call_output"), "rejected"),
    (_codex("error: Failed to find expected lines in m.py", "custom_tool_call_output"),
     "failed"),
    (_codex("Success. Updated the following files:\nM m.py\n", "custom_tool_call_output"),
     "applied"),
    (_codex([{"type": "input_text", "text": "patch rejected by user"}]), "rejected"),
    # Responses apply_patch_call_output: status
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "failed",
      "output": "patch rejected by user"}, "rejected"),
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "failed",
      "output": "context not found"}, "failed"),
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "completed",
      "output": "done"}, "applied"),
    # Anthropic tool_result blocks: is_error
    ({"type": "tool_result", "tool_use_id": "t", "is_error": True,
      "content": CLAUDE_REJECTED}, "rejected"),
    ({"type": "tool_result", "tool_use_id": "t", "is_error": True,
      "content": "String to replace not found in file."}, "failed"),
    ({"type": "tool_result", "tool_use_id": "t", "content": "Updated."}, "applied"),
    # an explicit is_error: false is the flag: applied, whatever the text
    ({"type": "tool_result", "tool_use_id": "t", "is_error": False,
      "content": "Error: nothing to worry about, the file was updated."}, "applied"),
    ({"type": "tool_result", "tool_use_id": "t",
      "content": "<tool_use_error>File has not been read yet.</tool_use_error>"}, "failed"),
])
def test_each_shape_says_applied_failed_or_rejected(result, outcome):
    assert tool_result_outcome(result) == outcome


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_ordinary_success_text_counts_as_applied(text):
    """Conservative: only a clear failure wording drops a call with no flag."""
    words = text.lower()
    if any(w in words for w in ("error", "not been applied", "reject", "no replacement",
                                "want to proceed", "exit code")):
        return
    assert tool_result_outcome(_chat("The file m.py has been edited. " + text)) == "applied"


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=255), st.text(max_size=40))
def test_any_nonzero_exit_code_is_a_failure(code, text):
    assert tool_result_outcome(_codex(_codex_json(code, text))) in ("failed", "rejected")
    assert tool_result_outcome(_codex(f"Exit code: {code}\nOutput:\n{text}")) \
        in ("failed", "rejected")


def _calls(items) -> tuple[str, list]:
    r = read_response(json.dumps(items).encode(), "r.json")
    return r.text, [call for _offset, call in r.tool_calls]


def _chat_call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def _chat_conversation(first_result: str) -> list:
    return [
        {"role": "user", "content": "Annotate sub."},
        {"role": "assistant", "content": "I'll also tweak add.", "tool_calls": [
            _chat_call("1", "Edit", {"file_path": "m.py", "old_string": "    return a + b",
                                     "new_string": "    return a + b  # mistake"})]},
        {"role": "tool", "tool_call_id": "1", "content": first_result},
        {"role": "assistant", "content": "Annotating sub.", "tool_calls": [
            _chat_call("2", "Edit", {"file_path": "m.py", "old_string": "    return a - b",
                                     "new_string": "    return a - b  # sub"})]},
        {"role": "tool", "tool_call_id": "2", "content": "The file m.py has been updated."},
    ]


def test_chat_rejected_call_is_left_out_with_its_announcement():
    text, calls = _calls(_chat_conversation(CLAUDE_REJECTED))
    assert [c.call_id for c in calls] == ["2"]
    assert "tweak add" not in text and "Annotating sub." in text


def test_chat_failed_call_is_left_out_but_its_text_stays():
    text, calls = _calls(_chat_conversation(SWE_AGENT_LINT))
    assert [c.call_id for c in calls] == ["2"]
    assert "I'll also tweak add." in text


def test_chat_applied_call_stays():
    _text, calls = _calls(_chat_conversation("The file m.py has been updated."))
    assert [c.call_id for c in calls] == ["1", "2"]


def test_chat_rejected_call_keeps_a_later_call_of_the_same_message():
    items = [
        {"role": "assistant", "content": "Two edits.", "tool_calls": [
            _chat_call("1", "Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}),
            _chat_call("2", "Edit", {"file_path": "b.py", "old_string": "x", "new_string": "y"}),
        ]},
        {"role": "tool", "tool_call_id": "1", "content": CLAUDE_REJECTED},
        {"role": "tool", "tool_call_id": "2", "content": "The file b.py has been updated."},
    ]
    _text, calls = _calls(items)
    assert [c.call_id for c in calls] == ["2"]


@pytest.mark.parametrize("kind, call, output", [
    ("function_call", {"name": "shell", "arguments": json.dumps({"command": [
        "apply_patch", "*** Begin Patch\n*** Update File: m.py\n@@\n-    return a + b\n"
        "+    return a + b  # WRONG\n*** End Patch\n"]})},
     _codex_json(1, "patch rejected by user")),
    ("custom_tool_call", {"name": "apply_patch", "input":
        "*** Begin Patch\n*** Update File: m.py\n@@\n-    return a + b\n"
        "+    return a + b  # WRONG\n*** End Patch\n"},
     "Exit code: 1\nWall time: 0 seconds\nOutput:\npatch rejected by user\n"),
])
def test_codex_failed_outputs_leave_their_call_out(kind, call, output):
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]},
        dict(call, type=kind, call_id="a"),
        {"type": kind + "_output", "call_id": "a", "output": output},
        dict(call, type=kind, call_id="b"),
        {"type": kind + "_output", "call_id": "b", "output": _codex_json(0, "Success.")},
    ]
    _text, calls = _calls(items)
    assert [c.call_id for c in calls] == ["b"]


# --------------------------------------------------------------- what a rejected call takes

def test_a_rejected_calls_file_is_named_exactly_not_by_a_suffix():
    from git_aiapply.answer.tool_results import _same_file

    assert _same_file("/testbed/src/util.py", "src/util.py")  # an agent's absolute path
    assert _same_file("./src/util.py", "src/util.py")
    assert not _same_file("src/util.py", "util.py")  # another file of the same name
    assert not _same_file("/a/util.py", "/b/util.py")


@pytest.mark.parametrize("fence", ["```", "````", "~~~"])
def test_a_kept_block_keeps_its_fence_and_a_dropped_one_leaves_none(fence):
    from git_aiapply.formats import parse_response
    from git_aiapply.answer.tool_results import _blocks_for_other_files

    diff = (f"{fence}diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-hi\n+bye\n{fence}\n")
    other = (f"src/a.py\n{fence}python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
             f"{fence}\n")
    text = "First the docs.\n\n" + diff + "\nThen the code:\n\n" + other + "I'll also ...\n"
    kept = _blocks_for_other_files(text, frozenset({"src/a.py"}))
    assert [op.path for op in parse_response(kept).ops] == ["b.txt"]  # fence closed
    kept = _blocks_for_other_files(text, frozenset({"b.txt"}))
    assert [op.path for op in parse_response(kept).ops] == ["src/a.py"]
    assert fence + "diff" not in kept  # no empty fence left behind
