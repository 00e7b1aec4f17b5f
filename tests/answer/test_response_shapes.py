"""JSON shapes of saved sessions (BEHAVIOR.md §1): Claude Code transcripts / stream-json
(``{"type": "assistant", "message": {...}}``), JSON Lines (a conversation one message or
item per line; Codex rollouts ``{"type": "response_item", "payload": ...}``; OpenAI Batch
output ``{"response": {"body": ...}}``), saved Chat Completions streams
(``chat.completion.chunk`` objects, or SSE ``data:`` lines) and Codex's ``exec_command``
tool (``{"cmd": ...}``) running an apply_patch heredoc."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.run.inputs import jsonl_inputs
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import call_ops

BLOCK = "m.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n"
EDIT_INPUT = {"file_path": "m.py", "old_string": "a - b", "new_string": "a + b"}


def read(text: str, name: str = "r.json"):
    return read_response(text.encode(), name)


def _calls(resp):
    return [c for _o, c in resp.tool_calls]


# ------------------------------------------------------------ Claude Code transcripts

def _cc(kind, message):
    return {"type": kind, "uuid": "u", "sessionId": "s", "message": message}


CC_TRANSCRIPT = [
    _cc("user", {"role": "user", "content": "annotate"}),
    _cc("assistant", {"id": "m1", "type": "message", "role": "assistant", "model": "claude-x",
                      "content": [{"type": "text", "text": "Editing."}]}),
    _cc("assistant", {"id": "m1", "type": "message", "role": "assistant", "model": "claude-x",
                      "content": [{"type": "tool_use", "id": "t1", "name": "Edit",
                                   "input": EDIT_INPUT}], "stop_reason": "tool_use"}),
    _cc("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": "ok"}]}),
]


def test_claude_code_transcript_list_is_read_as_its_messages():
    resp = read(json.dumps(CC_TRANSCRIPT))
    assert resp.is_json and resp.model == "claude-x"
    assert "Editing." in resp.text
    assert [c.name for c in _calls(resp)] == ["Edit"]
    assert _calls(resp)[0].args == EDIT_INPUT


def test_claude_code_transcript_as_json_lines():
    lines = "\n".join(json.dumps(e) for e in CC_TRANSCRIPT) + "\n"
    resp = read(lines, "session.jsonl")
    assert [c.name for c in _calls(resp)] == ["Edit"]


def test_claude_code_rejected_call_in_transcript_is_left_out():
    rejected = CC_TRANSCRIPT[:3] + [_cc("user", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "The user doesn't want to proceed with this tool use."}]})]
    with pytest.raises(ApplyError):
        read(json.dumps(rejected))  # nothing left to apply: refused, not applied


def test_wrapped_user_message_is_not_the_answer():
    with pytest.raises(ApplyError):
        read(json.dumps([_cc("user", {"role": "user", "content": BLOCK})]))


# ------------------------------------------------------------ JSON Lines

def test_json_lines_conversation_is_read_like_the_same_list():
    msgs = [{"role": "user", "content": "annotate"}, {"role": "assistant", "content": BLOCK}]
    as_lines = read("\n".join(json.dumps(m) for m in msgs) + "\n\n", "c.jsonl")
    as_list = read(json.dumps(msgs))
    assert as_lines.is_json and as_lines.text == as_list.text == BLOCK


def test_codex_rollout_reads_response_items_only():
    lines = [
        {"type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "go"}]}},
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "Patching."}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text",
                                                           "text": "Patching."}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "apply_patch",
                                              "call_id": "c", "arguments": "{}"}},
    ]
    resp = read("\n".join(json.dumps(x) for x in lines), "rollout.jsonl")
    assert resp.text.count("Patching.") == 1  # the event_msg echo is not a second copy
    assert [c.name for c in _calls(resp)] == ["apply_patch"]


def test_openai_batch_output_line_is_unwrapped():
    body = {"id": "c", "model": "gpt-x", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": BLOCK}, "finish_reason": "stop"}]}
    line = {"id": "b", "custom_id": "r1", "response": {"status_code": 200, "body": body},
            "error": None}
    resp = read(json.dumps(line))
    assert resp.text == BLOCK and resp.model == "gpt-x"


def test_batch_output_jsonl_in_branch_mode_is_one_response_per_line():
    body = {"model": "gpt-x", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": BLOCK}, "finish_reason": "stop"}]}
    line = json.dumps({"custom_id": "r", "response": {"status_code": 200, "body": body}})
    items = jsonl_inputs("b.jsonl", (line + "\n" + line + "\n").encode(), 0)
    assert len(items) == 2
    assert all(read_response(i.raw, "x").text == BLOCK for i in items)


def test_conversation_jsonl_in_branch_mode_is_one_response():
    msgs = [{"role": "user", "content": "annotate"}, {"role": "assistant", "content": BLOCK}]
    raw = ("\n".join(json.dumps(m) for m in msgs) + "\n").encode()
    items = jsonl_inputs("c.jsonl", raw, 0)
    assert len(items) == 1 and items[0].problem is None
    assert read_response(items[0].raw, "c").text == BLOCK


@pytest.mark.parametrize("text", [
    '{"a": 1}\nnot json\n',
    '{"role": "assistant", "content": "x"}\n[1, 2]\n',
    '{"role": "assistant", "content": "x"}\n"a string"\n',
])
def test_lines_that_are_not_all_objects_stay_text(text):
    resp = read(text, "r.txt")
    assert not resp.is_json and resp.text == text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=5), st.integers(0, 4))
def test_a_non_object_line_keeps_the_whole_input_text(texts, where):
    """Every non-blank line must be a JSON object; one line of prose makes it all text."""
    lines = [json.dumps({"role": "assistant", "content": t}) for t in texts]
    lines.insert(min(where, len(lines)), "prose: " + texts[0].replace("\n", " "))
    text = "\n".join(lines) + "\n"
    resp = read(text, "r.jsonl")
    assert not resp.is_json


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=30).filter(lambda t: t.strip()), min_size=1, max_size=5))
def test_json_lines_equal_the_json_list(texts):
    msgs = [{"role": "user", "content": "go"}] + [
        {"role": "assistant", "content": t} for t in texts]
    as_lines = read("\n".join(json.dumps(m) for m in msgs), "c.jsonl")
    as_list = read(json.dumps(msgs))
    assert as_lines.text == as_list.text and as_lines.response_id == as_list.response_id


# ------------------------------------------------------------ saved streams

def _chunk(delta, finish=None, index=0):
    return {"id": "x", "object": "chat.completion.chunk", "model": "gpt-x",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def test_stream_chunks_are_joined():
    half = len(BLOCK) // 2
    chunks = [_chunk({"role": "assistant", "content": BLOCK[:half]}),
              _chunk({"content": BLOCK[half:]}), _chunk({}, "stop")]
    resp = read(json.dumps(chunks))
    assert resp.text == BLOCK and resp.model == "gpt-x"


def test_stream_chunks_as_sse_lines():
    half = len(BLOCK) // 2
    chunks = [_chunk({"role": "assistant", "content": BLOCK[:half]}),
              _chunk({"content": BLOCK[half:]}, "stop")]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    resp = read(sse, "stream.txt")
    assert resp.is_json and resp.text == BLOCK


def test_stream_tool_call_arguments_are_joined_by_index():
    args = json.dumps({"path": "a.txt", "file_text": "hi\n", "command": "create"})
    chunks = [
        _chunk({"role": "assistant", "tool_calls": [
            {"index": 0, "id": "c0", "type": "function",
             "function": {"name": "str_replace_based_edit_tool", "arguments": ""}}]}),
        _chunk({"tool_calls": [{"index": 1, "id": "c1", "type": "function",
                                "function": {"name": "other", "arguments": "{}"}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[:10]}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[10:]}}]}),
        _chunk({}, "tool_calls"),
    ]
    calls = _calls(read(json.dumps(chunks)))
    assert [(c.name, c.call_id) for c in calls] == [("str_replace_based_edit_tool", "c0"),
                                                    ("other", "c1")]
    assert calls[0].args == args


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=80), st.lists(st.integers(0, 80), max_size=6))
def test_any_split_of_a_stream_joins_to_the_whole(text, cuts):
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in zip(points, points[1:])]
    chunks = [_chunk({"content": p}) for p in pieces] + [_chunk({}, "stop")]
    whole = {"model": "gpt-x", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    assert _outcome(chunks) == _outcome(whole)


def _outcome(data):
    """The text read, or the refusal (a blank answer is refused either way)."""
    try:
        return read(json.dumps(data)).text
    except ApplyError as e:
        return str(e)


def test_stream_without_a_finish_is_cut_off():
    with pytest.raises(ApplyError) as e:
        read(json.dumps([_chunk({"role": "assistant", "content": BLOCK})]))
    assert e.value.kind == "truncated"


def test_stream_cut_by_length_is_cut_off():
    with pytest.raises(ApplyError) as e:
        read(json.dumps([_chunk({"role": "assistant", "content": BLOCK}, "length")]))
    assert e.value.kind == "truncated" and "length" in str(e.value)


# ------------------------------------------------------------ Codex exec_command

PATCH = "*** Begin Patch\n*** Update File: m.py\n@@\n-a\n+b\n*** End Patch\n"


def _exec_call(cmd):
    return {"id": "r", "model": "gpt-5-codex", "status": "completed", "output": [
        {"type": "function_call", "call_id": "a", "name": "exec_command",
         "arguments": json.dumps({"cmd": cmd})}]}


def test_exec_command_running_an_apply_patch_heredoc_is_a_patch():
    resp = read(json.dumps(_exec_call(f"apply_patch <<'EOF'\n{PATCH}EOF\n")))
    ops = call_ops(_calls(resp)[0])
    assert [op.path for op in ops] == ["m.py"]


def test_exec_command_with_more_than_the_heredoc_is_refused():
    resp = read(json.dumps(_exec_call(f"cd sub && apply_patch <<'EOF'\n{PATCH}EOF\n")))
    with pytest.raises(ApplyError):
        call_ops(_calls(resp)[0])


# ------------------------------------------------------------ end to end

def test_jsonl_conversation_with_branch_makes_one_branch(repo, tmp_path):
    repo.write("m.py", "def sub(a, b):\n    return a - b\n")
    repo.commit_all()
    msgs = [{"role": "user", "content": "fix"}, {"role": "assistant", "content": BLOCK}]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in msgs) + "\n")
    r = repo.run("--branch", "try-{n}", str(path))
    assert r.returncode == 0, r.stderr
    heads = repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/try-*")
    assert heads.split() == ["try-1"]
    assert repo.git("show", "try-1:m.py") == "def sub(a, b):\n    return a + b\n"
