"""API JSON whose status, stop reason or call ids are objects or lists (response.py):
a value that cannot be one of the known statuses or ids is none of them, and the answer
is read (or refused) as it would be without it.  Such JSON made the command fail with
"internal error: TypeError: unhashable type" (a set or dict lookup of a dict or list)."""
from __future__ import annotations

import json

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.answer.response import read_response

TEXT = "Fix it."


@pytest.mark.parametrize("data", [
    {"output": [{"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": TEXT}]}], "status": {}},
    {"choices": [{"finish_reason": {}, "message": {"role": "assistant", "content": TEXT}}]},
    {"choices": [{"finish_reason": ["length"], "message": {"role": "assistant", "content": TEXT}}]},
    {"role": "assistant", "content": TEXT, "stop_reason": []},
    {"type": "message", "role": "assistant", "content": [{"type": "text", "text": TEXT}],
     "stop_reason": {"x": 1}},
], ids=["responses-status", "finish-object", "finish-list", "stop-list", "stop-object"])
def test_an_odd_status_is_no_known_status(data):
    assert read_response(json.dumps(data).encode()).text.strip() == TEXT


@pytest.mark.parametrize("data", [
    [{"role": "assistant", "content": [{"type": "text", "text": TEXT},
                                        {"type": "tool_use", "id": {}, "name": "x", "input": {}}]}],
    [{"role": "assistant", "content": TEXT,
      "tool_calls": [{"id": [], "type": "function", "function": {"name": "f", "arguments": "{}"}}]}],
    [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": {}, "is_error": True}]},
     {"role": "assistant", "content": TEXT}],
    [{"type": "apply_patch_call_output", "call_id": [], "status": "failed"},
     {"role": "assistant", "content": TEXT}],
    {"output": [{"type": "apply_patch_call", "call_id": []},
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": TEXT}]}]},
    [{"role": "assistant", "content": TEXT, "tool_calls": True}],
], ids=["tool-use-id", "tool-call-id", "tool-result-id", "patch-output-id", "patch-call-id",
        "tool-calls-true"])
def test_an_odd_call_id_is_no_failed_call(data):
    """Read as any other answer: the tool calls in it are judged as they would be with
    no id (here refused or read; never an internal error)."""
    try:
        read_response(json.dumps(data).encode())
    except ApplyError:
        pass
