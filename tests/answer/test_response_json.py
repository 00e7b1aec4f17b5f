"""The JSON shapes a response may be (answer/response_json.py), as plain functions: JSON
Lines and saved event streams read only when every line is an object, saved-session
entries unwrapped, one conversation per JSON Lines file told from one response per line,
and a saved Chat Completions stream joined into the one response it adds up to."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from git_aiapply.answer.response_json import (is_chunk, is_conversation, joined_stream,
                                              json_lines, jsonl_conversation, load_json,
                                              unwrap_entry)

MESSAGE = {"role": "assistant", "content": "Fix it."}


def _chunk(delta, finish=None, index=0, model="gpt-x"):
    return {"object": "chat.completion.chunk", "model": model,
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def test_a_json_list_is_a_response_only_when_it_reads_as_a_conversation():
    assert load_json("[1, 2, 3]") is None
    assert load_json('[{"a": 1}]') is None  # objects, but none with a role, a type or choices
    assert load_json("[]") is None
    assert load_json(json.dumps([MESSAGE])) == [MESSAGE]
    assert load_json("not json at all") is None
    # a rollout's metadata alone is not a conversation: the input stays text
    assert load_json(json.dumps([{"type": "session_meta", "payload": {"id": "x"}}])) is None


def test_saved_event_stream_lines_other_than_data_are_skipped_only_in_a_stream():
    sse = 'event: message\nid: 1\n: keep-alive\ndata: {"a": 1}\n\ndata: [DONE]\n'
    assert json_lines(sse) == [{"a": 1}]
    # the same field lines without a single data: line are not a saved stream: text
    assert json_lines('event: message\n{"a": 1}\n') is None
    assert json_lines("data: [DONE]\n") is None  # nothing in it
    assert json_lines("\n\n") is None


def test_saved_session_entries_are_unwrapped_to_what_they_carry():
    body = {"model": "gpt-x", "choices": []}
    assert unwrap_entry({"type": "assistant", "message": MESSAGE}) == MESSAGE
    assert unwrap_entry({"type": "response_item", "payload": MESSAGE}) == MESSAGE
    assert unwrap_entry({"custom_id": "r", "response": {"status_code": 200, "body": body}}) == body
    assert unwrap_entry({"status_code": 200, "body": body}) == body
    for record in ("session_meta", "event_msg", "turn_context", "compacted"):
        assert unwrap_entry({"type": record, "payload": {"type": "agent_message"}}) is None
    # a message is never unwrapped, whatever else it holds; other values stay as they are
    odd = {"role": "assistant", "type": "assistant", "message": {"role": "user"}}
    assert unwrap_entry(odd) is odd
    assert unwrap_entry({"type": "assistant", "message": "text"}) == {
        "type": "assistant", "message": "text"}
    assert unwrap_entry([1]) == [1]


def _lines(*objects) -> bytes:
    return ("\n".join(json.dumps(o) for o in objects) + "\n").encode()


def test_a_jsonl_file_is_one_conversation_only_when_its_lines_say_so():
    other = {"role": "assistant", "content": "Other."}
    assert not jsonl_conversation(_lines(MESSAGE, other))  # one response per line
    assert not jsonl_conversation(_lines({"role": "user", "content": "go"}))  # one line
    assert jsonl_conversation(_lines({"role": "user", "content": "go"}, MESSAGE))
    assert jsonl_conversation(b"\xef\xbb\xbf" + _lines({"role": "system", "content": "s"},
                                                      MESSAGE))
    assert jsonl_conversation(_lines({"type": "assistant", "message": MESSAGE},
                                     {"type": "assistant", "message": other}))
    assert jsonl_conversation(_lines({"type": "session_meta", "payload": {}},
                                     {"type": "response_item", "payload": MESSAGE}))
    assert jsonl_conversation(_lines(_chunk({"content": "a"}), _chunk({}, "stop")))
    # Batch output lines wrap one response each: one response per line
    batch = {"custom_id": "r", "response": {"status_code": 200, "body": {"choices": []}}}
    assert not jsonl_conversation(_lines(batch, batch))
    assert not jsonl_conversation(b"prose\n" + _lines(MESSAGE, MESSAGE))


def test_a_stream_joins_each_choice_its_refusal_and_its_last_finish():
    chunks = [_chunk({"role": "assistant", "content": "B1"}, index=1, model=""),
              _chunk({"content": "A1"}, index=0),
              _chunk({"refusal": "I can't "}, index=2, model="gpt-y"),
              _chunk({"content": "B2"}, "stop", index=1, model=""),
              _chunk({"refusal": "help."}, "content_filter", index=2, model="")]
    out = joined_stream(chunks)
    assert out["object"] == "chat.completion" and out["model"] == "gpt-y"  # the last named
    assert [c["index"] for c in out["choices"]] == [0, 1, 2]
    a, b, refused = out["choices"]
    assert a == {"index": 0, "message": {"role": "assistant", "content": "A1"},
                 "finish_reason": None}  # never finished: cut off
    assert b["message"]["content"] == "B1B2" and b["finish_reason"] == "stop"
    assert refused["message"] == {"role": "assistant", "content": None, "refusal": "I can't help."}
    assert refused["finish_reason"] == "content_filter"
    assert is_chunk(chunks[0]) and not is_chunk(MESSAGE) and not is_chunk([chunks[0]])
    assert is_chunk({"choices": [{"delta": {}}]})  # a chunk without its object name


_OBJECTS = st.dictionaries(st.text(max_size=5),
                           st.one_of(st.integers(), st.text(max_size=8), st.none()),
                           min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.lists(_OBJECTS, min_size=1, max_size=5), st.booleans(), st.lists(st.booleans(), max_size=5))
def test_json_lines_read_back_every_object_in_order(objects, sse, blanks):
    """Property: objects written one per line (plainly or as a saved stream's data:
    lines, blank lines between them) read back as the same list."""
    lines = []
    for k, o in enumerate(objects):
        lines.append(("data: " if sse else "") + json.dumps(o))
        if k < len(blanks) and blanks[k]:
            lines.append("event: chunk" if sse else "   ")
    text = "\n".join(lines) + ("\ndata: [DONE]\n" if sse else "\n")
    assert json_lines(text) == objects
    assert is_conversation(objects) == any(k in o for o in objects
                                          for k in ("role", "type", "choices"))


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30), st.lists(st.integers(0, 30), max_size=4),
       st.lists(st.integers(0, 30), max_size=4))
def test_tool_call_arguments_are_joined_by_index_however_they_are_cut(a, b, cuts_a, cuts_b):
    """Property: two calls' arguments sent in pieces, the calls' pieces interleaved, join
    to each call's whole arguments, its name and id taken from its first piece."""
    def pieces(text, cuts):
        points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
        return [text[x:y] for x, y in zip(points, points[1:])] or [""]

    first = [{"index": 0, "id": "c0", "function": {"name": "edit", "arguments": ""}},
             {"index": 1, "id": "c1", "function": {"name": "write", "arguments": ""}}]
    rest = [[{"index": 0, "function": {"arguments": p}}] for p in pieces(a, cuts_a)]
    other = [[{"index": 1, "function": {"arguments": p}}] for p in pieces(b, cuts_b)]
    mixed = [x for pair in zip(rest, other) for x in pair] + rest[len(other):] + other[len(rest):]
    chunks = ([_chunk({"role": "assistant", "tool_calls": first})]
              + [_chunk({"tool_calls": calls}) for calls in mixed] + [_chunk({}, "tool_calls")])
    (choice,) = joined_stream(chunks)["choices"]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    assert choice["message"]["tool_calls"] == [
        {"id": "c0", "type": "function", "function": {"name": "edit", "arguments": a}},
        {"id": "c1", "type": "function", "function": {"name": "write", "arguments": b}}]
