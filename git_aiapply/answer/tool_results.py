"""What a tool call's result says (BEHAVIOR.md §1): applied, failed, or rejected by the user,
read the same way for every conversation shape (Chat Completions ``role: tool`` messages,
Responses ``*_output`` items, Anthropic ``tool_result`` blocks); and what a rejected call
takes out of the answer with it (the prose that announced it, and a change block of the
same file).  response.py reads conversations and asks this module about their results."""
from __future__ import annotations

import re

from ..errors import ApplyError
from ..text import normalize_newlines


def call_key(value):
    """A call id as a set of ids can hold it: a JSON object or list is no id (None)."""
    return None if isinstance(value, (dict, list)) else value


def failed_calls(items) -> dict:
    """Ids of tool calls whose result in the conversation says they were not applied
    (``tool_result_outcome``): the harness did not apply them, so neither does ai-apply.
    Each id maps to whether the result says the user rejected the call (``drop_announcement``)."""
    failed = {}
    for call_id, result in _tool_results(items):
        outcome = tool_result_outcome(result)
        if outcome != APPLIED:
            failed[call_key(call_id)] = outcome == REJECTED
    failed.pop(None, None)
    return failed


_RESULT_ITEMS = ("function_call_output", "custom_tool_call_output", "apply_patch_call_output")


def _tool_results(items):
    """(call id, result) for every tool result of a conversation, whatever its shape:
    Chat Completions ``role: tool`` messages, Responses ``*_output`` items, Anthropic
    ``tool_result`` blocks in a user turn."""
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("role") == "tool":
            yield item.get("tool_call_id"), item
        elif item.get("type") in _RESULT_ITEMS:
            yield item.get("call_id"), item
        content = item.get("content")
        if item.get("role") == "user" and isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    yield part.get("tool_use_id"), part


APPLIED, FAILED, REJECTED = "applied", "failed", "rejected"


def tool_result_outcome(result: dict) -> str:
    """Whether one tool result (any shape) says its call was applied, failed or was
    rejected by the user.  The shape's own flag decides where it has one (Anthropic
    ``is_error``, Responses ``status``, Codex ``exit_code``); otherwise the well-known
    wordings of agent harnesses do.  Not clearly a failure: applied."""
    kind = result.get("type")
    if kind == "tool_result":
        text = _result_text(result.get("content"))
        flag = result["is_error"] if isinstance(result.get("is_error"), bool) else None
    elif kind == "apply_patch_call_output" and result.get("status") in ("failed", "completed"):
        text = _result_text(result.get("output"))
        flag = result.get("status") == "failed"
    elif kind in _RESULT_ITEMS:
        text, flag = _exit_code_failed(_result_text(result.get("output")))
    else:  # a Chat Completions role: tool message has no flag
        text, flag = _result_text(result.get("content")), None
    if flag is None:
        flag = _says_failed(text)
        if _says_rejected_plainly(text):
            return REJECTED
    if not flag:
        return APPLIED
    return REJECTED if _says_rejected(text) else FAILED


def _result_text(result) -> str:
    """A result's text: a string, or the text of its blocks or parts."""
    if isinstance(result, list):
        result = " ".join(p.get("text") for p in result
                          if isinstance(p, dict) and isinstance(p.get("text"), str))
    return result if isinstance(result, str) else ""


_EXIT_CODE = re.compile(r"\A\s*Exit code: (\d+)\b")


def _exit_code_failed(text: str) -> tuple[str, bool | None]:
    """A Codex tool output: JSON ``{"output", "metadata": {"exit_code"}}`` or text starting
    "Exit code: N".  Returns the output's text and whether the exit code says failed
    (None when there is no exit code)."""
    import json  # imported here: most responses are not JSON

    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
        code = data["metadata"].get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            output = data.get("output")
            return (output if isinstance(output, str) else text), code != 0
    match = _EXIT_CODE.match(text)
    return text, (int(match.group(1)) != 0 if match else None)


# Harnesses' words for a call that did not change the file, where the result has no flag
# (SWE-agent's lint gate, str_replace_editor, apply_patch, Claude Code): a prefix, or a
# sentence no successful result holds.
_FAILED_PREFIXES = ("error:", "<tool_use_error>")
_FAILED_WORDS = ("have not been applied", "has not been applied", "no replacement was performed")
# Rejections, plainly worded (a success that mentions "rejected" stays applied).
_REJECTED_PLAINLY = ("n't want to proceed with this tool use", "tool use was rejected",
                     "rejected by user", "rejected by the user")


def _says_failed(text: str) -> bool:
    said = text.lstrip().lower()
    return said.startswith(_FAILED_PREFIXES) or any(w in said for w in _FAILED_WORDS)


def _says_rejected_plainly(text: str) -> bool:
    said = text.lower().replace("\u2019", "'")
    return any(w in said for w in _REJECTED_PLAINLY)


# How agent harnesses word a call the user turned down (Claude Code: "The user doesn't
# want to proceed with this tool use. The tool use was rejected ..."; Codex: "patch
# rejected by user").  Other failures (old text not found) are the model's to retry.
_REJECTION_WORDS = ("reject", "declin", "n't want to", "not want to", "denied by the user",
                    "cancelled by the user", "canceled by the user")


def _says_rejected(result) -> bool:
    """Whether a failed call's result (a string or text blocks) says the user rejected it."""
    said = _result_text(result).lower().replace("\u2019", "'")
    return any(words in said for words in _REJECTION_WORDS)


def drop_announcement(answer, failed, call) -> None:
    """A failed call the user rejected: the prose that announced it (since the last call
    or turn) is not the answer, it describes a change that was not made.  A change block
    in that text stays unless it edits a file the rejected call edits (it may show the
    rejected change); when the call's files cannot be told, every block goes with it."""
    if not (isinstance(failed, dict) and failed.get(call_key(call.call_id)) is True):
        return
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
