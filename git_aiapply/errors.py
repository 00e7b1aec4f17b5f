"""Errors the tool reports.  Every refusal is an ``ApplyError`` (exit 1: the response's
fault); a bad call is a ``UsageError`` (exit 2); the repository or the environment stopping
the run (not a repository, ``index.lock`` held, a merge in progress, signing failed, a disk
error) is a ``FatalError`` (exit 128, ``fatal:`` as git).  Nothing else may reach the user:
the CLI turns any other exception into a one-line internal error, never a traceback."""
from __future__ import annotations

from enum import StrEnum

from .record import field, record

TYPE_CHECKING = False  # `typing` stays off the start-up path (record.py)
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, Literal


@record
class Problem:
    """One reason a response cannot be applied, worded so it can go back to the model."""

    reason: str  # one sentence: what is wrong
    file: str | None = None
    directive: str | None = None  # e.g. 'FILE_PATCH src/app.py'
    edit: int | None = None  # 1-based edit (hunk/chunk/SEARCH block/op) number
    edit_first_line: str | None = None
    hint: str | None = None  # what to do instead
    nearby: list[tuple[int, str]] = field(default_factory=list)  # (line number, text) of the file
    nearby_label: str = "closest lines in the file"
    nearby_refs: bool = False  # hashline: each nearby text is already "LINE#ID:text"
    candidates: list[int] = field(default_factory=list)  # line numbers (ambiguity)
    response_line: int | None = None  # line in the response (parse errors)

    def render(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.directive and (not self.file or self.file not in self.directive):
            where.append(self.directive)
        elif self.directive and self.file and self.directive != self.file:
            where = [self.directive]
        if self.edit is not None:
            first = (self.edit_first_line or "").strip()
            if len(first) > 60:
                first = first[:57] + "..."
            where.append(f"edit {self.edit}" + (f" ({first!r})" if first else ""))
        if self.response_line:
            where.append(f"response line {self.response_line}")
        head = ": ".join([", ".join(where), self.reason]) if where else self.reason
        out = [head]
        if self.nearby:
            out.append(f"  {self.nearby_label}:")
            width = len(str(max(n for n, _ in self.nearby)))
            for n, text in self.nearby:
                out.append(f"  {text}" if self.nearby_refs else f"  {n:>{width}} | {text}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(printable(line) for line in out)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any]
        d = {
            "reason": self.reason,
            "file": self.file,
            "directive": self.directive,
            "edit": self.edit,
            "edit_first_line": self.edit_first_line,
            "hint": self.hint,
            "response_line": self.response_line,
        }
        if self.nearby:
            if self.nearby_refs:  # "12#ab:text" -> the line's own text and its reference
                d["nearby"] = [{"line": n, "ref": t.split(":", 1)[0], "text": t.split(":", 1)[1]}
                               for n, t in self.nearby]
            else:
                d["nearby"] = [{"line": n, "text": t} for n, t in self.nearby]
        if self.candidates:
            d["candidates"] = list(self.candidates)
        return d


# Control characters (but tab and newline) as visible escapes: a path or a line from a
# response, a file or a hook must never drive the terminal (colours, cursor, title).
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f,
                                        *range(0x80, 0xa0)]}


def printable(text: str) -> str:
    return text.translate(_CONTROLS)


class AiApplyError(Exception):
    exit_code = 1
    # the files a rollback left as someone changed them meanwhile (transaction.raise_with_kept)
    kept: list[str] | None = None


class ApplyError(AiApplyError):
    """The response is refused; nothing was changed."""

    exit_code = 1

    def __init__(self, problems: "list[Problem] | Problem | str", kind: str = "refused"):
        kind = known_kind(kind)  # an ErrorKind, typed as the str it is (docs/API.md)
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = problems
        self.kind = kind
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)


class ParseError(ApplyError):
    """The response text is malformed (a block opened and never closed, a bad header)."""

    def __init__(self, reason: str, *, line: int | None = None, directive: str | None = None,
                 file: str | None = None, hint: str | None = None):
        super().__init__(Problem(reason, file=file, directive=directive, response_line=line, hint=hint),
                         kind=ErrorKind.PARSE)


class UsageError(AiApplyError):
    exit_code = 2


class FatalError(AiApplyError):
    """The repository's state or the environment stopped the run; nothing was changed and
    nothing is wrong with the response (exit 128, printed as ``fatal: MESSAGE``).

    ``kind`` names the cause for ``--json``'s ``error_kind`` (``lock``, ``state``,
    ``repository``, ``signing``, ``io``, ...)."""

    exit_code = 128

    def __init__(self, message: str, kind: str = "environment", hint: str | None = None):
        self.message = message
        self.kind: str = known_kind(kind)  # an ErrorKind, typed as the str it is (docs/API.md)
        self.hint = hint  # what to do about it (--json's errors[0].hint; printed after)
        super().__init__(message)


class ErrorKind(StrEnum):
    """Every ``error_kind`` (``ApplyError.kind``, ``FatalError.kind``, --json's
    ``error_kind``, docs/JSON.md), grouped by whose fault it is (``fault_of``)."""

    # the response's: send error_text back to the model
    PARSE = "parse"
    EMPTY = "empty"
    REFUSED = "refused"
    HOOK = "hook"  # the hooks judged the result of its edits
    TRUNCATED = "truncated"  # the chat API says the answer was cut off
    # the repository's or the environment's (ApplyError: exit 1; FatalError: 128)
    DIRTY = "dirty"
    CONFLICT = "conflict"
    LOCK = "lock"
    STATE = "state"
    REPOSITORY = "repository"
    SIGNING = "signing"
    IO = "io"
    CONFIG = "config"
    FILTER = "filter"
    INDEX = "index"
    ENVIRONMENT = "environment"
    # the command line's
    USAGE = "usage"
    MESSAGE = "message"
    # a bug
    INTERNAL = "internal"


def known_kind(kind: str) -> ErrorKind:
    """``kind`` as an ErrorKind; ValueError for any other value: an ``error_kind`` a
    program cannot look up in docs/JSON.md must never be written."""
    return ErrorKind(kind)


_RESPONSE_KINDS = {ErrorKind.PARSE, ErrorKind.EMPTY, ErrorKind.REFUSED, ErrorKind.HOOK,
                   ErrorKind.TRUNCATED}
_USAGE_KINDS = {ErrorKind.USAGE, ErrorKind.MESSAGE}


def fault_of(kind: str | None) -> str | None:
    """"response", "repository", "usage" or "internal" for an ``error_kind`` (None: none)."""
    if kind is None:
        return None
    if kind in _RESPONSE_KINDS:
        return "response"
    if kind in _USAGE_KINDS:
        return "usage"
    if kind == ErrorKind.INTERNAL:
        return "internal"
    return "repository"  # every FatalError kind, and any new one: not the response's fault


# A missing or damaged object or reference store is the repository's trouble, not a bug:
# `fatal:` and exit 128, in git's words where git has them.  Only what pygit2 raises counts
# (its GitError of libgit2's, and the KeyError its own lookups raise for an object id);
# a KeyError of our own lookups stays an internal error.  pygit2's ValueError kinds
# (an invalid spec, a name that exists, an ambiguous one) are what we asked wrongly.
STORE_HINT = "the repository is damaged: `git fsck` names what is missing or broken"


def store_fatal(e: BaseException) -> FatalError | None:
    """The FatalError (``repository``) that ``e`` stands for when the object or reference
    store failed (a missing object, a corrupt pack or packed-refs), else None."""
    import sys

    pygit2 = sys.modules.get("pygit2")
    if pygit2 is None or isinstance(e, ValueError):
        return None
    if isinstance(e, pygit2.GitError):
        text = str(e)
    elif type(e) is KeyError and _raised_in(e, pygit2) and len(e.args) == 1:
        text = str(e.args[0])  # Repository[id]: the id it could not read
    else:
        return None
    import re

    found = re.search(r"\b(?:[0-9a-f]{64}|[0-9a-f]{40})\b", text)
    if found is not None and (isinstance(e, KeyError) or "not found" in text):
        message = f"unable to read {found.group(0)}"  # git's words for an object it lacks
    elif isinstance(e, KeyError):  # a name not found (a ref, a config key): ours to handle
        return None
    else:
        message = text.strip("'\"") or type(e).__name__
    fatal = FatalError(message, kind=ErrorKind.REPOSITORY, hint=STORE_HINT)
    fatal.kept = getattr(e, "kept", None)
    return fatal


def _raised_in(e: BaseException, module: Any) -> bool:
    """Whether ``e`` was raised by ``module``'s own Python code (its innermost frame)."""
    import os

    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    home = os.path.dirname(module.__file__) + os.sep
    return tb.tb_frame.f_code.co_filename.startswith(home)


class store_errors_fatal:
    """A block in which an error of the object or reference store is raised as the
    FatalError it stands for (store_fatal); any other error passes as it is."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, etype: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        fatal = store_fatal(exc) if isinstance(exc, Exception) else None
        if fatal is not None:
            raise fatal from exc
        return False
