"""Reading a model's response: plain text, or the JSON a chat API returned.

``read_response`` turns the bytes of one response (a file or standard input) into the
text the format parsers read, the id that goes into the ``AI-Response`` trailer and,
for JSON input, the model's name.

JSON shapes understood (BEHAVIOR.md §1):

- OpenAI Chat Completions: ``choices[0].message.content`` (a string, or a list of parts
  of type ``text`` / ``output_text``); the legacy ``choices[0].text``;
- OpenAI Responses: ``output`` items of type ``message`` whose ``content`` parts of type
  ``output_text`` / ``text`` hold the text (reasoning and tool-call items ignored);
- Anthropic Messages: ``content`` blocks of type ``text`` (``thinking``,
  ``redacted_thinking``, ``tool_use`` ignored);
- one message on its own: ``{"role": "assistant", "content": ...}``.

Several text blocks are joined by newlines.  Input that only looks like JSON (starts with
``{`` but does not parse) is plain text; JSON that parses but has no known shape, or no
assistant text, is refused: applying it as text could only fail less clearly.
"""
from __future__ import annotations

import os
from .record import record

from .errors import ApplyError, Problem

# Above this many bytes a response is refused (aiapply.maxResponseBytes / --max-bytes):
# no model answer is that long, and everything after reading is linear but not free.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

BOM = "\ufeff"
_LIMIT_HINT = "set aiapply.maxResponseBytes or --max-bytes"


@record
class Response:
    """A response's text, its id and the model that wrote it."""

    text: str  # what the format parsers read: LF line endings, no leading BOM
    given_text: str  # what ``response_id`` is computed from (the text as given)
    response_id: str  # xxh64, seed 0, 16 lowercase hex digits
    model: str | None  # the model's name, when the JSON says it
    name: str  # file stem, 'stdin' for '-'
    is_json: bool


def response_id(data: bytes) -> str:
    """The ``AI-Response`` id of a response's bytes: xxh64, seed 0, 16 hex digits."""
    import xxhash  # imported here: start-up time matters for a git plugin

    return xxhash.xxh64(data, seed=0).hexdigest()


def response_name(path: str) -> str:
    """The name a response goes by in summaries and ``{name}``: its file stem."""
    if path == "-":
        return "stdin"
    base = os.path.basename(path.rstrip("/\\")) or path
    stem, _ext = os.path.splitext(base)
    return stem or base


def normalize_newlines(text: str) -> str:
    """CRLF (and any run of CRs before a LF) becomes LF; lone CRs elsewhere stay.

    Done by splitting on LF rather than with a regex so it stays linear whatever the
    input (a regex like ``\\r+\\n`` rescans long runs of CRs).
    """
    if "\r" not in text:
        return text
    parts = text.split("\n")
    last = len(parts) - 1
    return "\n".join(p.rstrip("\r") if i < last else p for i, p in enumerate(parts))


def read_response(raw: bytes, name: str = "-", max_bytes: int | None = DEFAULT_MAX_BYTES) -> Response:
    """Read one response.  ``max_bytes`` of ``None`` or ``0`` means no limit.

    Raises ``ApplyError`` when the response is too large or is API JSON without any
    assistant text.
    """
    if max_bytes and len(raw) > max_bytes:
        raise ApplyError(Problem(
            # the reader stops one byte past the limit, so only "more than" is known
            f"the response is more than {max_bytes} bytes, the limit ({_LIMIT_HINT})"))
    decoded = raw.decode("utf-8", "surrogateescape")
    body = decoded[1:] if decoded.startswith(BOM) else decoded
    stem = response_name(name)

    if body.lstrip().startswith("{"):
        data = _load_json(body)
        if data is not None:
            text, model = extract_assistant_text(data)
            return Response(
                text=normalize_newlines(text.removeprefix(BOM)),
                given_text=text,
                response_id=response_id(_encode(text)),
                model=model,
                name=stem,
                is_json=True,
            )
    return Response(
        text=normalize_newlines(body),
        given_text=decoded,
        response_id=response_id(raw),
        model=None,
        name=stem,
        is_json=False,
    )


def _encode(text: str) -> bytes:
    # Text from JSON may hold lone surrogates (``"\\ud800"``) or bytes smuggled in by
    # surrogateescape; either way the id must be computable, and stable.
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _load_json(body: str):
    """The parsed object, or None when the text is not JSON (then it is plain text)."""
    import json  # imported here: most responses are not JSON

    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


# Content part types that carry the assistant's visible text.
_TEXT_PARTS = ("text", "output_text")


def extract_assistant_text(data: dict) -> tuple[str, str | None]:
    """(assistant text, model name) of a chat API's JSON; ``ApplyError`` when it has none."""
    model = data.get("model") if isinstance(data.get("model"), str) and data.get("model") else None

    _refuse_api_error(data)

    if "choices" in data:
        texts, refusal = _chat_completion_texts(data["choices"])
        shape = "OpenAI Chat Completions"
    elif "output" in data and isinstance(data.get("output"), list):
        texts, refusal = _responses_texts(data)
        shape = "OpenAI Responses"
    elif "content" in data and ("role" in data or data.get("type") == "message"):
        role = data.get("role", "assistant")
        if role != "assistant":
            raise ApplyError(Problem(
                f"the JSON is a message from {role!r}, not from the assistant",
                hint="give the assistant's reply (or the API response that holds it)"))
        texts, refusal = _content_texts(data["content"])
        shape = "Anthropic Messages" if data.get("type") == "message" else "chat message"
    else:
        keys = ", ".join(sorted(str(k) for k in data)[:8]) or "none"
        raise ApplyError(Problem(
            f"the response is JSON of no known shape (top-level keys: {keys})",
            hint="give the model's text, or the JSON of OpenAI Chat Completions, "
                 "OpenAI Responses or Anthropic Messages"))

    text = "\n".join(texts)
    if not text.strip():
        reason = f"the {shape} JSON holds no assistant text"
        if refusal:
            reason += f"; the model refused: {refusal.strip()[:200]}"
        raise ApplyError(Problem(reason))
    return text, model


def _refuse_api_error(data: dict) -> None:
    """An API error body (OpenAI ``{"error": ...}``, Anthropic ``{"type": "error"}``)."""
    err = data.get("error")
    if err and (data.get("type") == "error" or not any(k in data for k in ("choices", "output", "content"))):
        message = err.get("message") if isinstance(err, dict) else err
        raise ApplyError(Problem(f"the response is an API error, not an answer: {str(message)[:200]}"))


def _chat_completion_texts(choices) -> tuple[list[str], str | None]:
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ApplyError(Problem("the OpenAI Chat Completions JSON has no choices"))
    first = choices[0]
    message = first.get("message")
    if isinstance(message, dict):
        texts, refusal = _content_texts(message.get("content"))
        if isinstance(message.get("refusal"), str) and message["refusal"]:
            refusal = message["refusal"]
        return texts, refusal
    if isinstance(first.get("text"), str):  # the legacy completions shape
        return [first["text"]], None
    return [], None


def _responses_texts(data: dict) -> tuple[list[str], str | None]:
    texts: list[str] = []
    refusal = None
    for item in data["output"]:
        if not isinstance(item, dict) or item.get("type", "message") != "message":
            continue  # reasoning, function_call, web_search_call, ...
        if item.get("role", "assistant") != "assistant":
            continue
        got, why = _content_texts(item.get("content"))
        texts.extend(got)
        refusal = refusal or why
    if not texts and isinstance(data.get("output_text"), str):
        texts.append(data["output_text"])  # the SDK's convenience field, if someone saved it
    return texts, refusal


def _content_texts(content) -> tuple[list[str], str | None]:
    """Texts of a message's ``content``: a string, or a list of typed parts."""
    if isinstance(content, str):
        return [content], None
    texts: list[str] = []
    refusal = None
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                kind = part.get("type")
                if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif kind == "refusal" and isinstance(part.get("refusal"), str):
                    refusal = part["refusal"]
                # thinking, redacted_thinking, tool_use, images ...: not the answer
    return texts, refusal
