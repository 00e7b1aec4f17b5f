"""`git ai-apply serve`: JSON lines in, one ``--json`` object per line out (docs/API.md).

A harness keeps one process per repository and writes requests to its standard input::

    {"response": "TEXT", "options": {"check": true}}
    {"path": "answers/7.md", "options": {"branch": "try/7"}}

Each request gets exactly one line back, in order, flushed at once: the ``--json`` object
of the command (docs/JSON.md) -- also when the repository or the environment stopped the
run (``status`` ``"fatal"``, ``exit_code`` 128, as ``--json`` prints it) -- or for a bad
request an object with ``status`` ``"error"`` and ``exit_code`` 2.  A request's ``"id"``, when given, is copied into its answer.
The repository and its index stay warm between requests (git_aiapply.doors.api.Session); the
index is read again only when it changed on disk, the config files when one of them changed
(git.config_files.config_stamp), the attributes and eol settings for every request.  End of
input ends the server (exit 0).

A request line is read only up to its limit, ``6 × aiapply.maxResponseBytes + 64 KiB``
(room for the largest response the limit lets through, however JSON escapes it; no limit
when that setting is 0): a line is read in 64 KiB pieces, and a longer one is refused as
soon as it passes the limit (with its ``id`` when the part read shows it), its rest
skipped unread into memory, and the next line is served.
"""
from __future__ import annotations

import json
import os
import sys

from ..errors import AiApplyError, ErrorKind, FatalError, UsageError, fault_of

REQUEST_KEYS = {"response", "path", "options", "id", "name"}


def error_object(exit_code: int, kind: str, text: str) -> dict:
    """The answer to a request that could not be run (not a refusal of the response),
    with its ``fault`` as in every ``--json`` object (docs/JSON.md)."""
    return {"status": "error", "exit_code": exit_code, "error_kind": kind,
            "fault": fault_of(kind), "errors": [{"reason": text}], "error_text": text}


def _parse(line: bytes):
    """The request line's JSON value (a usage error when it is not JSON)."""
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"the request is not JSON: {e}") from None


def _request(req) -> dict:
    """The request ``req`` (the line's JSON value) checked: its fields and their types."""
    if not isinstance(req, dict):
        raise UsageError("a request is a JSON object: {\"response\": TEXT} or {\"path\": FILE}")
    unknown = sorted(set(req) - REQUEST_KEYS)
    if unknown:
        raise UsageError(f"unknown request field{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; a request holds response or path, "
                         "and optionally options, name, id")
    if ("response" in req) == ("path" in req):
        raise UsageError("a request holds exactly one of response (the text) and path (a file)")
    if "response" in req and not isinstance(req["response"], (str, dict, list)):
        raise UsageError("response is the response's text (a string) or its chat-API JSON")
    if "path" in req and not isinstance(req["path"], str):
        raise UsageError("path is a file name (a string)")
    if not isinstance(req.get("options", {}), dict):
        raise UsageError("options is an object: {\"check\": true, \"branch\": \"try/1\", ...}")
    fields = sorted(REQUEST_KEYS & set(req.get("options", {})))
    if fields:  # never passed on as a second value of the call's own parameter
        raise UsageError(f"{', '.join(map(repr, fields))} {'is a field' if len(fields) == 1 else 'are fields'}"
                         " of the request, not an option: put it beside options, "
                         "{\"response\": TEXT, \"name\": ..., \"options\": {...}}")
    if not isinstance(req.get("name", ""), str):
        raise UsageError("name is a string")
    return req


def answer(session, line: bytes) -> dict:
    """The answer object to one request line."""
    from pathlib import Path

    req_id = None
    name = "response"
    req: dict = {}
    try:
        try:
            parsed = _parse(line)
        except UsageError:
            # no JSON, but its id is echoed when the fields before the fault show it
            req_id = known_fields(bytes(line[:_PEEK])).get("id")
            raise
        if isinstance(parsed, dict):  # its id is echoed, whatever else is wrong with it
            req_id = parsed.get("id")
        req = _request(parsed)
        response = Path(req["path"]) if "path" in req else req["response"]
        name = req.get("name")
        if name is None and "path" in req:
            name = req["path"]
        out = session.apply_json(response, name=name, **req.get("options", {}))
    except UsageError as e:
        out = error_object(2, ErrorKind.USAGE, str(e))
    except FatalError as e:  # the command's --json object for it (pipeline.fatal_outcome)
        from ..run.pipeline import fatal_outcome

        verbose = bool(req.get("options", {}).get("verbose"))
        out = fatal_outcome(name or "response", e, verbose).to_json()
    except AiApplyError as e:  # the response refused before any result could be made
        out = error_object(1, ErrorKind.REFUSED, str(e))
    except Exception as e:  # a bug: say it, and keep serving the next requests
        out = error_object(1, ErrorKind.INTERNAL, f"internal error: {type(e).__name__}: {e}")
    if req_id is not None:
        out = {"id": req_id, **out}
    return out


_LINE_SLACK = 64 * 1024  # the request's other fields around the response
_CHUNK = 64 * 1024  # a request line is read in pieces of this size at most
_PEEK = 64 * 1024  # the start of a line over the limit, kept to read its id from
_TAIL = 4096  # the end of a line over the limit, kept: its id may be the last field


def known_fields(head: bytes) -> dict:
    """The top-level fields of the request object whose start is ``head`` (a line cut at
    the limit, or one that is not JSON), read as JSON up to the first field not whole in
    it: what is known of the request."""
    text = head.decode("utf-8", "replace")
    decode = json.JSONDecoder().raw_decode
    out: dict = {}
    i = _blank_end(text, 0)
    if not text.startswith("{", i):
        return out
    i += 1
    while True:
        try:
            key, i = decode(text, _blank_end(text, i))
            i = _blank_end(text, i)
            if not isinstance(key, str) or not text.startswith(":", i):
                return out
            value, i = decode(text, _blank_end(text, i + 1))
        except ValueError:
            return out
        i = _blank_end(text, i)
        if i >= len(text) or text[i] not in ",}":  # cut (a number may go on): not known
            return out
        out.setdefault(key, value)
        if text[i] == "}":
            return out
        i += 1


def _blank_end(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _last_field(tail: bytes) -> dict:
    """The request's ``id`` when it is the last top-level field, read from the end of a
    line over the limit (``tail``): a key's quote right after a comma (inside a string
    every quote is escaped), its value followed by the top level's closing brace alone."""
    text = tail.decode("utf-8", "replace").rstrip()
    decode = json.JSONDecoder().raw_decode
    at = text.rfind('"id"')
    while at > 0:
        if text[:at].rstrip().endswith(","):
            try:
                _key, i = decode(text, at)
                i = _blank_end(text, i)
                value, i = decode(text, _blank_end(text, i + 1)) if text.startswith(":", i) \
                    else (None, -1)
            except ValueError:
                i = -1
            if i >= 0 and text[_blank_end(text, i):] == "}":
                return {"id": value}
        at = text.rfind('"id"', 0, at)
    return {}


class LineTooLong:
    """A request line that passed ``limit`` bytes (what was read of it is dropped, but
    for its start and end: what they show of the request is ``known``)."""

    def __init__(self, limit: int, head: bytes = b"", tail: bytes = b""):
        self.limit = limit
        self.known = known_fields(head)
        if "id" not in self.known:
            self.known.update(_last_field(tail))

    def strip(self):
        return self  # not blank: answered


def request_line_limit(session) -> int | None:
    """The longest request line read (None: no limit), from the limit on responses as
    the config says now."""
    from ..run.prepare import max_response_bytes
    from ..answer.response import DEFAULT_MAX_BYTES

    try:
        session.repo.forget_config()
        max_bytes = max_response_bytes(session.repo)
    except FatalError:
        max_bytes = DEFAULT_MAX_BYTES  # the request itself reports the bad setting
    return max_bytes * 6 + _LINE_SLACK if max_bytes else None


def read_requests(stream, limit):
    """The lines of ``stream`` (a binary reader), each read in pieces and only up to
    ``limit()`` bytes (a bytearray: no copy of a long line is ever made): a longer one is
    a LineTooLong, and the rest of it is skipped in pieces, unkept."""
    while True:
        most = limit()
        line = bytearray()
        while most is None or len(line) <= most:
            piece = stream.readline(_CHUNK)
            line += piece
            if not piece or piece.endswith(b"\n"):
                break
        if not line:
            return
        if most is None or len(line) <= most:
            yield line
            continue
        head, tail = bytes(line[:_PEEK]), bytearray(line[-_TAIL:])
        ends = line.endswith(b"\n")
        del line
        while not ends:  # skip the rest, keeping only its last bytes
            piece = stream.readline(_CHUNK)
            if not piece:
                break
            tail += piece
            del tail[:-_TAIL]
            ends = piece.endswith(b"\n")
        yield LineTooLong(most, head, bytes(tail))


def _too_long(line: LineTooLong) -> dict:
    text = (f"the request line is more than {line.limit} bytes, the limit (6 × "
            "aiapply.maxResponseBytes + 64 KiB: room for the largest response allowed, "
            "JSON-escaped); set aiapply.maxResponseBytes to raise it")
    out = {**error_object(1, ErrorKind.REFUSED, text), "status": "refused", "fault": "response"}
    name = line.known.get("name", line.known.get("path"))
    if isinstance(name, str):
        out = {"response": name, **out}
    if line.known.get("id") is not None:
        out = {"id": line.known["id"], **out}
    return out


def serve(session, requests, write) -> None:
    """Answer every line of ``requests`` (bytes lines) with ``write(bytes)``, in order."""
    for line in requests:
        if isinstance(line, (bytes, bytearray)) and (not line or line.isspace()):
            continue  # (asked without a copy of the line)
        out = _too_long(line) if isinstance(line, LineTooLong) else answer(session, line)
        write(json.dumps(out).encode("ascii") + b"\n")
        _reported()


def _reported() -> None:
    """The answer written names the request's commits: a Ctrl-C now names none of them
    (run/term.interrupted names those of the request it cuts)."""
    made = sys.modules.get("git_aiapply.git.commits_made")
    if made is not None:
        made.forget()


def run_server() -> None:
    """The server on this process's standard input and output, in the current folder's
    repository (`git ai-apply serve`; commands/serve.py is its click command, and main.py
    runs the bare `git ai-apply serve` without loading click: start-up time)."""
    from .api import Session

    session = Session(".")  # not a repository: fatal, before any request is read
    # The protocol owns standard output: anything else a child process prints there (a
    # hook, a signing program) goes to standard error instead.
    out = os.dup(sys.stdout.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def write(data: bytes) -> None:
        """Each answer whole, as soon as it is known (unbuffered: nothing is left for a
        flush at exit to fail on); a write error other than a closed pipe is fatal."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(out, view):]
            except BrokenPipeError:
                raise
            except OSError as e:
                from ..errors import ErrorKind, FatalError

                raise FatalError(f"cannot write the standard output: {e.strerror or e}",
                                 kind=ErrorKind.IO) from None

    try:
        serve(session, read_requests(sys.stdin.buffer, lambda: request_line_limit(session)),
              write)
    except BrokenPipeError:
        pass  # the reader went away: nothing left to answer
