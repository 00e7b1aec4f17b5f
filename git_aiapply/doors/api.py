"""The library: ``git_aiapply.apply(response, repo=".", **options)`` and friends.

Everything here has the command's semantics (docs/API.md): the same parsing, locating,
transaction and commit, the same ``--json`` fields in a typed, frozen ``Result``.  A
refused response is a ``Result`` with ``status == "refused"``; a bad call raises
``UsageError`` (also a ``ValueError``); the repository or the environment stopping the
run raises ``FatalError`` (the command's exit 128).

A ``Session`` keeps the repository and its index warm between calls (the module-level
functions keep one per repository): the index, which libgit2 reads in full with its
checksum on every run, is read again only when the file changed on disk.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from ..errors import (AiApplyError, ApplyError, ErrorKind, FatalError, UsageError,
                      store_errors_fatal)

__all__ = [
    "apply", "check", "parse", "show", "undo", "Session", "Result", "FileResult",
    "ErrorDetail", "NearbyLine", "Parsed", "InvalidOptions", "UndoResult", "UndoFile",
    "EditResult", "KeptLines", "Suggestion",
]

TYPE_CHECKING = False  # the names below are for type checkers: `typing` stays unimported
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import TracebackType
    from typing import Any, Literal, TypeAlias, TypeVar, Unpack

    from ..api_types import ApplyOptions, PathOptions, ResponseInput
    from ..errors import Problem
    from ..git.repo import GitError, Repo, Repository
    from ..ops import Operation
    from ..run.pipeline import Outcome
    from ..run.prepare import Prepared
    from ..answer.response import Response

    # a repository: a folder of its worktree, a pygit2.Repository, or a warm Session
    _RepoInput: TypeAlias = "str | os.PathLike[str] | Repository | Session"
    _T = TypeVar("_T")


# the results, here for the package's face (git_aiapply.Result ...) and older imports
from .results import (EditResult, ErrorDetail, FileResult, KeptLines, NearbyLine, Result,
                      Suggestion, UndoFile, UndoResult)


class InvalidOptions(UsageError, ValueError):
    """An option the command would refuse as a usage error (exit 2)."""


@dataclass(frozen=True)
class Parsed:
    """A response read and parsed, without a repository: its operations (the records of
    ``git_aiapply.ops``: NewFile, EditFile, HashlineEdit, DeleteFile, RenameFile,
    SetMode), in order, and what the commit message would be made from."""

    operations: tuple[Operation, ...]
    formats: tuple[str, ...]
    explanation: str
    descriptions: tuple[tuple[str, str], ...]
    response_id: str
    model: str | None


# --------------------------------------------------------------------------- options

# name -> (type, what the command line calls it)
_OPTION_TYPES: dict[str, tuple[type | tuple[type, ...], str]] = {
    "check": (bool, "--check"),
    "diff": (bool, "--diff"),
    "include_dirty": (bool, "--include-dirty"),
    "allow_empty": (bool, "--allow-empty"),
    "force": (bool, "--force"),
    "three_way": (bool, "-3 / --3way"),
    "format": (str, "--format"),
    "message": (str, "-m"),
    "no_verify": (bool, "--no-verify"),
    "verify": (bool, "--verify"),
    "branch": (str, "--branch"),
    "base": (str, "--base"),
    "signoff": (bool, "--signoff"),
    "sign": (bool, "-S / --no-gpg-sign"),
    "trailers": (bool, "--no-trailers"),
    "max_bytes": (int, "--max-bytes"),
    "strip": (int, "-p"),
    "directory": (str, "--directory"),
    "include": ((str, list, tuple), "--include"),
    "exclude": ((str, list, tuple), "--exclude"),
    "author": (str, "--author"),
    "date": (str, "--date"),
    "verbose": (bool, "-v / --verbose"),
    "no_commit": (bool, "--no-commit"),
    "cached": (bool, "--cached"),
    "syntax_check": (str, "--syntax-check"),
}
# the options that only change the response's paths: parse() takes them too
PATH_OPTIONS = ("strip", "directory", "include", "exclude")
OPTION_NAMES = tuple(_OPTION_TYPES)


def validate_options(options: Mapping[str, object]) -> dict[str, Any]:
    """The options checked as the command checks its own: unknown names, wrong types and
    combinations the command refuses raise ``InvalidOptions`` (the combinations are
    prepare.check_request's, the one check every front door runs)."""
    from ..run.prepare import check_request

    out = typed_options(options)
    _in_library_words(lambda: check_request(out, option_word))
    return out


def _in_library_words(call: Callable[[], _T]) -> _T:
    """``call()``, an option the command refuses (its UsageError, worded by
    ``option_word``) raised as the library's ``InvalidOptions``, a bad call."""
    try:
        return call()
    except InvalidOptions:
        raise
    except UsageError as e:
        raise InvalidOptions(str(e)) from None


def option_word(name: str) -> str:
    """An option as the library's errors name it: its name, then the command's flag."""
    return f"{name} ({_OPTION_TYPES[name][1]})"


def typed_options(options: Mapping[str, object]) -> dict[str, Any]:
    """The options given (None is "not given": left out), each of its type
    (``_OPTION_TYPES``), the patterns as tuples, a branch a name the library can use;
    ``InvalidOptions`` otherwise.  Their combinations are checked by prepare.py."""
    unknown = sorted(set(options) - set(_OPTION_TYPES))
    if unknown:
        raise InvalidOptions(f"unknown option{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(map(repr, unknown))}; known options: "
                             f"{', '.join(OPTION_NAMES)}")
    out = {name: _typed(name, value) for name, value in options.items() if value is not None}
    _check_branch_name(out.get("branch"))
    return out


def _typed(name: str, value: object) -> Any:
    """One option's value, checked against its type in ``_OPTION_TYPES``."""
    kind, flag = _OPTION_TYPES[name]
    if name in ("include", "exclude"):
        patterns = (value,) if isinstance(value, str) else value
        if not isinstance(patterns, (list, tuple)) or not all(
                isinstance(v, str) for v in patterns):
            raise InvalidOptions(f"option {name} ({flag}) takes a pattern (str) or a list "
                                 f"of them, not {value!r}")
        return tuple(patterns)
    assert isinstance(kind, type)  # the one tuple kind, the patterns', was read above
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidOptions(f"option {name} ({flag}) takes a {kind.__name__}, "
                             f"not {type(value).__name__} {value!r}")
    return value


def _check_branch_name(branch: str | None) -> None:
    """The library applies one response per call: a branch is a name, not a template."""
    if branch is None:
        return
    if "{n}" in branch or "{name}" in branch:
        raise InvalidOptions(f"branch {branch!r} is a template; the library applies one "
                             "response at a time: name its branch (see docs/API.md)")
    from ..git.refs import branch_refname

    _in_library_words(lambda: branch_refname(branch))


# --------------------------------------------------------------------------- the warm index


# --------------------------------------------------------------------------- sessions


def _response_bytes(response: ResponseInput, name: str | None,
                    read_limit: int | None = None) -> tuple[bytes, str]:
    """(raw bytes, name) of a response given as text, bytes, a path or a parsed chat-API
    JSON object; of a file, at most ``read_limit`` bytes are read."""
    if isinstance(response, str):
        try:
            return response.encode("utf-8", "surrogateescape"), name or "response"
        except UnicodeEncodeError as e:
            raise InvalidOptions(f"the response text holds a character that is not UTF-8 "
                                 f"(position {e.start}): pass bytes for raw data") from None
    if isinstance(response, (bytes, bytearray, memoryview)):
        return bytes(response), name or "response"
    if isinstance(response, os.PathLike):
        path = os.fspath(response)
        try:
            with open(path, "rb") as f:
                return f.read(-1 if read_limit is None else read_limit), \
                    name or os.fsdecode(path)
        except OSError as e:
            raise UsageError(f"cannot read {os.fsdecode(path)}: {e.strerror}") from None
    if isinstance(response, dict) or isinstance(response, list):
        import json

        return json.dumps(response).encode("utf-8"), name or "response"
    raise InvalidOptions("response must be str (the text), bytes, a path-like object (a file) "
                         f"or a chat-API JSON object (dict), not {type(response).__name__}")


def _refused(response_obj: Response, problems: list[Problem], kind: str) -> Outcome:
    from ..run.pipeline import Outcome, Status

    return Outcome(response_obj, Status.REFUSED, 1, problems=problems, error_kind=kind)


class _Held:
    """A session's lock (one call at a time; reentrant), in which an error of the object or
    reference store is raised as the FatalError it stands for (errors.store_fatal): every
    call of the library, serve and mcp answers a damaged repository as the command does."""

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, etype: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        self._lock.release()
        return store_errors_fatal().__exit__(etype, exc, tb)


class Session:
    """One repository, kept open with its index warm, for a loop of calls.

    ``Session(repo)`` opens the repository git would use from folder ``repo`` (``GIT_DIR``
    and friends honoured); its methods are those of the module.  ``warm=False`` reads the
    index from disk for every call (for measuring what the warm index gains).  A session
    may be shared by threads: calls run one at a time."""

    def __init__(self, repo: str | os.PathLike[str] = ".", *, warm: bool = True) -> None:
        from ..git.repo import Repo

        start = os.fspath(repo)
        if not os.path.isdir(start):  # git -C FOLDER's words
            raise FatalError(f"cannot change to '{start}': "
                             f"{'Not a directory' if os.path.exists(start) else 'No such file or directory'}",
                             kind=ErrorKind.REPOSITORY)
        try:
            self.repo = Repo(start)
        except UsageError as e:  # not a repository: the environment, as git's exit 128
            raise FatalError(str(e), kind=ErrorKind.REPOSITORY) from None
        # warm=False reads the index anew for every call, as a new process would
        from .warm_index import IndexCache

        self.repo.index_cache = IndexCache() if warm else None
        self._gitdir_id = _dir_id(self.repo.gitdir)
        self._lock = _Held()

    @property
    def workdir(self) -> str | None:
        return self.repo.workdir

    def is_current(self) -> bool:
        """False when the repository folder was removed or replaced since it was opened."""
        return _dir_id(self.repo.gitdir) == self._gitdir_id

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Drop the warm index and release the repository's open files (a later call
        opens them again: the session stays usable)."""
        with self._lock:
            if self.repo.index_cache is not None:
                self.repo.index_cache.clear()
            self.repo.free()

    def apply(self, response: ResponseInput, *, name: str | None = None,
              **options: Unpack[ApplyOptions]) -> Result:
        """Apply one response; with ``check=True`` or ``diff=True`` (``--diff``: the change
        in ``result.diff``) only try it, writing nothing.  See ``apply``."""
        return Result.from_json(self.apply_json(response, name=name, **options))

    def apply_json(self, response: ResponseInput, *, name: str | None = None,
                   **options: Unpack[ApplyOptions]) -> dict[str, Any]:
        """``apply``'s outcome as the command's ``--json`` object (a dict), the one shape
        ``serve`` and ``mcp`` answer with; the same exceptions."""
        opts = typed_options(options)  # their combinations: prepare.py, in _apply
        limit = self._read_limit(opts) if isinstance(response, os.PathLike) else None
        raw, name = _response_bytes(response, name, limit)
        with self._lock:
            outcome = self._apply(raw, name, opts)
        return outcome.to_json()

    def _read_limit(self, opts: dict[str, object]) -> int | None:
        """How much of a response file to read: one byte past the limit is enough for
        read_response to refuse it (None: no limit)."""
        from ..run.prepare import max_response_bytes

        max_bytes = opts.get("max_bytes")
        if max_bytes is None:
            with self._lock:
                self.repo.forget_config()
                max_bytes = max_response_bytes(self.repo)
        assert isinstance(max_bytes, int)
        # a negative one is refused by prepare.check_request, before anything is applied
        return max_bytes + 1 if max_bytes > 0 else None

    def check(self, response: ResponseInput, *, name: str | None = None,
              **options: Unpack[ApplyOptions]) -> Result:
        options["check"] = True  # a dict of this call's own
        return self.apply(response, name=name, **options)

    def show(self, *paths: str, rev: str | None = None) -> str:
        """The hashline view of files (paths relative to the worktree root), as
        ``git ai-apply show`` prints it."""
        with self._lock:
            self.repo.forget_config()
            return "\n".join(hashline_view(self.repo, p, rev) for p in paths)

    def undo(self, force: bool = False, batch: bool = False) -> UndoResult:
        """Take back the last commit this tool made (``batch``: every commit of the last
        run); a refusal is a result too."""
        return UndoResult.from_json(self.undo_json(force=force, batch=batch))

    def undo_json(self, force: bool = False, batch: bool = False) -> dict[str, Any]:
        """``undo``'s outcome as ``git ai-apply undo --json``'s object (a dict), what
        ``mcp`` answers with; the same exceptions."""
        from ..workflows.undo_last import refusal_object, undo as undo_head

        with self._lock:
            self.repo.forget_config()
            try:
                done = undo_head(self.repo, force=force, batch=batch)
            except ApplyError as e:
                return refusal_object(e)
            except (OSError, _git_error()) as e:
                raise FatalError(f"cannot undo: {e}", kind=ErrorKind.IO) from None
            return dict(done, exit_code=0)

    # -- the work ------------------------------------------------------------------------
    def _apply(self, raw: bytes, name: str, opts: dict[str, Any]) -> Outcome:
        """One response; an mbox of several `git format-patch` mails is several, as
        ``git am`` and the command take it (``_apply_mails``)."""
        from ..run.inputs import mails_of

        mails = mails_of(name, raw)
        if len(mails) > 1:
            return self._apply_mails(mails, opts)
        return self._apply_one(raw, name, opts)

    def _apply_mails(self, mails: list[tuple[str, bytes]], opts: dict[str, Any]) -> Outcome:
        """Each mail its own commit, in order, stopping at the first that is refused (as
        ``git am``; check and diff judge each on top of the ones before it).  The outcome
        is the last mail's, its note naming what the mails before it made."""
        from ..run.pipeline import Status

        earlier: dict[str, Any] = {}
        done: list[str] = []
        for k, (name, raw) in enumerate(mails, 1):
            o = self._apply_one(raw, name, opts, after=earlier)
            if o.status == Status.WOULD_APPLY and o.plan is not None:
                earlier.update(o.plan.final)
            if o.exit_code or k == len(mails):
                break
            done.append(o.commit[:12] if o.commit else o.status)
        if done:
            made = ", ".join(done)
            o.note = "; ".join(filter(None, [f"mail {k} of {len(mails)}; the mails before it: "
                                             f"{made}", o.note]))
        return o

    def _apply_one(self, raw: bytes, name: str, opts: dict[str, Any],
                   after: dict[str, Any] | None = None) -> Outcome:
        from functools import partial

        from ..run.pipeline import apply_one
        from ..run.prepare import lock_index_ahead, options_for, with_identity
        from ..answer.response import read_response

        repo = self.repo
        repo.forget_config()  # `git config` may have run since the last request
        from .warm_index import IndexCache

        cache = repo.index_cache or IndexCache()  # cold: a cache nothing consults
        try:
            cache.note_head(repo.head())
            prepared = _prepare(repo, opts)
            options = options_for(repo, prepared)
            try:
                response = read_response(raw, name=name, max_bytes=prepared.max_bytes)
            except ApplyError as e:
                from ..answer.response import blank_response

                return _refused(blank_response(name), e.problems, e.kind)
            lock_index_ahead(repo, prepared)  # read the index while the response is parsed
            try:
                judged = after if after is not None and (options.check or options.diff) else None
                outcome: Outcome = with_identity(prepared, partial(apply_one, after=judged),
                                                 repo, response, options)
                return outcome
            finally:
                repo.release_index_lock()
        except AiApplyError:
            raise
        except (OSError, _git_error()) as e:
            cache.clear()
            raise FatalError(f"{e}", kind=ErrorKind.IO) from None
        finally:
            try:
                cache.left_head(repo.head())
            except Exception:
                cache.clear()


def path_limits(opts: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The include and exclude options as the command's ordered --include/--exclude list:
    the excludes first, so a path matching one is left out even if an include matches it."""
    return (tuple(("exclude", p) for p in opts.get("exclude", ()))
            + tuple(("include", p) for p in opts.get("include", ())))


def _prepare(repo: Repo, opts: dict[str, Any]) -> Prepared:
    """The run made ready as the command makes it (prepare.py); an option the command
    refuses is InvalidOptions here, a bad call."""
    from ..run.prepare import prepare

    request = dict(opts, limits=path_limits(opts))
    # FatalError as the command's
    return _in_library_words(lambda: prepare(repo, request, words=option_word))


def _git_error() -> type[GitError]:
    from ..git.repo import GitError

    return GitError


def _dir_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def hashline_view(repo: Repo, path: str, rev: str | None = None) -> str:
    """One file's ``<FILE_CONTENT>`` view with ``LINE#ID`` prefixes: the worktree's file,
    or REV's.  ``path`` is relative to the worktree root (absolute inside it accepted)."""
    from ..git.state import read_disk
    from ..locate.hashline import render_view
    from ..paths import normalize_path

    root = repo.workdir or ""
    try:
        path = normalize_path(path, worktree=root)
    except ApplyError as e:
        raise UsageError(e.render()) from None
    if rev or not root:
        from ..git.commits import file_at_revision

        data = file_at_revision(repo, rev or "HEAD", path)
    else:
        st = read_disk(root, path)
        if st is None:
            raise UsageError(f"cannot read {path}")
        data = st.data
    return render_view(path, data)


# --------------------------------------------------------------------------- module level

_SESSIONS: dict[tuple[str, str, tuple[str | None, ...]], Session] = {}
_SESSIONS_GUARD = threading.Lock()
_MAX_SESSIONS = 8
# what decides which repository a folder means, besides the folder itself
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
             "GIT_DISCOVERY_ACROSS_FILESYSTEM")


def session(repo: _RepoInput = ".") -> Session:
    """The warm session of the repository at ``repo`` (opened on first use, kept for the
    next calls; at most eight are kept)."""
    if isinstance(repo, Session):
        return repo
    if not isinstance(repo, (str, os.PathLike)):
        if not type(repo).__module__.startswith("pygit2"):
            raise InvalidOptions("repo must be a folder (str or path-like object), a "
                                 f"pygit2.Repository or a Session, not {type(repo).__name__}")
        repo = repo.workdir or repo.path  # a pygit2.Repository
    start = os.path.realpath(os.fspath(repo))
    # the folder, and what else decides which repository it means (a relative GIT_DIR is
    # read from the current folder)
    key = (start, os.getcwd(), tuple(os.environ.get(k) for k in _REPO_ENV))
    with _SESSIONS_GUARD:
        s = _SESSIONS.pop(key, None)
        if s is None or not s.is_current():
            s = Session(start)
        _SESSIONS[key] = s  # most recently used last
        while len(_SESSIONS) > _MAX_SESSIONS:
            _SESSIONS.pop(next(iter(_SESSIONS)))
        return s


def apply(response: ResponseInput, repo: _RepoInput = ".", *, name: str | None = None,
          **options: Unpack[ApplyOptions]) -> Result:
    """Apply one response to ``repo`` and commit, as ``git ai-apply --json`` does.

    ``response``: the text (str), its bytes, a path-like object naming a file, or a
    chat-API JSON object (dict).  ``options``: check, diff, include_dirty, allow_empty,
    format, message, no_verify, verify, branch, base, signoff, sign, trailers, max_bytes,
    strip, directory, include, exclude, author, date, verbose, no_commit, cached,
    three_way, syntax_check.  ``diff=True`` is the command's ``--diff``: nothing is
    written, ``status`` is ``would-apply`` and ``result.diff`` holds the change as a git
    diff (to see the diff of an applied commit, ``git show`` it).
    Returns a ``Result`` (a refusal too); raises ``InvalidOptions`` / ``UsageError`` for a
    bad call and ``FatalError`` when the repository or the environment stopped it."""
    return session(repo).apply(response, name=name, **options)


def check(response: ResponseInput, repo: _RepoInput = ".", *, name: str | None = None,
          **options: Unpack[ApplyOptions]) -> Result:
    """Would ``response`` apply?  ``apply(..., check=True)``: nothing is written."""
    return session(repo).check(response, name=name, **options)


def show(*paths: str, repo: _RepoInput = ".", rev: str | None = None) -> str:
    """Files with hashline ids (``LINE#ID:text``), for a model's prompt."""
    return session(repo).show(*paths, rev=rev)


def undo(repo: _RepoInput = ".", force: bool = False,
         batch: bool = False) -> UndoResult:
    """Take back the last commit this tool made (an ``UndoResult``: the fields of ``git
    ai-apply undo --json``'s object; a refusal too); called again, the one before;
    ``batch``: every commit of the last run."""
    return session(repo).undo(force=force, batch=batch)


def parse(response: ResponseInput, *, format: str | None = None,
          **path_options: Unpack[PathOptions]) -> Parsed:
    """A response's operations, without a repository, read as the command reads them: the
    text's change blocks and a chat-API answer's edit tool calls, in answer order.
    ``path_options``: strip, directory, include, exclude (as for ``apply``).  Raises
    ``ApplyError`` (with ``.problems``) when the response is refused for what it says: a
    block that is never closed, an answer cut off, an edit of an unknown tool."""
    from ..answer.response import read_response
    from ..answer.toolcalls import parse_with_tools

    not_paths = sorted(set(path_options) - set(PATH_OPTIONS))
    if not_paths:
        raise InvalidOptions(f"parse takes format and the path options "
                             f"({', '.join(PATH_OPTIONS)}), not {', '.join(not_paths)}")
    opts = validate_options(dict(path_options, format=format))
    raw, name = _response_bytes(response, None)
    resp = read_response(raw, name=name, max_bytes=0)
    p = parse_with_tools(resp, only=format)
    ops = p.ops
    limits = path_limits(opts)
    if ops and (opts.get("strip") is not None or opts.get("directory") is not None or limits):
        from ..run.limits import limit_ops

        ops = limit_ops(ops, opts.get("strip"), opts.get("directory"), limits)
    return Parsed(tuple(ops), tuple(p.formats), p.explanation,
                  tuple(tuple(d) for d in p.descriptions), resp.response_id, resp.model)
