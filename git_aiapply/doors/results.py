"""The library's results: the typed, frozen views of the command's ``--json`` objects
(docs/JSON.md) that ``git_aiapply.apply`` and ``undo`` return (doors/api.py).  Each
keeps the object it was read from, so ``to_json()`` gives back exactly what the command
prints."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass

TYPE_CHECKING = False  # the names below are for type checkers: `typing` stays unimported
if TYPE_CHECKING:
    from typing import Any

    from ..api_types import Fault, Status, UndoAction, UndoStatus


# a field the --json object leaves out when it is None or empty (docs/JSON.md)
_OMITTED_WHEN_EMPTY = {"omitted_when_empty": True}


@dataclass(frozen=True)
class NearbyLine:
    """A numbered line of the file near a failed edit (``ref`` is ``LINE#ID`` for hashline)."""

    line: int
    text: str
    ref: str | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)


@dataclass(frozen=True)
class ErrorDetail:
    """One reason a response was refused (docs/JSON.md, ``errors[]``)."""

    reason: str
    file: str | None = None
    directive: str | None = None
    edit: int | None = None
    edit_first_line: str | None = None
    hint: str | None = None
    response_line: int | None = None
    nearby: tuple[NearbyLine, ...] = field(default=(), metadata=_OMITTED_WHEN_EMPTY)
    candidates: tuple[int, ...] = field(default=(), metadata=_OMITTED_WHEN_EMPTY)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ErrorDetail:
        return cls(d["reason"], d.get("file"), d.get("directive"), d.get("edit"),
                   d.get("edit_first_line"), d.get("hint"), d.get("response_line"),
                   tuple(NearbyLine(n["line"], n["text"], n.get("ref")) for n in d.get("nearby", ())),
                   tuple(d.get("candidates", ())))

    def to_json(self) -> dict[str, Any]:
        """The ``errors[]`` object (docs/JSON.md)."""
        return _json_view(self)


@dataclass(frozen=True)
class FileResult:
    """One path the response changes (docs/JSON.md, ``files[]``)."""

    path: str
    action: str  # add, update, delete, rename, mode
    old_path: str | None
    added: int
    removed: int
    # -3: the commit the edits were applied at, then merged
    merged_from: str | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)


@dataclass(frozen=True)
class KeptLines:
    """What one placeholder of a lazy snippet kept (docs/JSON.md, ``edits[].kept``): its
    line in the snippet and text, and the file's lines it stands for (as the file was)."""

    note_line: int
    note: str
    start: int
    end: int


@dataclass(frozen=True)
class EditResult:
    """Where one edit landed and how it was found (docs/JSON.md, ``edits[]``, with the
    ``verbose`` option): 1-based inclusive line ranges, an empty one ends before it starts."""

    file: str
    directive: str | None
    edit: int
    old_start: int | None
    old_end: int | None
    new_start: int | None
    new_end: int | None
    how: tuple[str, ...]  # exact, trailing-whitespace, whitespace, punctuation-folded, ...
    detail: str | None
    # a lazy snippet merged: what each of its placeholders kept
    kept: tuple[KeptLines, ...] = field(default=(), metadata=_OMITTED_WHEN_EMPTY)


@dataclass(frozen=True)
class Suggestion:
    """The fix a refusal names because the tool knows it (docs/JSON.md, ``suggestion``):
    ``kind`` ``three-way`` (retry with ``-3``: every edit fits ``base``), ``already-applied``
    (``commit``, one of the tool's, made this change; nothing to do) or ``format`` (retry
    with ``--format`` ``format``); ``argv``: the options to add; ``text``: in words."""

    kind: str
    text: str
    argv: tuple[str, ...] = ()
    base: str | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)
    commit: str | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)
    format: str | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Suggestion:
        return cls(d["kind"], d["text"], tuple(d.get("argv", ())), d.get("base"),
                   d.get("commit"), d.get("format"))


@dataclass(frozen=True)
class Result:
    """What happened to one response: the fields of the ``--json`` object (docs/JSON.md)."""

    response: str
    response_id: str
    model: str | None
    status: Status  # applied, would-apply, already-applied, no-change, empty, refused, fatal
    exit_code: int
    commit: str | None
    branch: str | None
    base: str | None
    formats: tuple[str, ...]
    files: tuple[FileResult, ...]
    added: int
    removed: int
    message: str | None
    note: str | None
    error_kind: str | None
    fault: Fault | None  # response, repository, usage, internal (docs/JSON.md)
    errors: tuple[ErrorDetail, ...]
    error_text: str | None
    # applied anyway, worth a look: --syntax-check=warn's findings (same shape as errors)
    warnings: tuple[ErrorDetail, ...]
    hook_output: str | None
    diff: str | None
    # only with the verbose option (-v)
    edits: tuple[EditResult, ...] | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)
    # a refusal's fix the tool knows (retry with -3, already applied, --format whole)
    suggestion: Suggestion | None = field(default=None, metadata=_OMITTED_WHEN_EMPTY)

    @property
    def ok(self) -> bool:
        """True unless the response was refused (exit code 0)."""
        return self.exit_code == 0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Result:
        """A Result from a ``--json`` object (the command's, or ``to_json()``'s)."""
        values = dict(d)
        values["formats"] = tuple(d["formats"])
        values["files"] = tuple(FileResult(**f) for f in d["files"])
        values["errors"] = tuple(ErrorDetail.from_json(e) for e in d["errors"])
        values["warnings"] = tuple(ErrorDetail.from_json(e) for e in d.get("warnings", ()))
        if d.get("edits") is not None:
            values["edits"] = tuple(EditResult(**{**e, "how": tuple(e["how"]), "kept": tuple(
                KeptLines(**k) for k in e.get("kept", ()))}) for e in d["edits"])
        if d.get("suggestion") is not None:
            values["suggestion"] = Suggestion.from_json(d["suggestion"])
        result = cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values
                        or f.default is MISSING})
        # the object it views, as pipeline.Outcome.to_json wrote it: the one writer
        object.__setattr__(result, "_written", json_copy(d))
        return result

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object, as the command prints it: the one it was read from
        (``from_json``; a copy), or for a Result made by hand, its fields as that object
        holds them."""
        written = self.__dict__.get("_written")
        return json_copy(written) if written is not None else _json_view(self)


@dataclass(frozen=True)
class UndoFile:
    """One path undo took back (``undo --json``'s ``files[]``)."""

    path: str
    action: UndoAction  # revert (changed back), remove (it was added), restore (deleted)


@dataclass(frozen=True)
class UndoResult:
    """What ``undo`` did: the fields of ``git ai-apply undo --json``'s object (docs/JSON.md);
    a refusal is a result too (``status`` ``refused``, nothing changed)."""

    status: UndoStatus
    exit_code: int  # 0 undone, 1 refused
    undone: str | None  # the commit that was HEAD and was taken back
    commits: tuple[str, ...]  # every commit taken back, newest first
    subject: str | None
    branch: str | None
    head: str | None  # the branch's tip now (None: it became unborn)
    files: tuple[UndoFile, ...]
    pushed_to: tuple[str, ...]  # remote-tracking branches that held it (force=True)
    error_kind: str | None
    errors: tuple[ErrorDetail, ...]
    error_text: str | None

    @property
    def ok(self) -> bool:
        """True when the commit was taken back."""
        return self.exit_code == 0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> UndoResult:
        """An UndoResult from ``undo --json``'s object."""
        result = cls(
            status=d["status"], exit_code=d["exit_code"], undone=d.get("undone"),
            commits=tuple(d.get("commits", ())), subject=d.get("subject"),
            branch=d.get("branch"), head=d.get("head"),
            files=tuple(UndoFile(**f) for f in d.get("files", ())),
            pushed_to=tuple(d.get("pushed_to") or ()), error_kind=d.get("error_kind"),
            errors=tuple(ErrorDetail.from_json(e) for e in d.get("errors", ())),
            error_text=d.get("error_text"))
        object.__setattr__(result, "_written", json_copy(d))
        return result

    def to_json(self) -> dict[str, Any]:
        """``undo --json``'s object, as the command prints it (a copy)."""
        written = self.__dict__.get("_written")
        return json_copy(written) if written is not None else _json_view(self)


def json_copy(d: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON object, nothing shared (its lists and objects copied too)."""
    import copy

    return copy.deepcopy(d)


def _json_view(view: Any) -> dict[str, Any]:
    """A view's fields as the ``--json`` object holds them: tuples as lists, views as
    objects, and a field marked ``_OMITTED_WHEN_EMPTY`` left out when None or empty."""
    return {f.name: _json_value(getattr(view, f.name)) for f in fields(view)
            if not (f.metadata.get("omitted_when_empty")
                    and getattr(view, f.name) in (None, ()))}


def _json_value(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _json_view(value)
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value
