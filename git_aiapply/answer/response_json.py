"""A response's JSON, parsed, and the saved sessions and streams it may be, as the chat-API
JSON ``response.read_response`` reads (BEHAVIOR.md §1; docs/DECISIONS.md "Reading responses"):

- JSON Lines (a conversation one message or item per line) and saved server-sent events
  (``data: {...}`` lines): the list of their objects, when EVERY non-blank line is one;
- the entries of saved sessions, unwrapped: Claude Code transcripts and stream-json
  (``{"type": "assistant", "message": MESSAGE}``), Codex rollouts (``response_item``
  ``payload``; its metadata and ``event_msg`` echoes left out), OpenAI Batch output lines
  (``{"custom_id", "response": {"status_code", "body": RESPONSE}}``);
- a saved Chat Completions stream (``chat.completion.chunk`` objects): the one response
  its deltas add up to.
"""
from __future__ import annotations


def load_json(body: str):
    """The parsed object, or None when the text is not JSON (then it is plain text).

    A JSON list is a response only when it reads as a conversation (its items are
    objects with a ``role`` or a ``type``); ``[1, 2, 3]`` stays text."""
    import json  # imported here: most responses are not JSON

    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = json_lines(body)  # JSON Lines, or a saved event stream
    if isinstance(data, dict):
        return unwrap_entry(data)
    if isinstance(data, list) and is_conversation(entries(data)):
        return data
    return None


def is_conversation(items) -> bool:
    """A list of messages or items (objects, some with a role, a type or choices)."""
    return (isinstance(items, list) and bool(items)
            and all(isinstance(i, dict) for i in items)
            and any("role" in i or "type" in i or "choices" in i for i in items))


# SSE lines other than ``data:`` that a saved stream holds (``:`` starts a comment).
_SSE_FIELDS = ("event:", "id:", "retry:", ":")


def json_lines(body: str) -> list | None:
    """The objects of JSON Lines (or of a saved server-sent event stream's ``data:``
    lines), or None unless EVERY non-blank line is one: a single line of prose, or a JSON
    line that is not an object, makes the whole input text (BEHAVIOR.md §1)."""
    import json

    objects, skipped, sse = [], False, False
    for line in body.split("\n"):
        line = line.strip()
        if line.startswith("data:"):
            line, sse = line[5:].strip(), True
            if line == "[DONE]":
                continue
        elif line.startswith(_SSE_FIELDS):
            skipped = True
            continue
        if not line:
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, dict):
            return None
        objects.append(value)
    if skipped and not sse:
        return None
    return objects or None


# Records of a Codex rollout that are not the conversation: its metadata, and event_msg
# (the UI's echo of the response_items, which would count each message twice).
_ROLLOUT_RECORDS = ("session_meta", "event_msg", "turn_context", "compacted")
# Claude Code transcript / stream-json entries: {"type": ROLE, "message": MESSAGE}.
_TRANSCRIPT_TYPES = ("user", "assistant", "system")


def is_transcript_entry(item) -> bool:
    """A Claude Code transcript (or stream-json) entry: {"type": ROLE, "message": {...}}."""
    return (isinstance(item, dict) and item.get("type") in _TRANSCRIPT_TYPES
            and isinstance(item.get("message"), dict) and "role" not in item)


def unwrap_entry(item):
    """The message or response an entry of a saved session wraps (Claude Code's
    ``message``, a Codex rollout's ``response_item`` ``payload``, an OpenAI Batch output
    line's ``response.body``); None for a rollout record that is not the conversation;
    anything else as it is."""
    if not isinstance(item, dict) or "role" in item:
        return item
    kind, payload = item.get("type"), item.get("payload")
    if kind in _TRANSCRIPT_TYPES and isinstance(item.get("message"), dict):
        return item["message"]
    if kind in _ROLLOUT_RECORDS + ("response_item",) and isinstance(payload, dict):
        return payload if kind == "response_item" else None
    response = item.get("response")
    if isinstance(response, dict) and isinstance(response.get("body"), dict):
        return response["body"]  # a Batch output line: {"custom_id", "response": {...}}
    if isinstance(item.get("body"), dict) and "status_code" in item:
        return item["body"]
    return item


def entries(items: list) -> list:
    """A conversation's entries, unwrapped (``unwrap_entry``), rollout records left out."""
    return [e for e in map(unwrap_entry, items) if e is not None]


# Roles that make a JSON Lines file one conversation (with an assistant's turns among
# them), not one response per line.
_OTHER_ROLES = ("user", "system", "developer", "tool")


def jsonl_conversation(raw: bytes) -> bool:
    """Whether a JSON Lines file is ONE conversation saved a message per line (a turn of
    the user's, a transcript or rollout entry, a stream chunk) rather than one response
    per line (docs/DECISIONS.md "Reading responses")."""
    lines = json_lines(raw.decode("utf-8", "surrogateescape").removeprefix("\ufeff"))
    if not lines or len(lines) < 2:
        return False
    for line in lines:
        entry = unwrap_entry(line)
        if entry is None or entry is not line and "message" in line or is_chunk(line):
            return True
        if isinstance(entry, dict) and entry.get("role") in _OTHER_ROLES:
            return True
    return False


def is_chunk(item) -> bool:
    """A Chat Completions stream chunk (``chat.completion.chunk``, choices with ``delta``)."""
    if not isinstance(item, dict):
        return False
    choices = item.get("choices")
    return item.get("object") == "chat.completion.chunk" or (
        isinstance(choices, list) and bool(choices) and isinstance(choices[0], dict)
        and isinstance(choices[0].get("delta"), dict))


def is_stream(items: list) -> bool:
    """A saved Chat Completions stream: a list of nothing but stream chunks."""
    return bool(items) and all(is_chunk(i) for i in items)


def joined_stream(chunks: list) -> dict:
    """A saved Chat Completions stream as the one response it adds up to: each choice's
    content deltas joined, tool calls joined by index (arguments concatenated), its last
    finish_reason (none given stays null: the stream was cut off)."""
    model, joined = None, {}
    for chunk in chunks:
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            model = chunk["model"]
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict):
                _join_delta(joined, choice)
    return {"object": "chat.completion", "model": model,
            "choices": [_joined_choice(joined[k]) for k in sorted(joined)]}


def _join_delta(joined: dict, choice: dict) -> None:
    index = choice.get("index") if isinstance(choice.get("index"), int) else 0
    into = joined.setdefault(index, {"index": index, "content": [], "refusal": [],
                                     "calls": {}, "finish_reason": None})
    delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
    for key in ("content", "refusal"):
        if isinstance(delta.get(key), str):
            into[key].append(delta[key])
    for call in delta.get("tool_calls") or []:
        if isinstance(call, dict):
            _join_call(into["calls"], call)
    if choice.get("finish_reason") is not None:
        into["finish_reason"] = choice["finish_reason"]


def _join_call(calls: dict, call: dict) -> None:
    index = call.get("index") if isinstance(call.get("index"), int) else len(calls)
    into = calls.setdefault(index, {"id": None, "type": "function", "name": "", "arguments": []})
    if isinstance(call.get("id"), str) and call["id"]:
        into["id"] = call["id"]
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    if isinstance(function.get("name"), str) and not into["name"]:
        into["name"] = function["name"]  # sent once, with the call's first chunk
    if isinstance(function.get("arguments"), str):
        into["arguments"].append(function["arguments"])


def _joined_choice(into: dict) -> dict:
    message = {"role": "assistant",
               "content": "".join(into["content"]) if into["content"] else None}
    if into["refusal"]:
        message["refusal"] = "".join(into["refusal"])
    if into["calls"]:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": "".join(c["arguments"])}}
            for _i, c in sorted(into["calls"].items())]
    return {"index": into["index"], "message": message, "finish_reason": into["finish_reason"]}
