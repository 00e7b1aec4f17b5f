"""Every conversation shape's tool result says whether its call was applied, failed or
was rejected (BEHAVIOR.md §1) from the harness's structure: one reader
(``tool_result_outcome``) takes the shape's own flag (Anthropic ``is_error``, Responses
``status``, Codex's exit code, Gemini's ``error``) and, where a shape has no flag, only the
exact texts harnesses write for a call they did not carry out (``HARNESS_TEXTS``), as the
whole result or its opening.  A successful result may echo any code: words in it say
nothing."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.answer.response import read_response
from git_aiapply.answer.tool_results import HARNESS_TEXTS, harness_says, tool_result_outcome
from git_aiapply.errors import ApplyError

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


def _anthropic(content, **flag) -> dict:
    return {"type": "tool_result", "tool_use_id": "t", "content": content, **flag}


@pytest.mark.parametrize("result, outcome", [
    # Chat Completions: no flag, a harness's exact text
    (_chat("The file m.py has been edited."), "applied"),
    (_chat(SWE_AGENT_LINT), "failed"),
    (_chat(CLAUDE_REJECTED), "rejected"),
    (_chat([{"type": "text", "text": CLAUDE_REJECTED}]), "rejected"),
    (_chat("ERROR:\nInvalid `path` parameter"), "failed"),
    (_chat("No replacement was performed, old_str `x` did not appear verbatim in m.py."),
     "failed"),
    (_chat("<tool_use_error>String to replace not found in file.</tool_use_error>"), "failed"),
    (_chat("Edited m.py. The tests report no error: all passed."), "applied"),
    (_chat("Rejected requests are now logged (m.py updated)."), "applied"),
    (_chat(None), "applied"),
    # Gemini's functionResponse.response, as a result's JSON text
    (_chat(json.dumps({"error": "[Operation Cancelled] Reason: User denied execution."})),
     "rejected"),
    (_chat(json.dumps({"error": "Failed to edit, could not find the string to replace."})),
     "failed"),
    (_chat(json.dumps({"output": "Successfully modified file: m.py (1 replacements)."})),
     "applied"),
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
    (_codex("apply_patch verification failed: Failed to find expected lines in m.py:\n"
            "    return a + b", "custom_tool_call_output"), "failed"),
    (_codex("Success. Updated the following files:\nM m.py\n", "custom_tool_call_output"),
     "applied"),
    (_codex([{"type": "input_text", "text": "patch rejected by user"}]), "rejected"),
    # an output object with success (Codex forks), a Responses output status
    (_codex({"content": "Failed to find expected lines", "success": False}), "failed"),
    (_codex({"content": "Done.", "success": True}), "applied"),
    (dict(_codex("partial output"), status="incomplete"), "failed"),
    (dict(_codex("Done."), status="completed"), "applied"),
    # Responses apply_patch_call_output: status
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "failed",
      "output": "patch rejected by user"}, "rejected"),
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "failed",
      "output": "context not found"}, "failed"),
    ({"type": "apply_patch_call_output", "call_id": "a", "status": "completed",
      "output": "done"}, "applied"),
    # Anthropic tool_result blocks: is_error
    (_anthropic(CLAUDE_REJECTED, is_error=True), "rejected"),
    (_anthropic("String to replace not found in file.", is_error=True), "failed"),
    (_anthropic("Updated."), "applied"),
    # an explicit is_error: false is the flag: applied, whatever the text
    (_anthropic("Error: nothing to worry about, the file was updated.", is_error=False),
     "applied"),
    (_anthropic(CLAUDE_REJECTED, is_error=False), "applied"),
    (_anthropic("<tool_use_error>File has not been read yet.</tool_use_error>"), "failed"),
])
def test_each_shape_says_applied_failed_or_rejected(result, outcome):
    assert tool_result_outcome(result) == outcome


@pytest.mark.parametrize("text", [
    "Error: old_str `x` not found in m.py",  # no harness's wording: an unknown tool's
    "error: patch failed: m.py:3",
    "The edit has not been applied yet; run the tests.",
    "Tool use rejected by the user.",
    "The user declined this edit.",
])
def test_words_that_are_no_harness_text_say_nothing(text):
    """Without a flag, only a harness's exact text is a failure: a result in words of
    failure that no harness writes is not read for its vocabulary."""
    assert tool_result_outcome(_chat(text)) == "applied"
    assert tool_result_outcome(_anthropic(text, is_error=True)) == "failed"  # the flag


# ------------------------------------------------------------- every harness text in the table

def _instance(text: str) -> str:
    """A result as the harness writes it: its values filled in."""
    return text.replace("{}", "m.py", 1).replace("{}", " The user said: keep it.")


def test_the_table_names_a_harness_for_every_text():
    assert len({e.text for e in HARNESS_TEXTS}) == len(HARNESS_TEXTS)
    for entry in HARNESS_TEXTS:
        assert entry.harness and entry.text.strip() == entry.text
        assert entry.says in ("failed", "rejected")


@pytest.mark.parametrize("entry", HARNESS_TEXTS, ids=lambda e: f"{e.harness}:{e.text[:30]}")
def test_each_harness_text_says_what_the_harness_meant(entry):
    text = _instance(entry.text)
    assert harness_says(text) == entry.says
    assert tool_result_outcome(_chat(text)) == entry.says
    assert tool_result_outcome(_anthropic(text)) == entry.says
    assert tool_result_outcome(_anthropic(text, is_error=True)) == entry.says
    assert tool_result_outcome(_codex(text, "custom_tool_call_output")) == entry.says


@pytest.mark.parametrize("entry", HARNESS_TEXTS, ids=lambda e: f"{e.harness}:{e.text[:30]}")
def test_a_harness_text_inside_a_successful_result_says_nothing(entry):
    """The same text echoed by a successful result (a file view of the code that holds
    it, a command's output) leaves the call applied."""
    echoed = ("The file /repo/m.py has been updated. Here's the result of running `cat -n` "
              "on a snippet of the edited file:\n     1\tMESSAGE = '''\n     2\t"
              + _instance(entry.text) + "\n     3\t'''\n")
    for result in (_chat(echoed), _anthropic(echoed), _anthropic(echoed, is_error=False),
                   _codex(_codex_json(0, echoed)), _codex(echoed, "custom_tool_call_output"),
                   {"type": "apply_patch_call_output", "call_id": "a", "status": "completed",
                    "output": echoed}):
        assert tool_result_outcome(result) == "applied"


# ------------------------------------------------------------- successes that echo any code

# How harnesses word a successful edit, before the code they echo.
SUCCESS_OPENINGS = (
    "The file /repo/m.py has been updated. Here's the result of running `cat -n` on a "
    "snippet of the edited file:\n",  # Claude Code
    "The file /repo/m.py has been edited. Here's the result of running `cat -n` on a "
    "snippet of /repo/m.py:\n",  # str_replace_editor
    "Success. Updated the following files:\nM m.py\n",  # Codex apply_patch
    "Successfully modified file: /repo/m.py (1 replacements).\n",  # Gemini CLI
)
FAILURE_WORDS = [e.text.split("{}")[0] for e in HARNESS_TEXTS if e.text.split("{}")[0]] + [
    "has not been applied", "Your changes have NOT been applied.", "Error:", "error:",
    "ERROR", "rejected", "denied", "Exit code: 1", "<tool_use_error>", "is_error: true"]
_CODE_LINE = st.one_of(st.sampled_from(FAILURE_WORDS),
                       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))


def _shapes(text: str) -> list:
    """A successful result holding ``text``, in each JSON shape that carries one."""
    return [_anthropic(text), _anthropic([{"type": "text", "text": text}], is_error=False),
            _chat(text), _codex(text), _codex(_codex_json(0, text)),
            _codex(f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{text}",
                   "custom_tool_call_output"),
            {"type": "apply_patch_call_output", "call_id": "a", "status": "completed",
             "output": text}]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SUCCESS_OPENINGS), st.lists(_CODE_LINE, max_size=6))
def test_a_successful_result_echoing_any_code_counts_as_applied(opening, lines):
    """Whatever the echoed code says (a message string "has not been applied", an
    ``Error`` class, a harness's own rejection text quoted in a test), the call applied."""
    text = opening + "".join(f"{n:6}\t{line}\n" for n, line in enumerate(lines, 1))
    for result in _shapes(text):
        assert tool_result_outcome(result) == "applied"


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


# SWE-agent's and OpenHands' str_replace_editor refuses `create` over a file that exists
# (their text: "File already exists at: PATH. Cannot overwrite files using command
# `create`."); a trajectory as their models write it, the refused create, then the retry.
def _openhands_turns(*turns) -> bytes:
    entries = []
    for i, (args, result) in enumerate(turns, 1):
        entries.append({"role": "assistant", "content": "Working on it.", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {
                "name": "str_replace_editor", "arguments": json.dumps(args)}}]})
        if result is not None:
            entries.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    return json.dumps(entries).encode()


def _planned(data: bytes, files: dict) -> dict:
    from plan_base import DictBase
    from git_aiapply.answer.toolcalls import parse_with_tools
    from git_aiapply.paths import normalize_path
    from git_aiapply.plan.plan import make_plan

    ops = parse_with_tools(read_response(data, "r.json")).ops
    result = make_plan(ops, DictBase({p: (0o100644, d) for p, d in files.items()}),
                       lambda p: normalize_path(p, worktree="/testbed"))
    tree = dict(files)
    tree.update({p: s.data for p, s in result.final.items() if s is not None})
    return tree


CREATE = {"command": "create", "path": "/testbed/m.py", "file_text": "x = 2\n"}
RETRY = {"command": "str_replace", "path": "/testbed/m.py", "old_str": "x = 1",
         "new_str": "x = 2"}
EXISTS = ("ERROR:\nInvalid `path` parameter: /testbed/m.py. File already exists at: "
          "/testbed/m.py. Cannot overwrite files using command `create`.")


@pytest.mark.parametrize("result", [
    EXISTS,  # OpenHands
    "File already exists at: /testbed/m.py. Cannot overwrite files using command `create`.",
    None,  # the result left out of the file: the retry still shows what happened
])
def test_a_refused_create_then_its_retry_applies_the_retry(result):
    data = _openhands_turns((CREATE, result), (RETRY, "The file /testbed/m.py has been edited."))
    assert _planned(data, {"m.py": b"x = 1\ny = 1\n"}) == {"m.py": b"x = 2\ny = 1\n"}


def test_a_create_over_an_existing_file_without_a_later_write_is_refused_naming_the_tool():
    with pytest.raises(ApplyError) as e:
        _planned(_openhands_turns((CREATE, None)), {"m.py": b"x = 1\n"})
    assert "str_replace_editor" in str(e.value) and "File already exists at" in str(e.value)
    # a new path is created as the harness creates it
    assert _planned(_openhands_turns((CREATE, None)), {}) == {"m.py": b"x = 2\n"}
