"""A chat-API snapshot taken mid-stream (BEHAVIOR.md §1, §2; issue 21 item 11):
``stop_reason: null`` (Anthropic) and ``finish_reason: null`` (OpenAI Chat) say the
answer was still being written, so it is refused as cut off, naming the signal.  A field
that is absent says nothing: hand-made and saved messages often leave it out."""
from __future__ import annotations

import json

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.answer.response import read_response


def read(data):
    return read_response(json.dumps(data).encode(), "r.json")


ANTHROPIC = {"type": "message", "role": "assistant", "model": "claude-x",
             "content": [{"type": "text", "text": "Done."}]}
CHAT = {"model": "gpt-x", "choices": [{"index": 0,
                                       "message": {"role": "assistant", "content": "Done."}}]}
EDIT = {"type": "tool_use", "id": "t", "name": "str_replace_based_edit_tool",
        "input": {"command": "create", "path": "a.txt", "file_text": "a\n"}}


@pytest.mark.parametrize("data, signal", [
    (dict(ANTHROPIC, stop_reason=None), "stop_reason null"),
    # whole-looking tool calls do not make a snapshot whole
    (dict(ANTHROPIC, stop_reason=None, content=[EDIT]), "stop_reason null"),
    ({"choices": [dict(CHAT["choices"][0], finish_reason=None)]}, "finish_reason null"),
    ([{"role": "user", "content": "go"}, dict(ANTHROPIC, stop_reason=None)], "stop_reason null"),
    ([{"role": "user", "content": "go"},
      {"choices": [dict(CHAT["choices"][0], finish_reason=None)]}], "finish_reason null"),
])
def test_null_stop_signal_is_refused_as_cut_off(data, signal):
    with pytest.raises(ApplyError) as e:
        read(data)
    assert e.value.kind == "truncated"
    assert "cut off" in str(e.value) and signal in str(e.value) and "mid-stream" in str(e.value)


@pytest.mark.parametrize("data", [
    ANTHROPIC,  # no stop_reason at all
    dict(ANTHROPIC, stop_reason="end_turn"),
    CHAT,  # no finish_reason at all
    {"choices": [dict(CHAT["choices"][0], finish_reason="stop")]},
    [{"role": "user", "content": "go"}, {"role": "assistant", "content": "Done."}],
])
def test_absent_or_final_stop_signal_is_read(data):
    assert read(data).text == "Done."


def test_only_the_last_turn_of_a_conversation_can_be_a_mid_stream_snapshot():
    import json

    from git_aiapply.answer.response import read_response

    def turn(stop, text):
        return {"role": "assistant", "stop_reason": stop, "content": [{"type": "text", "text": text}]}

    earlier = [{"role": "user", "content": "go"}, turn(None, "First part."),
               {"role": "user", "content": "more"}]
    done = read_response(json.dumps(earlier + [turn("end_turn", "Second part.")]).encode())
    assert "First part." in done.text and "Second part." in done.text
    with pytest.raises(ApplyError, match="stop_reason null"):
        read_response(json.dumps(earlier[:2]).encode())


# a saved agent session: Claude Code's transcript wraps each streamed entry as
# {"type": ROLE, "message": ...} and writes stop_reason null on nearly every one
def _entry(role: str, message: dict) -> dict:
    return {"type": role, "message": message, "uuid": "u", "sessionId": "s"}


def _session(last_stop) -> list:
    return [
        _entry("user", {"role": "user", "content": "go"}),
        _entry("assistant", dict(ANTHROPIC, stop_reason=None, content=[EDIT])),
        _entry("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "File created"}]}),
        _entry("assistant", dict(ANTHROPIC, stop_reason=last_stop)),
    ]


@pytest.mark.parametrize("last_stop", [None, "end_turn", "tool_use"])
def test_a_saved_session_is_not_cut_off_by_its_null_stops(last_stop):
    answer = read(_session(last_stop))
    assert answer.text.endswith("Done.") and len(answer.tool_calls) == 1


def test_a_saved_session_whose_last_entry_hit_the_token_limit_is_cut_off():
    with pytest.raises(ApplyError) as e:
        read(_session("max_tokens"))
    assert e.value.kind == "truncated" and "max_tokens" in str(e.value)


def test_a_saved_session_as_json_lines_applies(tmp_path):
    raw = "\n".join(json.dumps(e) for e in _session(None)).encode()
    answer = read_response(raw, "session.jsonl")
    assert len(answer.tool_calls) == 1
