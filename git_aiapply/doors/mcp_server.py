"""`git ai-apply mcp`: the library as a Model Context Protocol server over stdio.

Built on the official ``mcp`` SDK, an optional extra (the ``mcp`` extra of pyproject.toml);
without it the command says so and exits 128, as git does when its environment stops it.
The repository is the one git would use from the folder the server starts in, kept warm
between calls (git_aiapply.doors.api.Session).  Tools (docs/API.md):

- ``apply_response``: apply a response and commit (or onto ``branch``); the ``--json`` object;
- ``check_response``: would it apply?  Nothing is written;
- ``show_files``: files with hashline ids (``LINE#ID:text``) for the prompt;
- ``undo_last_apply``: take back the last commit this tool made;
- ``batch_apply``: many responses, each onto its own branch (``git ai-apply batch``).

A refused response is a normal result (``status`` ``"refused"``, ``error_text`` to send
back to the model); a bad call or a repository that stops the run is a tool error.

A message is read only up to the request line limit of ``serve`` (serve.py): a longer one
is dropped as soon as it passes it, never held whole, and its caller is answered with an
error naming the limit (a tool call with a tool error; any other request with JSON-RPC's
"method not found", so that no caller waits for an answer).  So is a message the SDK
cannot read though it is JSON (a string escaping a lone surrogate, ``"\\ud800"``, which
is no text): a tool call gets a tool error naming the argument, wherever the string sits
(tool name, argument, key, ``_meta``, method, id: an id that is no text is answered made
text, ``"\\\\ud800"``); only a notification (no id) is dropped.
"""
import io
import os
import re
import sys
from typing import Optional

from ..errors import AiApplyError, FatalError, UsageError

INSTALL_HINT = "pip install 'mcp>=1.10'"
SERVER_NAME = "git-ai-apply"
INSTRUCTIONS = (
    "Apply a language model's response (edits in unified-diff, apply-patch, SEARCH/REPLACE, "
    "file-changes or hashline format) to the repository as one git commit, all or nothing. "
    "Use show_files to see files with LINE#ID ids for hashline edits, check_response to try a "
    "response without writing, apply_response to commit it, undo_last_apply to take it back. "
    "A refused response changes nothing; its error_text says what to correct.")


def sdk():
    """The SDK's high-level server class and its ToolError: ``MCPServer`` (mcp 2) or
    ``FastMCP`` (mcp 1)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError
        return FastMCP, ToolError


def _choices(schema: dict) -> list | None:
    """The values a parameter's JSON schema allows, when it is an enum (None: any)."""
    for alternative in [schema, *schema.get("anyOf", [])]:
        if "enum" in alternative:
            return list(alternative["enum"]) + ([None] if schema.get("anyOf") else [])
    return None


def tool_usage(name: str, parameters: dict) -> str:
    """A tool's usage line from its input schema: required arguments, then [optional]."""
    required = parameters.get("required", [])
    args = [a if a in required else f"[{a}]" for a in parameters.get("properties", {})]
    return f"usage: {name} {' '.join(args)}"


def argument_error(name: str, parameters: dict, arguments: dict) -> str | None:
    """What is wrong with ``arguments`` of tool ``name`` (its input schema ``parameters``),
    worded as the command words it, with the tool's usage (None: nothing the schema can
    tell): an unknown argument, or a value outside an enum (a format by its name)."""
    known = parameters.get("properties", {})
    unknown = [a for a in arguments if a not in known]
    if unknown:
        return (f"unknown argument{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))}; known arguments: {', '.join(known)}\n"
                f"{tool_usage(name, parameters)}")
    for arg, value in arguments.items():
        choices = _choices(known[arg])
        if choices is not None and value not in choices:
            names = [c for c in choices if c is not None]
            what = {"format": "format"}.get(arg, f"{arg} value")
            return (f"unknown {what} {value!r}; known {what}s: {', '.join(map(str, names))}\n"
                    f"{tool_usage(name, parameters)}")
    return None


def validation_text(name: str, parameters: dict, error) -> str:
    """A pydantic ValidationError of a tool's arguments without pydantic's headline and
    documentation links: each argument and what it should be, then the tool's usage."""
    lines = []
    for e in error.errors(include_url=False):
        where = ".".join(str(part) for part in e.get("loc", ())) or "arguments"
        lines.append(f"{where}: {e.get('msg', 'invalid')} (got {e.get('input')!r})")
    return "; ".join(lines) + f"\n{tool_usage(name, parameters)}"


def _checked_server_class(server_class, tool_error):
    """The SDK's server class, whose tool calls are first checked against the tools'
    input schemas: an unknown argument is a usage error (the SDK ignores it, and a
    misspelt ``chek`` would apply the response), a bad value one without pydantic's
    text, both with the tool's usage."""

    class Checked(server_class):
        async def call_tool(self, name, arguments, *args, **kwargs):
            if NOT_TEXT in (arguments or {}):  # a call the SDK could not read (readable_message)
                raise tool_error(arguments[NOT_TEXT])
            tool = self._tool_manager.get_tool(name)
            if tool is not None and not str((arguments or {}).get("response", "")
                                            ).startswith(TOO_LARGE):
                wrong = argument_error(name, tool.parameters, arguments or {})
                if wrong:
                    raise tool_error(f"usage error: {wrong}")
            try:
                return await super().call_tool(name, arguments, *args, **kwargs)
            except tool_error as e:
                from pydantic import ValidationError

                if isinstance(e.__cause__, ValidationError) and tool is not None:
                    raise tool_error("usage error: " + validation_text(
                        name, tool.parameters, e.__cause__)) from None
                raise

    return Checked


def _server_info() -> dict:
    """The server's title and version, for the SDK's constructor that takes them."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {"title": "git ai-apply", "version": version("git-ai-apply")}
    except PackageNotFoundError:
        return {"title": "git ai-apply"}


def _tool_errors(fn, tool_error):
    """A bad call or a repository that stops the run becomes a tool error whose text is
    the command's (``usage error: ...``, ``fatal: ...``), never a traceback; a fatal one
    ends with a line holding the ``--json`` object the command prints for it."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UsageError as e:
            raise tool_error(f"usage error: {e}") from None
        except FatalError as e:  # and, on its last line, the command's --json object
            from ..run.pipeline import fatal_outcome

            verbose = bool(kwargs.get("verbose"))  # -v's empty edits, as at every door
            text = json_bytes(fatal_outcome("response", e, verbose).to_json()).decode("ascii")
            raise tool_error(f"fatal: {e.message}\n{text}") from None
        except AiApplyError as e:
            raise tool_error(f"error: {e}") from None

    return wrapper


def _schemas():
    """Typed parameters and results for the tools (pydantic comes with the SDK): every
    parameter described, the format an enum, results with an output schema that still
    lets later fields through (the ``--json`` object may grow; docs/JSON.md)."""
    from typing import Annotated, Literal

    from pydantic import BaseModel, ConfigDict, Field

    from ..formats import FORMAT_NAMES

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")

    class FileEntry(Open):
        path: str = Field(description="path of the file, relative to the repository root")
        action: str = Field(description="add, update, delete, rename or mode")
        old_path: Optional[str] = Field(None, description="the path before a rename")
        added: int = Field(0, description="lines added")
        removed: int = Field(0, description="lines removed")

    class ErrorEntry(Open):
        reason: str = Field(description="why this edit or path was refused")
        file: Optional[str] = Field(None, description="the file the problem is in")
        edit: Optional[int] = Field(None, description="the edit's number within its file")
        hint: Optional[str] = Field(None, description="what to change in the response")

    class ApplyOutcome(Open):
        """The ``--json`` object of docs/JSON.md."""

        status: str = Field(description="applied, would-apply, staged, already-applied, "
                                        "no-change, empty or refused")
        exit_code: int = Field(description="the command's exit code: 0 done, 1 refused")
        commit: Optional[str] = Field(None, description="the new commit's id (applied), or "
                                                        "the one already holding the response")
        branch: Optional[str] = Field(None, description="the branch committed to")
        files: list[FileEntry] = Field(default_factory=list,
                                       description="every path the response changes")
        error_kind: Optional[str] = Field(None, description="for refused: what kind of problem")
        fault: Optional[str] = Field(None, description="whose fault a failure is: response "
                                                       "(send error_text to the model), "
                                                       "repository, usage or internal")
        errors: list[ErrorEntry] = Field(default_factory=list,
                                         description="every problem, for refused")
        error_text: Optional[str] = Field(None, description="the problems as text, ready to "
                                                            "send back to the model")
        warnings: list[ErrorEntry] = Field(default_factory=list, description=(
            "applied anyway, worth a look: with syntax_check warn, files that no longer parse"))
        diff: Optional[str] = Field(None, description="the change as a git diff (with diff)")
        suggestion: Optional[dict] = Field(None, description=(
            "for refused, the fix the tool knows: kind three-way (retry with three_way; "
            "base), already-applied (commit; nothing to do) or format (retry with format "
            "whole); text says it in words"))

    class UndoOutcome(Open):
        status: str = Field(description="undone, refused or fatal")
        exit_code: int = Field(description="0 undone, 1 refused, 128 fatal")
        undone: Optional[str] = Field(None, description="the commit that was HEAD and was "
                                                        "taken back")
        commits: list[str] = Field(default_factory=list,
                                   description="every commit taken back, newest first")
        head: Optional[str] = Field(None, description="the branch's tip now")
        error_text: Optional[str] = Field(None, description="why it was refused")

    class BatchLine(ApplyOutcome):
        """One job's result line of ``git ai-apply batch`` (docs/BATCH.md)."""

        id: Optional[object] = Field(None, description="the job's id")
        diff: Optional[str] = Field(None, description=(
            "the job's change as `git diff BASE BRANCH` prints it (empty when refused)"))

    class BatchOutcome(Open):
        results: list[BatchLine] = Field(default_factory=list, description=(
            "one result per job, in the order the jobs were given"))

    Format = Optional[Literal[tuple(FORMAT_NAMES)]]  # type: ignore[valid-type]
    SyntaxMode = Optional[Literal["refuse", "warn", "off"]]
    return Annotated, Field, Format, SyntaxMode, ApplyOutcome, UndoOutcome, BatchOutcome


# A tool call's response argument replaced by this marker (and the size) is answered with
# the tool error below: the SDK owns the output, so the answer goes through it.
TOO_LARGE = "\x00git-ai-apply: request too large: "
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
_TOOL = re.compile(rb'"name"\s*:\s*"(apply_response|check_response)"')
_PEEK = 64 * 1024  # where a message's id and tool name are looked for


def too_large_stand_in(head: bytes, limit: int, tail: bytes = b"") -> bytes:
    """The message that stands in for one longer than ``limit`` (``head``: its start,
    ``tail``: its end, where a client may have put the id after the params): the same
    call of the same tool with the marker as its response, or a request of no method with
    the same id; nothing for a notification (no id: no one waits)."""
    found = _ID.search(head)
    if found is None:
        found = next(reversed(list(_ID.finditer(tail))), None)  # the last key: top level
    if found is None:
        return b""
    req_id = found.group(1)
    tool = _TOOL.search(head)
    if tool is not None and b'"tools/call"' in head:
        arguments = {"response": f"{TOO_LARGE}{limit}"}
        return (b'{"jsonrpc":"2.0","id":' + req_id + b',"method":"tools/call","params":'
                + json_bytes({"name": tool.group(1).decode(), "arguments": arguments}) + b"}\n")
    return b'{"jsonrpc":"2.0","id":' + req_id + b',"method":"git-ai-apply/request-too-large"}\n'


def json_bytes(obj) -> bytes:
    import json

    return json.dumps(obj).encode("ascii")


class BoundedLines(io.RawIOBase):
    """The lines of file descriptor ``fd``, each held only up to ``limit()`` bytes: a
    longer one is replaced by too_large_stand_in as soon as it passes the limit, and the
    rest of it is read and dropped."""

    def __init__(self, fd: int, limit):
        super().__init__()
        self.fd, self.limit = fd, limit
        self.line = bytearray()  # the line being read (never more than the limit)
        self.ready = bytearray()  # whole lines to hand out
        self.skipping = False
        self.eof = False
        self.line_limit = None  # the limit, asked once when a line starts
        self.too_large: tuple[bytes, int] | None = None  # (head, limit) of a line skipped
        self.tail = bytearray()  # the end of the line skipped: its id may stand there

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def readinto(self, buffer) -> int:
        while not self.ready and not self.eof:
            self._take(os.read(self.fd, 65536))
        n = min(len(buffer), len(self.ready))
        buffer[:n] = self.ready[:n]
        del self.ready[:n]
        return n

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            self.eof = True
            if self.skipping:
                self._skip(b"", True)  # the line ends with the input
            else:
                self.ready += readable_message(self.line)
            self.line.clear()
            return
        while chunk:
            newline = chunk.find(b"\n")
            piece = chunk if newline < 0 else chunk[:newline + 1]
            chunk = b"" if newline < 0 else chunk[newline + 1:]
            if self.skipping:
                self._skip(piece, newline >= 0)
                continue
            if not self.line:
                self.line_limit = self.limit()
            limit = self.line_limit
            self.line += piece
            if limit is not None and len(self.line) > limit:
                self.too_large = (bytes(self.line[:_PEEK]), limit)
                self.tail = bytearray(self.line[-_TAIL:])
                self.line.clear()
                self.skipping = True
                self._skip(b"", newline >= 0)
            elif newline >= 0:
                self.ready += readable_message(self.line)
                self.line.clear()

    def _skip(self, piece: bytes, ends: bool) -> None:
        """The rest of a line over the limit: only its last bytes are kept; at its end
        the stand-in is answered (its id from the start, else from the end)."""
        self.tail += piece
        del self.tail[:-_TAIL]
        if ends:
            head, limit = self.too_large
            self.ready += too_large_stand_in(head, limit, bytes(self.tail))
            self.skipping, self.too_large = False, None
            self.tail.clear()


_TAIL = 4096  # bytes of a skipped line's end kept for its id

# A tool call whose arguments are not text is called with this one argument instead,
# its value the error to answer (Checked.call_tool): the SDK owns the output.
NOT_TEXT = "\x00git-ai-apply: not text"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def readable_message(line: bytearray) -> bytes | bytearray:
    """``line``, or what stands in for it when it is JSON the SDK cannot read: a string
    escaping a lone surrogate (no text: the SDK's parser refuses the message and its
    caller would wait forever).  The stand-in is the same call with one argument naming
    the string, or a request of no known method, with the same id (made text); or nothing
    for a notification (no id: no one waits).  Every other line is the SDK's to answer."""
    if _SURROGATE_ESCAPE.search(line) is None:  # (a surrogate pair is escaped so too)
        return line
    import json

    from pydantic_core import from_json

    try:
        from_json(bytes(line))
        return line  # the SDK reads it
    except ValueError:
        try:
            message = json.loads(line)
        except ValueError:
            return line  # not JSON: the SDK's own answer
    where = _not_text(message)
    if where is None or not isinstance(message, dict):
        return line  # not for want of text: the SDK's own answer
    if "id" not in message:
        return b""  # a notification: no one waits
    req_id = _readable(message["id"])  # an id that is no text, made text: still answered
    if message.get("method") == "tools/call" and isinstance(message.get("params"), dict):
        if where.startswith("params.arguments."):
            where = f"argument {where[len('params.arguments.'):]}"
        error = (f"usage error: {where} holds a lone surrogate, which is not text (a "
                 "\\ud800 to \\udfff escape without its pair): send the text as it is")
        params = {"name": _readable(message["params"].get("name")),
                  "arguments": {NOT_TEXT: error}}
        return json_bytes({"jsonrpc": "2.0", "id": req_id, "method": "tools/call",
                           "params": params}) + b"\n"
    return json_bytes({"jsonrpc": "2.0", "id": req_id,
                       "method": "git-ai-apply/request-not-text"}) + b"\n"


def _readable(value):
    """``value`` (a JSON value) with every string's lone surrogates written as their
    escapes (``"\\ud800"``, six characters of text), so that the SDK reads it."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_readable(k): _readable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_readable(v) for v in value]
    return value


def _not_text(value, where: str = "") -> str | None:
    """Where in ``value`` (a JSON value) a string holds a lone surrogate ('params.
    arguments.response at character 3'), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"{where or 'the message'} at character {e.start}"
        return None
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str) and _not_text(key):
            return f"a key of {where or 'the message'}"
        found = _not_text(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def bound_standard_input(session) -> None:
    """Standard input read through BoundedLines from a private descriptor, fd 0 pointed at
    the null device (a hook must not read the protocol)."""
    from .serve import request_line_limit

    try:
        private = os.dup(0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
    except OSError:
        return  # no standard input to bound: the SDK reports it
    raw = BoundedLines(private, lambda: request_line_limit(session))
    sys.stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace")


def build_server(session):
    """The MCP server with its tools and prompts, answering from ``session`` (an
    api.Session)."""
    from ..workflows.prompts import PROMPTS, prompt_for

    import inspect

    from mcp.types import ToolAnnotations

    server_class, tool_error = sdk()
    server_class = _checked_server_class(server_class, tool_error)
    takes = inspect.signature(server_class.__init__).parameters
    info = {k: v for k, v in _server_info().items() if k in takes}
    server = server_class(SERVER_NAME, instructions=INSTRUCTIONS, **info)
    Annotated, Field, Format, SyntaxMode, ApplyOutcome, UndoOutcome, BatchOutcome = _schemas()

    def tool(title: str, **hints):
        """A tool with its title and hints (open world: no, it acts on this repository)."""
        annotations = ToolAnnotations(title=title, openWorldHint=False, **hints)

        def register(fn):
            return server.tool(title=title, annotations=annotations, structured_output=True)(
                _tool_errors(fn, tool_error))

        return register

    def run(response: str, **options) -> ApplyOutcome:
        if response.startswith(TOO_LARGE):  # what stands in for a message over the limit
            raise tool_error(f"the request is more than {response[len(TOO_LARGE):]} bytes, "
                             "the limit (6 × aiapply.maxResponseBytes + 64 KiB); set "
                             "aiapply.maxResponseBytes to raise it")
        options = {k: v for k, v in options.items() if v is not None}
        return ApplyOutcome(**session.apply_json(response, name="response", **options))

    Response = Annotated[str, Field(description=(
        "the model's whole answer: prose with change blocks in any supported format, or the "
        "JSON a chat API returned (tool calls included)"))]
    Branch = Annotated[Optional[str], Field(None, description=(
        "commit onto this branch instead of the current one, without touching the worktree; "
        "created at base when missing"))]
    FormatParam = Annotated[Format, Field(None, description=(
        "only look for this format (default: detect every format)"))]
    IncludeDirty = Annotated[Optional[bool], Field(None, description=(
        "apply on top of uncommitted changes of the touched files (they go into the commit); "
        "default: the aiapply.includeDirty setting"))]
    Diff = Annotated[bool, Field(False, description=(
        "return the change as a git diff in diff and write nothing, as --diff (status "
        "would-apply)"))]
    Verbose = Annotated[bool, Field(False, description=(
        "also return edits: where each edit landed (file, lines) and how it was found "
        "(exact, whitespace, line numbers, three-way...), as -v"))]
    SyntaxCheck = Annotated[SyntaxMode, Field(None, description=(
        "a file that parsed before the response and does not after it: refuse, warn (apply "
        "and report in warnings: for agent loops applying one tool call at a time) or off; "
        "default: the aiapply.syntaxCheck setting, else refuse"))]
    ThreeWay = Annotated[Optional[bool], Field(None, description=(
        "when an edit does not fit, apply the response at the commit it was written against "
        "(base, an AI-Base line, or the newest recent commit where it fits) and merge the "
        "result in, as git apply -3; default: the aiapply.threeWay setting"))]

    # a new commit (undo_last_apply takes it back); the same response again is
    # already-applied: additive and idempotent
    @tool("Apply a response", readOnlyHint=False, destructiveHint=False, idempotentHint=True)
    def apply_response(
            response: Response, branch: Branch = None,
            base: Annotated[Optional[str], Field(None, description=(
                "with branch: the commit a new branch starts at (default HEAD); with "
                "three_way and no branch: the commit the answer was written against"))] = None,
            format: FormatParam = None,
            message: Annotated[Optional[str], Field(None, description=(
                "use this commit message instead of the response's explanation"))] = None,
            include_dirty: IncludeDirty = None,
            allow_empty: Annotated[bool, Field(False, description=(
                "a response without any change block is not an error"))] = False,
            no_verify: Annotated[bool, Field(False, description=(
                "skip the pre-commit and commit-msg hooks"))] = False,
            force: Annotated[bool, Field(False, description=(
                "apply even when the history says this response was already applied"))] = False,
            three_way: ThreeWay = None, diff: Diff = False, verbose: Verbose = False,
            syntax_check: SyntaxCheck = None,
            no_commit: Annotated[bool, Field(False, description=(
                "apply to the index and the worktree without committing (no commit hooks), "
                "as git apply --index; status staged"))] = False,
            cached: Annotated[bool, Field(False, description=(
                "apply to the index only, as git apply --cached: the worktree is not "
                "touched, nothing is committed; status staged"))] = False) -> ApplyOutcome:
        """Apply a model's response to the repository and commit it (one commit, all or
        nothing).  With branch, commit onto that branch (created at base, default HEAD)
        without touching the worktree; with no_commit or cached, stage it without a
        commit.  Returns the outcome: status is applied, staged, already-applied,
        no-change or refused (then error_text says what to fix; nothing was changed)."""
        return run(response, branch=branch, base=base, format=format, message=message,
                   include_dirty=include_dirty, allow_empty=allow_empty, no_verify=no_verify,
                   force=force, three_way=three_way, diff=diff, verbose=verbose,
                   syntax_check=syntax_check, no_commit=no_commit, cached=cached)

    @tool("Check a response", readOnlyHint=True)
    def check_response(response: Response, branch: Branch = None, format: FormatParam = None,
                       include_dirty: IncludeDirty = None, three_way: ThreeWay = None,
                       diff: Diff = False, verbose: Verbose = False,
                       syntax_check: SyntaxCheck = None) -> ApplyOutcome:
        """Check whether a response would apply, writing nothing: status would-apply (with
        the files and, with diff, the resulting diff) or refused with error_text."""
        return run(response, check=True, branch=branch, format=format,
                   include_dirty=include_dirty, three_way=three_way, diff=diff,
                   verbose=verbose, syntax_check=syntax_check)

    @server.tool(title="Show files with line ids", structured_output=False,
                 annotations=ToolAnnotations(title="Show files with line ids",
                                             readOnlyHint=True, openWorldHint=False))
    @_tool_errors_of(tool_error)
    def show_files(
            paths: Annotated[list[str], Field(description=(
                "files to show, relative to the repository root"))],
            rev: Annotated[Optional[str], Field(None, description=(
                "show them as in this commit (default: the worktree)"))] = None) -> str:
        """Show files with a LINE#ID prefix on every line, the ids hashline edits refer
        to."""
        return session.show(*paths, rev=rev)

    # resets the branch and the files: destructive, and each call takes back one more
    @tool("Undo the last apply", readOnlyHint=False, destructiveHint=True,
          idempotentHint=False)
    def undo_last_apply(
            force: Annotated[bool, Field(False, description=(
                "undo even when the commit is already in a remote-tracking branch"))] = False,
            batch: Annotated[bool, Field(False, description=(
                "take back every commit of the last run of several responses"))] = False,
    ) -> UndoOutcome:
        """Take back the last commit git ai-apply made, if it is still HEAD as made and its
        files are unchanged since (called again: the one before); otherwise refused and
        nothing changes."""
        return UndoOutcome(**session.undo_json(force=force, batch=batch))

    # new branches (or a commit on a job's existing branch); the same jobs again are
    # already-applied: additive and idempotent
    @tool("Apply many responses, each onto its own branch", readOnlyHint=False,
          destructiveHint=False, idempotentHint=True)
    def batch_apply(
            jobs: Annotated[list[dict], Field(description=(
                "the jobs, each {\"id\": ID, \"response\": TEXT or a chat API's JSON, or "
                "\"response_file\": PATH, \"repo\": PATH (default: this repository), "
                "\"base\": REV (default HEAD), \"branch\": NAME (default ai/batch/{id}), "
                "\"options\": {...}} (docs/BATCH.md)"))]) -> BatchOutcome:
        """Apply each job's response onto its base commit as a commit on its own branch,
        without touching the worktree, the index or HEAD.  Returns one result per job, in
        order: the apply outcome plus id, branch and diff (against the base); a refused
        response or a bad job is a result too."""
        return BatchOutcome(results=batch_results(session, jobs))

    for fmt in PROMPTS:
        _add_format_prompt(server, fmt, prompt_for(fmt))
    return server


def batch_results(session, jobs: list) -> list[dict]:
    """The batch_apply tool's results: ``jobs`` run in this process, in order, a job
    naming no repository run in the server's."""
    from .batch import run_groups
    from .batch_jobs import one_branch_each, read_jobs

    defaults = {"repo": session.workdir or "."}
    read = one_branch_each(read_jobs(jobs), defaults)
    return list(run_groups([read], defaults=defaults))


def _tool_errors_of(tool_error):
    return lambda fn: _tool_errors(fn, tool_error)


def _add_format_prompt(server, fmt: str, text: str) -> None:
    """``prompt FORMAT``'s instructions as an MCP prompt named ``format-FMT``."""

    def instructions() -> str:
        return text

    server.prompt(name=f"format-{fmt}", description=(
        f"System-prompt instructions for answering in the {fmt} format, the edits "
        "git ai-apply reads"))(instructions)
