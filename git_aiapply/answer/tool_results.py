"""What a tool call's result says (BEHAVIOR.md §1): applied, failed, or rejected by the user,
read from the harness's structure for every conversation shape (Chat Completions ``role:
tool`` messages, Responses ``*_output`` items, Anthropic ``tool_result`` blocks): the shape's
error flag, an exit code, or the exact text a harness writes for a failed, rejected or
denied call (``HARNESS_TEXTS``), never a word found somewhere in a successful result.  Each
result answers a call of its own turn (``call_outcomes``); and a rejected call takes out of
the answer the prose that announced it, and a change block of the same file.  response.py
reads conversations and asks this module about their results."""
from __future__ import annotations

import re
from typing import NamedTuple

from ..errors import ApplyError
from ..text import normalize_newlines

APPLIED, FAILED, REJECTED = "applied", "failed", "rejected"


def call_key(value):
    """A call id as results name it: a string (an integer as its digits); anything else
    (a JSON object, a list, null, "") is no id, and no result can name it."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


# ------------------------------------------------------------------ results to their calls

# Responses items that are tool calls (response.py reads the same), and their results.
CALL_ITEMS = ("apply_patch_call", "custom_tool_call", "function_call", "local_shell_call",
              "shell_call")
_RESULT_ITEMS = ("function_call_output", "custom_tool_call_output", "apply_patch_call_output")
_WORST = {APPLIED: 0, FAILED: 1, REJECTED: 2}


class Outcomes:
    """What a conversation's results say of its calls, told call by call in the order
    response.py reads them: ``entry(i)`` as it comes to the conversation's i-th entry, then
    ``of(call_id)`` for each call of that entry that has an id."""

    def __init__(self, said: dict):
        self._said = said  # (entry index, id, n-th call of that id in the entry) -> outcome
        self._entry = -1
        self._seen: dict = {}

    def entry(self, index: int) -> None:
        self._entry, self._seen = index, {}

    def of(self, call_id) -> str:
        key = call_key(call_id)
        if key is None or not self._said:
            return APPLIED
        n = self._seen.get(key, 0)
        self._seen[key] = n + 1
        return self._said.get((self._entry, key, n), APPLIED)


NO_RESULTS = Outcomes({})  # a single response: no results to read


def call_outcomes(items) -> Outcomes:
    """What the results of a conversation (its entries, as response.py walks them) say of
    its calls.  A result answers the call of its id in the same turn: a run of assistant
    entries (one message may be written as several) and the results that follow, until
    the assistant speaks again.
    Models number ids per turn (kimi-k2: ``functions.edit:0`` each turn), so an id used
    again in a later turn names a new call; a call the turn left unanswered is not answered
    by a later turn's result of the same id when that turn called it again.  Two calls of
    one id in one turn are answered in order."""
    said: dict = {}
    pending: dict = {}  # id -> [(entry, id, n), turn] not answered yet, oldest first
    last: dict = {}  # id -> ((entry, id, n), turn) of its latest call
    turn, speaking = 0, False
    for index, entry in enumerate(items):
        if not isinstance(entry, dict):
            continue
        calls = _call_ids(entry)
        assistant = calls is not None or entry.get("type") == "reasoning"
        if assistant and not speaking:
            turn += 1
        speaking = assistant
        seen: dict = {}
        for key in (k for k in map(call_key, calls or ()) if k is not None):
            n = seen.get(key, 0)
            seen[key] = n + 1
            queue = pending.setdefault(key, [])
            if queue and queue[0][1] != turn:
                queue.clear()  # an earlier turn's call no result answered: not this one's
            queue.append(((index, key, n), turn))
            last[key] = ((index, key, n), turn)
        for call_id, result in _tool_results(entry):
            key = call_key(call_id)
            if key is None:
                continue
            if pending.get(key):
                call = pending[key].pop(0)[0]
            elif key in last and last[key][1] == turn:
                call = last[key][0]  # a second result for the same call
            else:
                continue  # no call of this turn has that id
            outcome = tool_result_outcome(result)
            if _WORST[outcome] > _WORST[said.get(call, APPLIED)]:
                said[call] = outcome
    return Outcomes(said)


def _call_ids(entry: dict) -> list | None:
    """The ids of the calls an assistant entry makes, in the order response.py reads them
    (None for an entry that is not the assistant's)."""
    role, kind = entry.get("role"), entry.get("type")
    if "choices" in entry or isinstance(entry.get("output"), list):  # a saved API response
        choices = entry.get("choices")
        if isinstance(choices, list):
            first = choices[0] if choices and isinstance(choices[0], dict) else {}
            message = first.get("message")
            return _message_call_ids(message) if isinstance(message, dict) else []
        output = entry.get("output")
        return [i.get("call_id") for i in (output if isinstance(output, list) else ())
                if isinstance(i, dict) and i.get("type", "message") in CALL_ITEMS]
    if role == "assistant" and kind in (None, "message"):
        return _message_call_ids(entry)
    if role is None and kind in CALL_ITEMS:
        return [entry.get("call_id")]
    return None


def _message_call_ids(message: dict) -> list:
    """A chat or Anthropic message's calls: its ``tool_use`` blocks, then ``tool_calls``."""
    ids = []
    content = message.get("content")
    if isinstance(content, list):
        ids += [p.get("id") for p in content if isinstance(p, dict) and p.get("type") == "tool_use"]
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        ids += [c.get("id") for c in calls if isinstance(c, dict)]
    return ids


def _tool_results(item: dict):
    """(call id, result) for each tool result an entry holds, whatever its shape: a Chat
    Completions ``role: tool`` message, a Responses ``*_output`` item, Anthropic
    ``tool_result`` blocks in a user turn."""
    if item.get("role") == "tool":
        yield item.get("tool_call_id"), item
    elif item.get("type") in _RESULT_ITEMS:
        yield item.get("call_id"), item
    content = item.get("content")
    if item.get("role") == "user" and isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "tool_result":
                yield part.get("tool_use_id"), part


# ------------------------------------------------------------------ what one result says

def tool_result_outcome(result: dict) -> str:
    """Whether one tool result (any shape) says its call was applied, failed or was
    rejected.  The shape's own flag decides where it has one: Anthropic ``is_error``;
    Responses ``status`` (``apply_patch_call_output`` completed or failed, any output
    ``failed`` or ``incomplete``); an exit code (Codex); a ``success: false`` output
    object; Gemini's ``functionResponse.response.error``.  Otherwise the result must be,
    whole or from its start, a text a harness writes for a failed or rejected call
    (``HARNESS_TEXTS``).  A failure is a rejection when its text is a harness's
    rejection.  Anything else: applied (a successful result may echo any code)."""
    kind = result.get("type")
    if kind == "tool_result":
        text = _result_text(result.get("content"))
        flag = result["is_error"] if isinstance(result.get("is_error"), bool) else None
    elif kind == "apply_patch_call_output" and result.get("status") in ("failed", "completed"):
        text = _result_text(result.get("output"))
        flag = result.get("status") == "failed"
    elif kind in _RESULT_ITEMS:
        text, flag = _output_flag(result.get("output"))
        if result.get("status") in ("failed", "incomplete"):
            flag = True
    else:  # a Chat Completions role: tool message: no flag of its own
        text, flag = _result_text(result.get("content")), None
    if flag is None:
        text, flag = _gemini_error(text)
    said = harness_says(text)
    if flag is False or (flag is None and said is None):
        return APPLIED
    return REJECTED if said == REJECTED else FAILED


def _result_text(result) -> str:
    """A result's text: a string, or the text of its blocks or parts."""
    if isinstance(result, list):
        result = " ".join(p.get("text") for p in result
                          if isinstance(p, dict) and isinstance(p.get("text"), str))
    return result if isinstance(result, str) else ""


_EXIT_CODE = re.compile(r"\A\s*Exit code: (-?\d+)\b")


def _output_flag(output) -> tuple[str, bool | None]:
    """A Responses output's text and what its structure says (None: nothing): a Codex
    output, JSON ``{"output", "metadata": {"exit_code"}}`` or text "Exit code: N ...
    Output: ..." (non-zero: failed; the text is the command's output); an output object
    ``{"content", "success"}`` (Codex forks)."""
    if isinstance(output, dict):
        success = output.get("success")
        return (_result_text(output.get("content")),
                (not success) if isinstance(success, bool) else None)
    text = _result_text(output)
    if text.lstrip().startswith("{"):
        import json  # imported here: most results are not JSON

        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
            code = data["metadata"].get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                inner = data.get("output")
                return (inner if isinstance(inner, str) else text), code != 0
    match = _EXIT_CODE.match(text)
    if not match:
        return text, None
    _head, sep, shown = text.partition("\nOutput:\n")  # "Exit code: N\n...Output:\n..."
    return (shown if sep else text), int(match.group(1)) != 0


_GEMINI_KEYS = frozenset({"output", "error"})


def _gemini_error(text: str) -> tuple[str, bool | None]:
    """A result that is Gemini's ``functionResponse.response`` as JSON (``{"output": ...}``
    or ``{"error": ...}``, nothing else): an error member is the failure flag, and its text
    the result's.  Any other text: itself, no flag."""
    if not text.lstrip().startswith("{"):
        return text, None
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text, None
    if isinstance(data, dict) and data and set(data) <= _GEMINI_KEYS:
        error = data.get("error")
        if isinstance(error, str) and error:
            return error, True
        if isinstance(data.get("output"), str) and "error" not in data:
            return data["output"], False
    return text, None


class HarnessText(NamedTuple):
    """A text a harness writes as the whole result of a call it did not carry out.
    ``{}`` stands where the harness puts a value (a path, a message, the user's words); a
    text ending in ``{}`` is the opening of such a result."""

    harness: str
    text: str
    says: str  # FAILED, or REJECTED (the user, or the user's settings, turned it down)


# Each harness's own wording, from its source.  Matched against the whole result (less
# surrounding blank space), never searched for inside one: a successful result that echoes
# the new code may hold any words.
HARNESS_TEXTS = (
    # Claude Code (REJECT_MESSAGE, REJECT_MESSAGE_WITH_REASON_PREFIX, CANCEL_MESSAGE, the
    # subagent's and the permission modes' denials; errors wrapped in tool_use_error)
    HarnessText("Claude Code", "The user doesn't want to proceed with this tool use.{}", REJECTED),
    HarnessText("Claude Code", "The user doesn't want to take this action right now.{}", REJECTED),
    HarnessText("Claude Code", "Permission for this tool use was denied.{}", REJECTED),
    HarnessText("Claude Code", "Permission to use {} has been denied{}", REJECTED),
    HarnessText("Claude Code", "Permission for this action has been denied.{}", REJECTED),
    HarnessText("Claude Code", "[Request interrupted by user for tool use]", REJECTED),
    HarnessText("Claude Code", "<tool_use_error>{}</tool_use_error>", FAILED),
    # Codex (codex-rs: the approval denials, the guardian's, apply_patch's own errors)
    HarnessText("Codex", "patch rejected by user", REJECTED),
    HarnessText("Codex", "exec command rejected by user", REJECTED),
    HarnessText("Codex", "This action was rejected due to unacceptable risk.{}", REJECTED),
    HarnessText("Codex", "apply_patch verification failed: {}", FAILED),
    HarnessText("Codex", "apply_patch handler received invalid patch input", FAILED),
    HarnessText("Codex", "apply_patch handler received non-apply_patch input", FAILED),
    HarnessText("Codex", "failed to parse function arguments: {}", FAILED),
    # Anthropic's text editor tool (the computer-use reference implementation, and the
    # str_replace_editor of SWE-agent and OpenHands built on it)
    HarnessText("str_replace_editor", "No replacement was performed{}", FAILED),
    HarnessText("str_replace_editor", "The path {} does not exist. Please provide a valid path.",
                FAILED),
    HarnessText("str_replace_editor", "The path {} is not an absolute path, it should start "
                "with `/`.{}", FAILED),
    HarnessText("str_replace_editor", "File already exists at: {}. Cannot overwrite files "
                "using command `create`.", FAILED),
    HarnessText("str_replace_editor", "Invalid `insert_line` parameter: {}", FAILED),
    HarnessText("str_replace_editor", "Parameter `{}` is required for command: {}", FAILED),
    # OpenHands (openhands-aci: an editor error is "ERROR:" and the message on its own lines)
    HarnessText("OpenHands", "ERROR:\n{}", FAILED),
    # SWE-agent's windowed edit tools (a lint error undoes the edit)
    HarnessText("SWE-agent", "Your proposed edit has introduced new syntax error(s).{}", FAILED),
    HarnessText("SWE-agent", "Your edit was not applied (file not modified):{}", FAILED),
    HarnessText("SWE-agent", "Your search and replace strings are the same. No changes were "
                "made.{}", FAILED),
    HarnessText("SWE-agent", "No file opened.{}", FAILED),
    # Gemini CLI and Qwen Code (a cancelled or denied call's functionResponse error)
    HarnessText("Gemini CLI", "[Operation Cancelled] Reason: {}", REJECTED),
    # Cline and Roo Code (formatResponse.toolDenied, toolDeniedWithFeedback, toolError)
    HarnessText("Cline", "The user denied this operation{}", REJECTED),
    HarnessText("Cline", "The tool execution failed with the following error:\n<error>\n{}",
                FAILED),
    # opencode (the permission's RejectedError, CorrectedError, DeniedError)
    HarnessText("opencode", "The user rejected permission to use this specific tool call{}",
                REJECTED),
    HarnessText("opencode", "The user has specified a rule which prevents you from using this "
                "specific tool call{}", REJECTED),
)


def harness_says(text: str) -> str | None:
    """FAILED or REJECTED when ``text`` is, whole or from its start, a harness's text for
    a call it did not carry out (``HARNESS_TEXTS``); None otherwise."""
    text = text.strip()
    for pattern, says in _harness_patterns():
        if pattern.fullmatch(text):
            return says
    return None


_PATTERNS: list = []


def _harness_patterns() -> list:
    """``HARNESS_TEXTS`` as patterns, compiled once on first use (start-up time matters)."""
    if not _PATTERNS:
        _PATTERNS.extend(
            (re.compile(".*".join(map(re.escape, entry.text.split("{}"))), re.DOTALL), entry.says)
            for entry in HARNESS_TEXTS)
    return _PATTERNS


# ------------------------------------------------------------------ what a rejection takes


def drop_announcement(answer, call) -> None:
    """A call the user rejected: the prose that announced it (since the last call or
    turn) is not the answer, it describes a change that was not made.  A change block in
    that text stays unless it edits a file the rejected call edits (it may show the
    rejected change); when the call's files cannot be told, every block goes with it."""
    files = _files_edited_by(call)
    kept = [_blocks_for_other_files(p, files) for p in answer.pieces[answer.segment:]
            if isinstance(p, str)]
    del answer.pieces[answer.segment:]
    answer.pieces.extend(p for p in kept if p)


def _files_edited_by(call) -> frozenset | None:
    """The paths a tool call edits (without ``./``), or None when they cannot be told."""
    from .toolcalls import call_ops

    try:
        ops = call_ops(call)
    except ApplyError:
        return None
    paths = {getattr(op, name, None) for op in ops for name in ("path", "old_path", "new_path")}
    paths = {_plain_path(p) for p in paths if isinstance(p, str) and p.strip()}
    return frozenset(paths) or None


def _plain_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _same_file(a: str, b: str) -> bool:
    """One path names the other: the same path, or an agent's absolute path ending in the
    answer's relative one (``/testbed/src/util.py``, ``src/util.py``).  Two relative paths
    are one file only when equal: ``util.py`` is not ``src/util.py``."""
    a, b = _plain_path(a), _plain_path(b)
    if a == b:
        return True
    if a.startswith("/") != b.startswith("/"):
        absolute, relative = (a, b) if a.startswith("/") else (b, a)
        return absolute.endswith("/" + relative)
    return False


def _blocks_for_other_files(text: str, files) -> str:
    """``text`` less its prose after the last block and its blocks that edit ``files``
    ("" when no block for another file is left).  A block goes or stays with its fence
    (the scanner's wrappers), so no fence is left open or empty.  Text whose blocks cannot
    be read is kept whole, so the parser reports them rather than losing them silently."""
    from ..errors import ParseError
    from ..formats import selected_formats
    from ..formats.scan import scan_blocks

    if files is None:
        return ""
    text = normalize_newlines(text)
    try:
        found = scan_blocks(text, selected_formats(None))
    except (ParseError, ApplyError):
        return text
    parts, pos, end = [], 0, 0
    for block in sorted(found.blocks, key=lambda b: b.start):
        start, stop = _with_fence(block, found.wrappers)
        if any(_same_file(p, f) for p in _block_paths(block) for f in files):
            parts.append(text[pos:start])
        else:
            parts.append(text[pos:stop])
            end = sum(map(len, parts))
        pos = stop
    return "".join(parts)[:end].strip("\n") + "\n" if end else ""


def _with_fence(block, wrappers) -> tuple[int, int]:
    """The span of ``block`` with the innermost fence (or heredoc) around it."""
    around = [(a, z) for a, z in wrappers if a <= block.start and block.end <= z]
    return min(around, key=lambda span: span[1] - span[0]) if around else (block.start, block.end)


def _block_paths(block) -> set:
    return {p for op in block.ops for p in (getattr(op, name, None) for name in
                                             ("path", "old_path", "new_path"))
            if isinstance(p, str)}
