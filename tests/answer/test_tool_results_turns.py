"""A tool result answers the call of its id in its own turn (BEHAVIOR.md §1): models
number ids per turn (kimi-k2 writes ``functions.edit:0``, ``functions.edit:1`` and starts
again each turn), so a failed call must take out only itself, never a call of another turn
that reuses its id; its retry applies.  Tried in each conversation shape that carries ids:
Chat Completions ``tool_calls`` / ``role: tool``, Anthropic ``tool_use`` / ``tool_result``,
Responses ``function_call`` / ``function_call_output``, and saved API responses."""
from __future__ import annotations

import json

import pytest

from git_aiapply.answer.response import read_response
from git_aiapply.answer.tool_results import call_outcomes

FAILED = "<tool_use_error>String to replace not found in file.</tool_use_error>"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
            "what you are doing and wait for the user to tell you how to proceed.")
OK = "The file m.py has been updated."


def _edit_args(old: str, new: str) -> dict:
    return {"file_path": "m.py", "old_string": old, "new_string": new}


# Each shape: (assistant turn making calls [(id, args)], results [(id, text)]) -> entries

def _chat_turn(calls, results) -> list:
    return [{"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function",
                 "function": {"name": "Edit", "arguments": json.dumps(a)}} for i, a in calls]},
            *({"role": "tool", "tool_call_id": i, "content": t} for i, t in results)]


def _anthropic_turn(calls, results) -> list:
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": i, "name": "Edit", "input": a} for i, a in calls]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": t,
                 **({"is_error": True} if t != OK else {})} for i, t in results]}]


def _responses_turn(calls, results) -> list:
    return [*({"type": "function_call", "call_id": i, "name": "Edit", "arguments": json.dumps(a)}
              for i, a in calls),
            *({"type": "function_call_output", "call_id": i, "output": t} for i, t in results)]


def _saved_turn(calls, results) -> list:
    """Each assistant turn saved as the whole Chat Completions response it was."""
    return [{"object": "chat.completion", "model": "kimi-k2", "choices": [
                {"index": 0, "finish_reason": "tool_calls", "message": _chat_turn(calls, [])[0]}]},
            *_chat_turn([], results)[1:]]


SHAPES = {"chat": _chat_turn, "anthropic": _anthropic_turn, "responses": _responses_turn,
          "saved": _saved_turn}


def _read(items) -> list:
    r = read_response(json.dumps(items).encode(), "r.json")
    return [call for _offset, call in r.tool_calls]


def _news(calls) -> list:
    return [c.args["new_string"] if isinstance(c.args, dict)
            else json.loads(c.args)["new_string"] for c in calls]


A_WRONG = _edit_args("    return a + b", "    return a + b  # wrong")
A_RIGHT = _edit_args("    return a + b", "    return a + b  # add")
B = _edit_args("    return a - b", "    return a - b  # sub")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("first", [FAILED, REJECTED])
def test_a_failed_call_does_not_take_a_later_turns_call_of_the_same_id(shape, first):
    turn = SHAPES[shape]
    items = [{"role": "user", "content": "Annotate add and sub."},
             *turn([("functions.Edit:0", A_WRONG), ("functions.Edit:1", B)],
                   [("functions.Edit:0", first), ("functions.Edit:1", OK)]),
             *turn([("functions.Edit:0", A_RIGHT)], [("functions.Edit:0", OK)])]
    assert _news(_read(items)) == ["    return a - b  # sub", "    return a + b  # add"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_later_turns_failure_does_not_take_an_earlier_applied_call(shape):
    turn = SHAPES[shape]
    items = [{"role": "user", "content": "Annotate add and sub."},
             *turn([("functions.Edit:0", A_RIGHT)], [("functions.Edit:0", OK)]),
             *turn([("functions.Edit:0", B)], [("functions.Edit:0", FAILED)])]
    assert _news(_read(items)) == ["    return a + b  # add"]


@pytest.mark.parametrize("shape", ["chat", "anthropic", "responses"])
def test_one_id_twice_in_a_turn_is_answered_in_order(shape):
    """A model that gives every call of a turn the same id: its results answer them in
    the order they were made."""
    turn = SHAPES[shape]
    items = turn([("call_0", A_WRONG), ("call_0", B)], [("call_0", FAILED), ("call_0", OK)])
    assert _news(_read(items)) == ["    return a - b  # sub"]


def test_a_call_left_unanswered_is_not_the_one_a_later_turns_result_names():
    """Turn 1 made call X and got no result; turn 2 made X again and it failed: the
    failure is turn 2's."""
    items = [*_chat_turn([("x", A_RIGHT)], []),
             {"role": "user", "content": "Also sub."},
             *_chat_turn([("x", B)], [("x", FAILED)])]
    assert _news(_read(items)) == ["    return a + b  # add"]


def test_a_turn_split_over_entries_keeps_its_results():
    """Claude Code writes each block of one assistant message as an entry of its own: the
    results after both entries answer the calls of both."""
    cc = lambda kind, message: {"type": kind, "uuid": "u", "message": message}  # noqa: E731
    items = [cc("user", {"role": "user", "content": "Annotate."}),
             cc("assistant", {"id": "m1", "role": "assistant", "content": [
                 {"type": "tool_use", "id": "t1", "name": "Edit", "input": A_WRONG}]}),
             cc("assistant", {"id": "m1", "role": "assistant", "content": [
                 {"type": "tool_use", "id": "t2", "name": "Edit", "input": B}]}),
             cc("user", {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "t1", "content": REJECTED,
                  "is_error": True}]}),
             cc("user", {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "t2", "content": OK}]})]
    assert _news(_read(items)) == ["    return a - b  # sub"]


def test_call_outcomes_name_each_call_by_its_entry():
    items = [*_chat_turn([("e:0", A_WRONG)], [("e:0", REJECTED)]),
             *_chat_turn([("e:0", A_RIGHT), ("e:1", B)], [("e:0", OK), ("e:1", FAILED)])]
    outcomes = call_outcomes(items)
    outcomes.entry(0)
    assert outcomes.of("e:0") == "rejected"
    outcomes.entry(2)
    assert [outcomes.of("e:0"), outcomes.of("e:1"), outcomes.of(None)] == \
        ["applied", "failed", "applied"]
