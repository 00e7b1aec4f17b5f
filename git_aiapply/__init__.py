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
    "apply": "api", "check": "api", "parse": "api", "show": "api", "undo": "api",
    "session": "api", "Session": "api", "Result": "api", "FileResult": "api",
    "ErrorDetail": "api", "NearbyLine": "api", "Parsed": "api", "InvalidOptions": "api",
    "ApplyError": "errors", "FatalError": "errors", "UsageError": "errors",
    "Problem": "errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'git_aiapply' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
