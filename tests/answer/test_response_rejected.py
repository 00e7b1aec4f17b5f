"""A tool call the user rejected takes the text that announced it along (BEHAVIOR.md §1,
§8): the conversation's text about the edits that were made is the answer, not "I'll
change the port too" before an Edit the user turned down.  A call that failed for another
reason (the old text was not found, the file changed) keeps its text: the model retries
the same intent, and its words still describe the change that lands."""
from __future__ import annotations

import json

import pytest

from git_aiapply.answer.response import read_response

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
            "what you are doing and wait for the user to tell you how to proceed.")


def _edit(call_id: str, old: str, new: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "Edit",
            "input": {"file_path": "config.yaml", "old_string": old, "new_string": new}}


def _result(call_id: str, text: str, error: bool) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                         "content": text, "is_error": error}]}


def _conversation(first_result: str, first_error: bool) -> list:
    return [
        {"role": "user", "content": "Make the server listen on localhost only."},
        {"role": "assistant", "content": [{"type": "text", "text": "I'll change the port too."},
                                          _edit("t1", "  port: 8080", "  port: 1234")]},
        _result("t1", first_result, first_error),
        {"role": "user", "content": "Don't touch the port. Only the host."},
        {"role": "assistant", "content": [{"type": "text", "text": "Understood, only the host."},
                                          _edit("t2", "  host: 0.0.0.0", "  host: 127.0.0.1")]},
        _result("t2", "The file config.yaml has been updated.", False),
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]


def _read(items) -> tuple[str, list]:
    r = read_response(json.dumps(items).encode(), "r.json")
    return r.text, [call for _offset, call in r.tool_calls]


@pytest.mark.parametrize("words", [
    REJECTED,
    "The user doesn't want to take this action right now. STOP what you are doing.",
    "patch rejected by user",  # Codex
    "The user denied this operation.",  # Cline, Roo Code
    "The user rejected permission to use this specific tool call.",  # opencode
    "[Operation Cancelled] Reason: User denied execution.",  # Gemini CLI
    [{"type": "text", "text": REJECTED}],  # a result's content as text blocks
])
def test_text_announcing_a_rejected_call_is_not_the_answer(words):
    text, calls = _read(_conversation(words, True))
    assert "port" not in text
    assert "Understood, only the host." in text and "Done." in text
    assert len(calls) == 1


def test_a_call_that_failed_keeps_the_text_that_announced_it():
    text, calls = _read(_conversation("String to replace not found in file.", True))
    assert "I'll change the port too." in text
    assert len(calls) == 1  # the failed call is still not applied


def test_text_after_a_rejected_call_in_the_same_turn_stays():
    items = [
        {"role": "assistant", "content": [
            {"type": "text", "text": "I'll change the port."}, _edit("t1", "a", "b"),
            {"type": "text", "text": "Then the host."}, _edit("t2", "c", "d")]},
        _result("t1", REJECTED, True),
        _result("t2", "ok", False),
    ]
    text, calls = _read(items)
    assert text.strip() == "Then the host."
    assert len(calls) == 1


def test_a_rejected_turn_shown_in_text_is_not_applied_from_the_text():
    """The change the text shows, made by the call the user rejected, never lands."""
    shown = ("I'll change the port:\n\nconfig.yaml\n```\n<<<<<<< SEARCH\n  port: 8080\n=======\n"
             "  port: 1234\n>>>>>>> REPLACE\n```\n")
    items = _conversation(REJECTED, True)
    items[1]["content"][0]["text"] = shown
    text, _calls = _read(items)
    assert "1234" not in text


def test_responses_items_a_rejected_patch_takes_its_message_along():
    patch = {"type": "update_file", "path": "config.yaml",
             "diff": "@@\n-  port: 8080\n+  port: 1234\n"}
    items = [
        {"role": "user", "content": "Listen on localhost."},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Done with the docs."}]},
        {"role": "user", "content": "Now the config."},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "I'll change the port too."}]},
        {"type": "apply_patch_call", "call_id": "c1", "status": "completed", "operation": patch},
        {"type": "apply_patch_call_output", "call_id": "c1", "status": "failed",
         "output": "patch rejected by user"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Only the host, then."}]},
        {"type": "apply_patch_call", "call_id": "c2", "status": "completed",
         "operation": dict(patch, diff="@@\n-  host: 0.0.0.0\n+  host: 127.0.0.1\n")},
    ]
    text, calls = _read(items)
    assert "port" not in text
    assert "Done with the docs." in text and "Only the host, then." in text
    assert len(calls) == 1
