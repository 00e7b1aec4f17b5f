"""Reading a response: plain text and chat-API JSON (BEHAVIOR.md §1, §8 AI-Response)."""
from __future__ import annotations

import json

import pytest
import xxhash

from git_aiapply.errors import ApplyError
from git_aiapply.answer.response import (DEFAULT_MAX_BYTES, normalize_newlines, read_response,
    response_id, response_name)


def xxh(data: bytes) -> str:
    return xxhash.xxh64(data, seed=0).hexdigest()


# ---------------------------------------------------------------- plain text

@pytest.mark.parametrize("raw, text", [
    (b"Fix it.\n", "Fix it.\n"),
    (b"a\r\nb\r\n", "a\nb\n"),
    (b"a\r\r\nb", "a\nb"),  # CRs before a LF go with it
    (b"a\rb\n", "a\rb\n"),  # a lone CR inside a line stays
    (b"\xef\xbb\xbfHello\n", "Hello\n"),  # a leading BOM is dropped
    (b"x\xffy", "x\udcffy"),  # invalid UTF-8 survives (surrogateescape)
    (b"", ""),
    (b"{not json at all", "{not json at all"),  # starts with { but is not JSON: text
    (b'{"a": 1} and then prose', '{"a": 1} and then prose'),
    (b"[1, 2, 3]", "[1, 2, 3]"),  # only an object can be API JSON
    (b"{" * 100000, "{" * 100000),  # too deep for the json module: text, no crash
])
def test_plain_text(raw, text):
    r = read_response(raw, "resp.md")
    assert r.text == text
    assert r.is_json is False
    assert r.model is None
    assert r.response_id == xxh(raw)  # the bytes as given, before any clean-up
    assert r.given_text.encode("utf-8", "surrogateescape") == raw


def test_response_id_is_16_lowercase_hex():
    rid = read_response(b"hello\n").response_id
    assert len(rid) == 16 and rid == rid.lower() and int(rid, 16) >= 0
    assert rid == xxh(b"hello\n") == response_id(b"hello\n")


def test_crlf_changes_the_id_but_not_the_text():
    a, b = read_response(b"a\nb\n"), read_response(b"a\r\nb\r\n")
    assert a.text == b.text
    assert a.response_id != b.response_id


@pytest.mark.parametrize("name, stem", [
    ("-", "stdin"),
    ("resp.md", "resp"),
    ("dir/sub/attempt-3.json", "attempt-3"),
    ("noext", "noext"),
    (".hidden", ".hidden"),
    ("a.b.txt", "a.b"),
])
def test_name_is_file_stem(name, stem):
    assert response_name(name) == stem
    assert read_response(b"x", name).name == stem


@pytest.mark.parametrize("text, expected", [
    ("", ""), ("a", "a"), ("\r\n", "\n"), ("\r", "\r"), ("a\r\n\r\nb", "a\n\nb"),
    ("\r" * 50000 + "\n", "\n"),
])
def test_normalize_newlines(text, expected):
    assert normalize_newlines(text) == expected


# ---------------------------------------------------------------- size limit

def test_size_limit_default_is_10_mib():
    assert DEFAULT_MAX_BYTES == 10 * 1024 * 1024


def test_above_the_limit_is_refused():
    with pytest.raises(ApplyError) as e:
        read_response(b"x" * 101, max_bytes=100)
    assert str(e.value) == ("the response is more than 100 bytes, the limit "
                            "(set aiapply.maxResponseBytes or --max-bytes)")


@pytest.mark.parametrize("size, limit", [(100, 100), (10, None), (10, 0)])
def test_at_or_without_the_limit_is_read(size, limit):
    assert read_response(b"x" * size, max_bytes=limit).text == "x" * size


# ---------------------------------------------------------------- JSON shapes

ANSWER = "Fix the bug.\r\n\r\n*** Begin Patch\r\n*** End Patch"

CHAT = {
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": ANSWER, "refusal": None}}],
    "usage": {"prompt_tokens": 1},
}
CHAT_PARTS = {
    "model": "gpt-4.1",
    "choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": "part one"},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "output_text", "text": "part two"},
    ]}}],
}
LEGACY = {"model": "gpt-3.5-turbo-instruct", "choices": [{"text": "legacy text", "index": 0}]}
RESPONSES = {
    "id": "resp_1", "object": "response", "model": "o4-mini", "error": None,
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking"}]},
        {"type": "function_call", "name": "shell", "arguments": "{}"},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "first", "annotations": []},
            {"type": "output_text", "text": "second", "annotations": []},
        ]},
    ],
}
ANTHROPIC = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "let me think", "signature": "x"},
        {"type": "redacted_thinking", "data": "xyz"},
        {"type": "text", "text": "Intro text."},
        {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        {"type": "text", "text": "More text."},
    ],
    "stop_reason": "end_turn",
}
MESSAGE_STR = {"role": "assistant", "content": "just a message"}
MESSAGE_PARTS = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}


@pytest.mark.parametrize("data, text, model", [
    (CHAT, ANSWER, "gpt-4o-2024-08-06"),
    (CHAT_PARTS, "part one\npart two", "gpt-4.1"),
    (LEGACY, "legacy text", "gpt-3.5-turbo-instruct"),
    (RESPONSES, "first\nsecond", "o4-mini"),
    (ANTHROPIC, "Intro text.\nMore text.", "claude-sonnet-4-5"),
    (MESSAGE_STR, "just a message", None),
    (MESSAGE_PARTS, "a\nb", None),
], ids=["chat", "chat-parts", "legacy", "responses", "anthropic", "message", "message-parts"])
def test_json_shapes(data, text, model):
    raw = json.dumps(data, indent=2).encode()
    r = read_response(raw, "answer.json")
    assert r.is_json
    assert r.given_text == text
    assert r.text == text.replace("\r\n", "\n")
    assert r.model == model
    assert r.response_id == xxh(text.encode("utf-8"))  # of the extracted text, not the JSON
    assert r.name == "answer"


def test_json_with_bom_crlf_and_leading_space():
    raw = b"\xef\xbb\xbf  \r\n" + json.dumps(CHAT).replace("\n", "\r\n").encode()
    r = read_response(raw)
    assert r.is_json and r.text == "Fix the bug.\n\n*** Begin Patch\n*** End Patch"


def test_json_id_ignores_the_json_around_the_text():
    one = read_response(json.dumps(CHAT).encode())
    other = dict(CHAT, id="chatcmpl-2", usage={"prompt_tokens": 99})
    assert read_response(json.dumps(other, indent=4).encode()).response_id == one.response_id


def test_json_non_ascii_text():
    data = {"role": "assistant", "content": "Ren\u00e9 \u2014 \u00fcber \U0001f600"}
    r = read_response(json.dumps(data).encode())  # \u escapes in the JSON
    assert r.text == data["content"]
    assert r.response_id == xxh(data["content"].encode("utf-8"))


def test_json_lone_surrogate_does_not_crash():
    r = read_response(b'{"role": "assistant", "content": "x\\ud800y"}')
    assert r.text == "x\ud800y" and len(r.response_id) == 16


@pytest.mark.parametrize("data, fragment", [
    ({"foo": 1, "bar": 2}, "JSON of no known shape (top-level keys: bar, foo)"),
    ({}, "JSON of no known shape (top-level keys: none)"),
    ({"choices": []}, "has no choices"),
    ({"choices": "x"}, "has no choices"),
    ({"model": "m", "choices": [{"message": {"role": "assistant", "content": None,
                                             "tool_calls": []}}]},
     "OpenAI Chat Completions JSON holds no assistant text and no tool call"),
    ({"choices": [{"message": {"role": "assistant", "content": None,
                               "refusal": "I can't help with that."}}]},
     "the model refused: I can't help with that."),
    ({"choices": [{"message": {"content": "   \n"}}]}, "holds no assistant text"),
    ({"output": [{"type": "reasoning", "summary": []}]}, "OpenAI Responses JSON holds no assistant text"),
    ({"output": [{"type": "message", "content": [{"type": "refusal", "refusal": "No."}]}]},
     "the model refused: No."),
    ({"type": "message", "role": "assistant", "content": [{"type": "thinking", "thinking": "t"}]},
     "Anthropic Messages JSON holds no assistant text"),
    ({"type": "message", "role": "assistant", "content": [{"type": "redacted_thinking"}]},
     "holds no assistant text"),
    ({"role": "user", "content": "please fix"}, "a message from 'user', not from the assistant"),
    ({"error": {"message": "Rate limit reached", "type": "rate_limit"}},
     "API error, not an answer: Rate limit reached"),
    ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
     "API error, not an answer: Overloaded"),
])
def test_json_refusals(data, fragment):
    with pytest.raises(ApplyError) as e:
        read_response(json.dumps(data).encode(), "r.json")
    assert fragment in str(e.value)


def test_responses_output_text_convenience_field():
    r = read_response(json.dumps({"model": "m", "output": [], "output_text": "hi"}).encode())
    assert r.text == "hi" and r.model == "m"


def test_responses_ignores_other_roles():
    data = {"output": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "a"}]},
    ]}
    assert read_response(json.dumps(data).encode()).text == "a"


@pytest.mark.parametrize("model", ["", 5, None])
def test_model_must_be_a_nonempty_string(model):
    data = dict(MESSAGE_STR, model=model)
    assert read_response(json.dumps(data).encode()).model is None


def test_imports_are_lazy():
    import subprocess
    import sys
    code = ("import sys, git_aiapply.answer.response; "
            "print('json' in sys.modules, 'xxhash' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
