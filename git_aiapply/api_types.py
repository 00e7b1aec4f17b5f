"""The types of the library's arguments (docs/API.md), for type checkers and for programs
that wrap the library: what a response may be, and the options as typed dictionaries.

The package imports this module only for type checkers (``if TYPE_CHECKING:``): it loads
`typing`, which the command's start-up does without."""
import os
from typing import Any, Literal, TypeAlias, TypedDict

# a response: its text, its bytes, a path-like object naming a file, or a chat-API JSON
# object (a conversation: a list)
ResponseInput: TypeAlias = (str | bytes | bytearray | memoryview | os.PathLike[str]
                            | os.PathLike[bytes] | dict[str, Any] | list[Any])

# Result.status (docs/JSON.md; pipeline.Status's values)
Status: TypeAlias = Literal["applied", "staged", "would-apply", "already-applied", "no-change", "empty",
                            "refused", "fatal"]
# UndoResult.status (docs/JSON.md, `undo --json`; a fatal stop is raised as FatalError)
UndoStatus: TypeAlias = Literal["undone", "refused"]
# UndoFile.action: what undo did to a path
UndoAction: TypeAlias = Literal["revert", "remove", "restore"]
# Result.fault: whose fault a refusal or a stop is (errors.fault_of)
Fault: TypeAlias = Literal["response", "repository", "usage", "internal"]


class PathOptions(TypedDict, total=False):
    """The options that only change the response's paths: ``parse`` takes them too."""

    strip: int | None
    directory: str | None
    include: str | list[str] | tuple[str, ...] | None
    exclude: str | list[str] | tuple[str, ...] | None


class ApplyOptions(PathOptions, total=False):
    """The options of ``apply`` and ``check`` (docs/API.md); None means "not given"."""

    check: bool | None
    diff: bool | None
    include_dirty: bool | None
    allow_empty: bool | None
    force: bool | None
    three_way: bool | None
    verbose: bool | None
    format: str | None
    message: str | None
    no_verify: bool | None
    verify: bool | None
    branch: str | None
    base: str | None
    signoff: bool | None
    sign: bool | None
    trailers: bool | None
    max_bytes: int | None
    author: str | None
    date: str | None
    no_commit: bool | None
    cached: bool | None
    syntax_check: str | None
