"""Reading the responses a command line names: files, ``-`` (standard input), folders of
response files, and JSON Lines files of responses (docs/ATTEMPTS.md).  Every read is
bounded by the response size limit, so a huge input is refused without holding all of it."""
from __future__ import annotations

import os
import sys

from ..errors import Problem, UsageError
from ..record import record, replace


def read_inputs(paths: tuple[str, ...], max_bytes: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of every response named on the command line, in order; none means
    standard input.  A folder gives its response files (``folder_inputs``); a read error is
    a usage error.  At most ``max_bytes + 1`` bytes are read of each (0: no limit), so the
    caller can tell that a response is too large."""
    if not paths:
        paths = ("-",)
    out = []
    for p in paths:
        if p == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1) if max_bytes > 0 else sys.stdin.buffer.read()
        elif os.path.isdir(p):
            out.extend(folder_inputs(p, max_bytes))
            continue
        else:
            try:
                with open(p, "rb") as f:
                    raw = f.read(max_bytes + 1) if max_bytes > 0 else f.read()
            except OSError as e:
                raise UsageError(f"cannot read {p}: {e.strerror}") from None
        out.extend(mails_of(p, raw))
    return out


def mails_of(name: str, raw: bytes) -> list[tuple[str, bytes]]:
    """An mbox of `git format-patch` mails as one response each (named NAME-1, NAME-2...:
    one commit each, as git am); any other input as it is."""
    if not raw.startswith((b"From ", b"\xef\xbb\xbfFrom ")):
        return [(name, raw)]
    from ..answer.mail import split_mbox

    mails = split_mbox(raw)
    if mails is None:
        return [(name, raw)]
    stem, ext = os.path.splitext(name if name != "-" else "stdin")
    return [(f"{stem}-{k}{ext}", mail) for k, mail in enumerate(mails, 1)]



def folder_inputs(folder: str, max_bytes: int) -> list[tuple[str, bytes]]:
    """The responses in a folder: its regular files (not hidden, not in sub-folders),
    sorted by name, each as (path, bytes)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        raise UsageError(f"cannot read folder {folder}: {e.strerror}") from None
    out = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as f:
                out.append((path, f.read(max_bytes + 1) if max_bytes > 0 else f.read()))
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
    if not out:
        raise UsageError(f"no response files in folder {folder}")
    return out


@record
class Input:
    """One response of the run, before reading."""

    label: str  # how the summary names it: the file, or FILE:LINE for JSON Lines
    stem: str  # what {name} becomes (before making it branch-safe)
    raw: bytes | None  # the response as a file would hold it
    model: str | None = None  # from a JSON Lines object's "model"
    problem: Problem | None = None  # unreadable before even trying


def _stem(name: str) -> str:
    from ..answer.response import response_name

    return response_name(name)


def _read_line(item: Input, line: bytes, where: str) -> None:
    """``item`` as one line of a JSON Lines file gives it: its text, or its problem."""
    import json

    try:
        value = json.loads(line.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError) as e:
        item.problem = Problem(f"{where} is not JSON: {e}")
        return
    if isinstance(value, dict) and "response" in value:
        if isinstance(value.get("name"), str) and value["name"].strip():
            item.stem = value["name"].strip()
        if isinstance(value.get("model"), str) and value["model"]:
            item.model = value["model"]
        value = value["response"]
    try:  # a JSON escape of a lone surrogate (\ud800) is no text: refused, this line alone
        for text in (item.stem, item.model or "", value if isinstance(value, str) else ""):
            text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        item.stem = item.stem.encode("utf-8", "replace").decode()
        item.model = None
        item.problem = Problem(f"{where} holds a lone surrogate ({e.object[e.start]!r}), "
                               "which is not text", hint="escape whole characters only")
        return
    if isinstance(value, str):
        item.raw = value.encode("utf-8", "surrogateescape")
    elif isinstance(value, dict):
        item.raw = json.dumps(value).encode()
    else:
        item.problem = Problem(
            f"{where} holds a JSON {type(value).__name__}, not a response",
            hint='give a JSON string, {"response": ...}, or a chat API response object')


def jsonl_inputs(name: str, raw: bytes, max_bytes: int) -> list[Input]:
    """One input per non-blank line of a JSON Lines file (docs/ATTEMPTS.md):
    a JSON string (the response text); an object with "response" (a string, or the chat
    API JSON) and optionally "name" and "model"; or any other object, taken as the JSON a
    chat API returned."""
    if max_bytes and len(raw) > max_bytes and name != "-":
        # the size limit is per response, not per file of responses
        try:
            with open(name, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {name}: {e.strerror}") from None
    stem = _stem(name)
    from ..answer.response_json import jsonl_conversation

    if jsonl_conversation(raw):  # one conversation saved a message per line: one response
        return [Input(label=name, stem=stem, raw=raw)]
    out: list[Input] = []
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        k = len(out) + 1
        item = Input(label=f"{name}:{lineno}", stem=f"{stem}-{k}", raw=None)
        out.append(item)
        _read_line(item, line, f"line {lineno} of {name}")
    if not out:
        item = Input(label=name, stem=stem, raw=None,
                      problem=Problem(f"{name} holds no responses (it is empty)"))
        out.append(item)
    return out


def expand_inputs(inputs, max_bytes: int) -> list[Input]:
    out: list[Input] = []
    for name, raw in inputs:
        if name.endswith(".jsonl"):
            out.extend(jsonl_inputs(name, raw, max_bytes))
        else:
            out.append(Input(label=name if name != "-" else "stdin", stem=_stem(name), raw=raw))
    return [one for item in out for one in _choices(item)]


def _choices(item: Input) -> list[Input]:
    """A Chat Completions answer with several choices (n > 1): one attempt per choice,
    labelled ``LABEL#choice-K`` and named ``STEM-K`` (BEHAVIOR.md §1)."""
    from ..answer.response import split_choices

    parts = split_choices(item.raw) if item.raw is not None else None
    if not parts:
        return [item]
    return [replace(item, label=f"{item.label}#choice-{k}", stem=f"{item.stem}-{k}", raw=part)
            for k, part in enumerate(parts, 1)]


def several_choices(inputs) -> bool:
    """A chat answer with several choices (n > 1): with --branch, one attempt each."""
    from ..answer.response import split_choices

    return any(split_choices(raw) for _n, raw in inputs)
