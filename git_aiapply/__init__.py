"""git ai-apply: turn a language model's response into one git commit.

The library (docs/API.md)::

    import git_aiapply
    result = git_aiapply.apply(text, repo="path/to/repo")
    if result.status == "refused":
        print(result.error_text)

Every name below is loaded on first use: ``import git_aiapply`` stays as cheap as the
command's start-up needs (no pygit2, no click).
"""

__version__ = "0.1.0"

# name -> module that defines it
_EXPORTS = {
    "apply": "doors.api", "check": "doors.api", "parse": "doors.api", "show": "doors.api", "undo": "doors.api",
    "session": "doors.api", "Session": "doors.api", "Result": "doors.api", "FileResult": "doors.api",
    "ErrorDetail": "doors.api", "NearbyLine": "doors.api", "Parsed": "doors.api", "InvalidOptions": "doors.api",
    "UndoResult": "doors.api", "UndoFile": "doors.api",
    "batch": "doors.batch", "BatchResult": "doors.batch",
    "ApplyError": "errors", "FatalError": "errors", "UsageError": "errors",
    "Problem": "errors",
}
# a literal list, which type checkers read for `from git_aiapply import *` (the names of
# _EXPORTS, sorted: tests/test_typing.py)
__all__ = [
    "ApplyError", "BatchResult", "ErrorDetail", "FatalError", "FileResult", "InvalidOptions",
    "NearbyLine", "Parsed", "Problem", "Result", "Session", "UndoFile", "UndoResult",
    "UsageError", "apply", "batch", "check", "parse", "session", "show", "undo",
]

# Type checkers see the names as plain imports (``X as X``: re-exported under --strict);
# at run time they stay lazy, and `typing` is not imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .doors.api import ErrorDetail as ErrorDetail
    from .doors.api import FileResult as FileResult
    from .doors.api import InvalidOptions as InvalidOptions
    from .doors.api import NearbyLine as NearbyLine
    from .doors.api import Parsed as Parsed
    from .doors.api import Result as Result
    from .doors.api import Session as Session
    from .doors.api import UndoFile as UndoFile
    from .doors.api import UndoResult as UndoResult
    from .doors.api import apply as apply
    from .doors.api import check as check
    from .doors.api import parse as parse
    from .doors.api import session as session
    from .doors.api import show as show
    from .doors.api import undo as undo
    from .doors.batch import BatchResult as BatchResult
    from .doors.batch import batch as batch
    from .errors import ApplyError as ApplyError
    from .errors import FatalError as FatalError
    from .errors import Problem as Problem
    from .errors import UsageError as UsageError
else:
    # hidden from type checkers, so that a misspelt name is an error there, not `object`
    def __getattr__(name: str) -> object:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'git_aiapply' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
