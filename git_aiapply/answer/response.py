"""Reading a model's response: plain text, or the JSON a chat API returned.

``read_response`` turns the bytes of one response (a file or standard input) into the
text the format parsers read, the tool calls that carry edits, the id that goes into the
``AI-Response`` trailer and, for JSON input, the model's name.

JSON shapes understood (BEHAVIOR.md §1; docs/DECISIONS.md "Reading responses" names the
API versions followed):

- OpenAI Chat Completions: ``choices[0].message.content`` (a string, or a list of parts
  of type ``text`` / ``output_text``) and ``message.tool_calls`` (``function`` or
  ``custom``); the legacy ``choices[0].text``.  Several choices (``n > 1``) are refused
  here: ``split_choices`` gives one response per choice, for ``--branch``;
- OpenAI Responses: ``output`` items in order: ``message`` items' ``output_text`` parts,
  and the tool-call items ``apply_patch_call``, ``custom_tool_call``, ``function_call``,
  ``local_shell_call``, ``shell_call`` (reasoning and other items ignored);
- Anthropic Messages: ``content`` blocks ``text`` and ``tool_use`` in order
  (``thinking``, ``redacted_thinking`` ignored);
- one message on its own: ``{"role": "assistant", "content": ...}``;
- a conversation: a JSON list of messages or Responses items, or an object holding one
  (``messages``, ``input``, or a list object's ``data``): every assistant turn counts, in
  order; tool calls that the conversation itself reports as failed are left out;
- saved sessions and streams (JSON Lines, Claude Code transcripts, Codex rollouts, Batch
  output, Chat Completions chunks): ``response_json`` unwraps or joins them.

Several text blocks are joined by newlines.  Input that only looks like JSON (starts with
``{`` but does not parse) is plain text; JSON that parses but has no known shape, or
neither assistant text nor tool calls, is refused: applying it as text could only fail
less clearly.  So is an answer the API marks as cut off (``finish_reason: "length"``,
``stop_reason: "max_tokens"``, ``status: "incomplete"`` ...), or as still streaming
(``stop_reason`` / ``finish_reason`` present and null; absent says nothing), even when
every block or call in it looks complete: what never came is unknown.
"""
from __future__ import annotations

import os
from ..record import field, record

from ..errors import ApplyError, ErrorKind, Problem
from ..text import normalize_newlines
from .tool_results import (APPLIED, CALL_ITEMS, NO_RESULTS, REJECTED, Outcomes,
    call_outcomes, drop_announcement)
from .response_json import (entries, is_conversation, is_stream, joined_stream, load_json,
    unwrap_entry, is_transcript_entry)

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
    # (offset in ``text`` where the call stood, toolcalls.ToolCall), in answer order
    tool_calls: list = field(default_factory=list)
    # the commit an `AI-Base:` line in a chat JSON's turns names (the user turn holds the
    # prompt `git ai-apply prompt --base` printed); for text, the answer's own line counts
    json_base: str | None = None
    # a `git format-patch` mail (answer/mail.py): its author, date and message are the commit's
    mail: object | None = None


def blank_response(name: str, model: str | None = None, stem: str | None = None) -> Response:
    """The Response of a response that could not be read (or was not yet): its name as
    every front door gives it (``response_name``), nothing else."""
    return Response(text="", given_text="", response_id="", model=model,
                    name=stem if stem is not None else response_name(name), is_json=False)


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


# Tokens a model's runtime may leave at the end of its answer (BEHAVIOR.md §2).  They are
# never part of it, whether on a line of their own or glued to the last line; '</s>' is
# also HTML's strikethrough end tag, so glued to a line it is taken only when no '<s>'
# opens on that line.
END_TOKENS = ("<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|end|>")
_OWN_LINE_END_TOKENS = ("</s>",)


def strip_end_tokens(text: str) -> str:
    """``text`` without the model end tokens at its end.  What stood before them is the
    whole answer: its last line gets the newline it ends with, so it never reads as cut
    mid-line.  Only the text parsed changes; the AI-Response id is of the response as
    given."""
    body, stripped = text, False
    while (token := _end_token(body.rstrip())) is not None:
        body = body.rstrip()[:-len(token)]
        # the token's own line goes; the lines before keep their bytes (a diff's blank
        # context line is a single space)
        head, newline, last = body.rpartition("\n")
        if newline and not last.strip():
            body = head
        elif not last.strip():
            body = ""
        stripped = True
    if not stripped:
        return text
    return body + "\n" if body else ""


def _end_token(body: str) -> str | None:
    """The end token ``body`` ends with, if any."""
    for token in END_TOKENS:
        if body.endswith(token):
            return token
    for token in _OWN_LINE_END_TOKENS:
        last_line = body[:-len(token)].rpartition("\n")[2]
        if body.endswith(token) and "<s>" not in last_line.lower():
            return token
    return None


def read_response(raw: bytes, name: str = "-", max_bytes: int | None = DEFAULT_MAX_BYTES) -> Response:
    """Read one response.  ``max_bytes`` of ``None`` or ``0`` means no limit.

    Raises ``ApplyError`` when the response is too large, is API JSON without any
    assistant text or tool call, holds several choices, or is marked as cut off.
    """
    if max_bytes and len(raw) > max_bytes:
        raise ApplyError(Problem(
            # the reader stops one byte past the limit, so only "more than" is known
            f"the response is more than {max_bytes} bytes, the limit ({_LIMIT_HINT})"))
    decoded = raw.decode("utf-8", "surrogateescape")
    body = decoded[1:] if decoded.startswith(BOM) else decoded
    stem = response_name(name)

    if body.lstrip().startswith(("{", "[", "data:", "event:")):
        data = load_json(body)
        if data is not None:
            answer = extract_answer(data)
            refuse_unusable(answer)
            from ..threeway.drift import base_named_in

            resp = answer_response(answer, stem)
            resp.json_base = base_named_in(body, anywhere=True)
            return resp
    text = normalize_newlines(body)
    mailed = None
    if text.startswith("From "):  # a `git format-patch` mail, perhaps
        from .mail import read_mail

        mailed = read_mail(text)
    return Response(
        text=mailed[1] if mailed else strip_end_tokens(text),
        given_text=decoded,
        response_id=response_id(raw),
        model=None,
        name=stem,
        is_json=False,
        mail=mailed[0] if mailed else None,
    )


def answer_response(answer: "Answer", stem: str) -> Response:
    """The Response of a chat-API answer: its texts joined by newlines, its edit tool
    calls placed at their offsets in that text."""
    from .toolcalls import is_edit_call

    texts: list[str] = []  # as given, for the id
    parts: list[str] = []  # as parsed
    calls = []
    for piece in answer.pieces:
        if isinstance(piece, str):
            texts.append(piece)
            parts.append(normalize_newlines(piece.removeprefix(BOM) if not parts else piece))
        else:
            calls.append((len("\n".join(parts)), piece))
    given = "\n".join(texts)
    text = strip_end_tokens("\n".join(parts))
    # The id is that of the assistant text; tool calls that change files are part of
    # the answer too, so they count (an answer made only of calls still has its own id).
    hashed = given
    edit_calls = [c for _o, c in calls if is_edit_call(c)]
    if edit_calls:
        hashed = "\n".join([given, *(c.canonical() for c in edit_calls)])
    return Response(
        text=text,
        given_text=hashed,
        response_id=response_id(_encode(hashed)),
        model=answer.model,
        name=stem,
        is_json=True,
        tool_calls=calls,
    )


def _encode(text: str) -> bytes:
    # Text from JSON may hold lone surrogates (``"\\ud800"``) or bytes smuggled in by
    # surrogateescape; either way the id must be computable, and stable.
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- the answer


@record
class Answer:
    """What a chat API's JSON says the assistant answered."""

    shape: str  # 'OpenAI Chat Completions', 'OpenAI Responses', 'Anthropic Messages', ...
    model: str | None = None
    pieces: list = field(default_factory=list)  # str (text) or ToolCall, in answer order
    refusal: str | None = None  # the model's refusal text, if it refused
    cut_off: list = field(default_factory=list)  # why the answer looks cut off
    choices: int = 1  # Chat Completions choices (n)
    # the last assistant turn's stop field was present and null (a mid-stream snapshot):
    # only the last turn can be one, an earlier turn of a conversation ended long ago
    open_turn: str | None = None
    # where the text leading up to the next tool call starts: after the last call, or the
    # start of the last turn (a call the user rejected takes that text along)
    segment: int = 0

    @property
    def texts(self) -> list[str]:
        return [p for p in self.pieces if isinstance(p, str)]

    @property
    def calls(self) -> list:
        return [p for p in self.pieces if not isinstance(p, str)]


# Content part types that carry the assistant's visible text.
_TEXT_PARTS = ("text", "output_text")
# Responses output items that are tool calls (tool_results reads the same).
_CALL_ITEMS = CALL_ITEMS
# Stop signals that say the answer did not end on its own (issue 10).
_CUT_FINISH = {"length": "finish_reason \"length\" (the token limit)",
               "content_filter": "finish_reason \"content_filter\" (the filter cut it)"}
_CUT_STOP = {"max_tokens": "stop_reason \"max_tokens\" (the token limit)",
             "model_context_window_exceeded": "stop_reason \"model_context_window_exceeded\"",
             "refusal": "stop_reason \"refusal\" (the answer was stopped part way)"}
# A stop field present and null: the JSON is a snapshot taken while the answer was still
# streaming (absent says nothing: saved and hand-made messages leave it out).
_MID_STREAM = "{} null (a snapshot taken mid-stream, before the answer ended)"
_CUT_STATUS = {"incomplete": "status \"incomplete\"", "in_progress": "status \"in_progress\"",
               "queued": "status \"queued\"", "failed": "status \"failed\"",
               "cancelled": "status \"cancelled\""}


def extract_answer(data) -> Answer:
    """The assistant's answer in a chat API's JSON (an object or a conversation list);
    ``ApplyError`` for an API error or JSON of no known shape."""
    if isinstance(data, list):
        if not is_stream(data):
            answer = Answer("conversation")
            _conversation(data, answer)
            return answer
        data = joined_stream(data)
    data = unwrap_entry(data)
    model = data.get("model") if isinstance(data.get("model"), str) and data.get("model") else None
    _refuse_api_error(data)
    if "choices" in data:
        answer = Answer("OpenAI Chat Completions", model)
        _chat_completion(data["choices"], answer)
    elif isinstance(data.get("candidates"), list):
        answer = Answer("Gemini generateContent", model or _str(data.get("modelVersion")))
        _gemini(data["candidates"], answer)
    elif "output" in data and isinstance(data.get("output"), list):
        answer = Answer("OpenAI Responses", model)
        _responses(data, answer)
    elif "content" in data and ("role" in data or data.get("type") == "message"):
        answer = _single_message(data, model)
    else:
        answer = Answer("conversation", model)
        _conversation(_conversation_items(data), answer)
    return answer


def _single_message(data: dict, model: str | None) -> Answer:
    """One message (Anthropic Messages, or a chat message): the assistant's only."""
    role = data.get("role", "assistant")
    if role != "assistant":
        raise ApplyError(Problem(
            f"the JSON is a message from {role!r}, not from the assistant",
            hint="give the assistant's reply (or the API response that holds it)"))
    answer = Answer("Anthropic Messages" if data.get("type") == "message" else "chat message",
                    model)
    _message(data, answer)
    if data.get("stop_reason") == "pause_turn":  # the turn goes on in another request
        answer.cut_off.append("stop_reason \"pause_turn\" (the turn was paused)")
    return answer


def _conversation_items(data: dict) -> list:
    """The messages of an object that holds a conversation; ApplyError for JSON of no
    known shape."""
    for key in ("messages", "input", "data", "contents"):
        if is_conversation(data.get(key)):
            return data[key]
    keys = ", ".join(sorted(str(k) for k in data)[:8]) or "none"
    raise ApplyError(Problem(
        f"the response is JSON of no known shape (top-level keys: {keys})",
        hint="give the model's text, or the JSON of OpenAI Chat Completions, "
             "OpenAI Responses or Anthropic Messages (or a list of their messages)"))


def refuse_unusable(answer: Answer) -> None:
    """Refuse an answer that is cut off, has several choices, or holds nothing."""
    if answer.choices > 1:
        raise ApplyError(Problem(
            f"the {answer.shape} JSON holds {answer.choices} choices (n={answer.choices}); "
            "ai-apply applies one answer at a time",
            hint="pass --branch 'NAME-{n}' to try each choice on its own branch (in the "
                 "library: one call per choice, see docs/API.md), or keep only the choice "
                 "to apply"))
    if answer.open_turn:
        answer.cut_off.append(answer.open_turn)
        answer.open_turn = None
    if answer.cut_off:
        signals = "; ".join(dict.fromkeys(answer.cut_off))
        raise ApplyError(Problem(
            f"the answer was cut off: the {answer.shape} JSON says {signals}, so its last "
            "changes may never have come, even if every block or call in it looks complete",
            hint="ask again for the whole answer (a higher token limit, or fewer changes per "
                 "answer)"), kind=ErrorKind.TRUNCATED)
    text = "\n".join(answer.texts)
    if not text.strip() and not answer.calls:
        reason = f"the {answer.shape} JSON holds no assistant text and no tool call"
        if answer.refusal:
            reason += f"; the model refused: {answer.refusal.strip()[:200]}"
        raise ApplyError(Problem(reason))


def split_choices(raw: bytes) -> list[bytes] | None:
    """One Chat Completions JSON per choice when ``raw`` holds several (n > 1), else
    None: with --branch, each choice is an attempt of its own."""
    head = raw.lstrip()[:1]
    if head not in (b"{", b"\xef"):
        return None
    import json

    try:
        data = json.loads(raw.decode("utf-8", "surrogateescape").removeprefix(BOM))
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        return None
    choices = [c for c in data["choices"] if isinstance(c, dict)]
    if len(choices) < 2:
        return None
    return [json.dumps(dict(data, choices=[c]), ensure_ascii=False).encode("utf-8", "surrogatepass")
            for c in choices]


def _refuse_api_error(data: dict) -> None:
    """An API error body (OpenAI ``{"error": ...}``, Anthropic ``{"type": "error"}``)."""
    err = data.get("error")
    if err and (data.get("type") == "error" or not any(k in data for k in ("choices", "output", "content"))):
        message = err.get("message") if isinstance(err, dict) else err
        raise ApplyError(Problem(f"the response is an API error, not an answer: {str(message)[:200]}"))


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None


# Gemini's finishReason values that say the answer did not end on its own
_GEMINI_CUT = {"MAX_TOKENS": "finishReason \"MAX_TOKENS\" (the token limit)",
               "SAFETY": "finishReason \"SAFETY\" (the filter cut it)",
               "RECITATION": "finishReason \"RECITATION\" (the filter cut it)",
               "MALFORMED_FUNCTION_CALL": "finishReason \"MALFORMED_FUNCTION_CALL\"",
               "PROHIBITED_CONTENT": "finishReason \"PROHIBITED_CONTENT\"",
               "BLOCKLIST": "finishReason \"BLOCKLIST\"", "SPII": "finishReason \"SPII\""}


def _gemini(candidates: list, answer: Answer) -> None:
    """Gemini's ``generateContent`` answer: ``candidates[0].content.parts``, each a
    ``text`` (thought parts left out) or a ``functionCall {name, args}``."""
    answer.choices = sum(1 for c in candidates if isinstance(c, dict))
    first = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
    reason = first.get("finishReason")
    if isinstance(reason, str) and reason in _GEMINI_CUT:
        answer.cut_off.append(_GEMINI_CUT[reason])
    content = first.get("content")
    _gemini_parts(content.get("parts") if isinstance(content, dict) else None, answer)


def _gemini_parts(parts, answer: Answer) -> None:
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict) or part.get("thought") is True:
            continue
        if isinstance(part.get("text"), str):
            answer.pieces.append(part["text"])
        elif isinstance(part.get("functionCall"), dict):
            f = part["functionCall"]
            _add_call(answer, "functionCall", f.get("name"), f.get("args"), f.get("id"))


def _add_call(answer: Answer, shape: str, name, args, call_id=None) -> None:
    from .toolcalls import ToolCall

    answer.pieces.append(ToolCall(len(answer.calls) + 1, shape,
                                  name if isinstance(name, str) else "", args,
                                  call_id if isinstance(call_id, str) else None))
    answer.segment = len(answer.pieces)


def _chat_completion(choices, answer: Answer) -> None:
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ApplyError(Problem("the OpenAI Chat Completions JSON has no choices"))
    answer.choices = sum(1 for c in choices if isinstance(c, dict))
    first = choices[0]
    reason = first.get("finish_reason")
    if isinstance(reason, str) and reason in _CUT_FINISH:
        answer.cut_off.append(_CUT_FINISH[reason])
    elif reason is None and "finish_reason" in first:
        answer.cut_off.append(_MID_STREAM.format("finish_reason"))
    message = first.get("message")
    if isinstance(message, dict):
        _chat_message(message, answer)
    elif isinstance(first.get("text"), str):  # the legacy completions shape
        answer.pieces.append(first["text"])


def _chat_message(message: dict, answer: Answer, outcomes: Outcomes = NO_RESULTS) -> None:
    """A Chat Completions assistant message: content, then its tool calls (less those
    the conversation says failed)."""
    _content(message.get("content"), answer)
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        answer.refusal = message["refusal"]
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            if not isinstance(call, dict):
                continue
            segment = answer.segment
            if isinstance(call.get("custom"), dict):
                c = call["custom"]
                _add_call(answer, "custom", c.get("name"), c.get("input"), call.get("id"))
            elif isinstance(call.get("function"), dict):
                f = call["function"]
                _add_call(answer, "function", f.get("name"), f.get("arguments"), call.get("id"))
            else:
                _add_call(answer, str(call.get("type") or "tool_call"), call.get("name"),
                          call.get("arguments", call.get("input")), call.get("id"))
            _take_back(answer, outcomes.of(call.get("id")), segment)
    legacy = message.get("function_call")  # the deprecated single function call
    if isinstance(legacy, dict):
        _add_call(answer, "function", legacy.get("name"), legacy.get("arguments"))


def _responses(data: dict, answer: Answer) -> None:
    status = data.get("status")
    if isinstance(status, str) and status in _CUT_STATUS:
        why = _CUT_STATUS[status]
        details = data.get("incomplete_details")
        if isinstance(details, dict) and isinstance(details.get("reason"), str):
            why += f" ({details['reason']})"
        answer.cut_off.append(why)
    before = len(answer.pieces)
    _items(data["output"], answer)
    if len(answer.pieces) == before and isinstance(data.get("output_text"), str):
        answer.pieces.append(data["output_text"])  # the SDK's convenience field, if saved


def _items(items, answer: Answer, outcomes: Outcomes = NO_RESULTS) -> None:
    """Responses output (or conversation) items, in order."""
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind in _CALL_ITEMS:
            if item.get("status") == "incomplete":
                answer.cut_off.append(f"a {kind} item with status \"incomplete\"")
            segment = answer.segment
            if kind == "apply_patch_call":
                _add_call(answer, kind, "apply_patch", item.get("operation"), item.get("call_id"))
            elif kind == "custom_tool_call":
                _add_call(answer, kind, item.get("name"), item.get("input"), item.get("call_id"))
            elif kind == "local_shell_call":
                _add_call(answer, kind, "local_shell", {"action": item.get("action")},
                          item.get("call_id"))
            elif kind == "shell_call":  # GPT-5.1's shell tool: action.commands
                action = item.get("action")
                _add_call(answer, kind, "shell",
                          {"commands": action.get("commands") if isinstance(action, dict)
                           else None}, item.get("call_id"))
            else:
                _add_call(answer, kind, item.get("name"), item.get("arguments"), item.get("call_id"))
            _take_back(answer, outcomes.of(item.get("call_id")), segment)
        elif kind == "message" and item.get("role", "assistant") == "assistant":
            if item.get("status") == "incomplete":
                answer.cut_off.append("a message item with status \"incomplete\"")
            got = Answer(answer.shape)
            _content(item.get("content"), got)
            answer.pieces.extend(got.pieces)
            answer.refusal = answer.refusal or got.refusal
        # reasoning, web_search_call, *_output items, other roles: not the answer


def _message(message: dict, answer: Answer, outcomes: Outcomes = NO_RESULTS) -> None:
    """An assistant message (Anthropic or chat): content blocks in order."""
    stop = message.get("stop_reason")
    if isinstance(stop, str) and stop in _CUT_STOP:
        answer.cut_off.append(_CUT_STOP[stop])
    answer.open_turn = _MID_STREAM.format("stop_reason") \
        if stop is None and "stop_reason" in message else None
    if message.get("status") == "incomplete":  # a Responses message item
        answer.cut_off.append("a message item with status \"incomplete\"")
    _content(message.get("content"), answer, outcomes)
    if "tool_calls" in message or "function_call" in message:
        _chat_message(dict(message, content=None), answer, outcomes)


def _content(content, answer: Answer, outcomes: Outcomes = NO_RESULTS) -> None:
    """A message's ``content``: a string, or a list of typed parts and blocks."""
    if isinstance(content, str):
        answer.pieces.append(content)
        return
    if not isinstance(content, list):
        return
    for part in content:
        if isinstance(part, str):
            answer.pieces.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
                answer.pieces.append(part["text"])
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                answer.refusal = part["refusal"]
            elif kind == "tool_use":
                segment = answer.segment
                _add_call(answer, "tool_use", part.get("name"), part.get("input"), part.get("id"))
                _take_back(answer, outcomes.of(part.get("id")), segment)
            # thinking, redacted_thinking, images, server tool results ...: not the answer


def _take_back(answer: Answer, said: str, segment: int) -> None:
    """The call just added, when its result says it failed or was rejected: it is not
    applied, and a rejected one takes its announcing text along
    (``tool_results.drop_announcement``); ``segment`` is where that text started."""
    if said == APPLIED:
        return
    call = answer.pieces.pop()
    answer.segment = segment
    if said == REJECTED:
        drop_announcement(answer, call)


def _saved_response(item: dict, answer: Answer, outcomes: Outcomes) -> None:
    """A whole saved API response among a conversation's turns: its answer, less the
    calls the conversation says failed."""
    _refuse_api_error(item)
    inner = extract_answer(item)
    if inner.choices > 1:
        answer.choices = max(answer.choices, inner.choices)
    answer.cut_off.extend(inner.cut_off)
    for p in inner.pieces:
        if isinstance(p, str):
            answer.pieces.append(p)
        elif (said := outcomes.of(p.call_id)) == APPLIED:
            _add_call(answer, p.shape, p.name, p.args, p.call_id)
        elif said == REJECTED:
            drop_announcement(answer, p)
    answer.refusal = answer.refusal or inner.refusal


def _assistant_message(item: dict, answer: Answer, outcomes: Outcomes) -> None:
    """An assistant message of a conversation (chat or Anthropic), less its failed calls."""
    _message(item, answer, outcomes)


def _conversation(items: list, answer: Answer) -> None:
    """Every assistant turn of a conversation, in order: messages (chat, Anthropic),
    Responses items, or whole saved API responses."""
    saved = any(is_transcript_entry(i) for i in items)
    items = entries(items)
    outcomes = call_outcomes(items)  # what each call's result says, matched in its turn
    last_cut = 0  # where the last assistant entry's cut-off signals start
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        outcomes.entry(index)
        if isinstance(item.get("model"), str) and item["model"]:
            answer.model = item["model"]
        role = item.get("role")
        kind = item.get("type")
        if "choices" in item or isinstance(item.get("output"), list):
            _saved_response(item, answer, outcomes)
        elif role == "assistant" and kind in (None, "message"):
            last_cut = len(answer.cut_off)
            _assistant_message(item, answer, outcomes)
        elif role is None and kind in _CALL_ITEMS:
            _items([item], answer, outcomes)
        elif role == "model" and isinstance(item.get("parts"), list):  # a Gemini turn
            _gemini_parts(item["parts"], answer)
        else:
            answer.segment = len(answer.pieces)  # another's turn: what follows is new
        # user, system, developer and tool turns, *_output items: not the assistant's
    if saved:
        # a saved agent session (a Claude Code transcript writes stop_reason null on
        # nearly every streamed entry): null says nothing, the last assistant entry's
        # stop decides (BEHAVIOR.md §1)
        answer.open_turn = None
        del answer.cut_off[:last_cut]
