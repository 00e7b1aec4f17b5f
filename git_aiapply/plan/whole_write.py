"""Whole-file writes (plan.py): the line endings their content takes over an existing
file, and when a write to a missing path is refused as a likely shortened path."""
from __future__ import annotations

from ..text import FileText, is_binary


def in_file_endings(text: str, old: bytes | None) -> str:
    """A whole-file write's content in the line endings of the file it replaces (``old``,
    the blob): content written with plain LF over a text file whose dominant ending is
    CRLF (or CR) takes that ending, as an edit would; content with its own CR, a new file
    and a binary file are kept as given.  An eol/autocrlf checkout holds an LF blob, so
    the content stays LF here and the git layer converts it once, on checkout."""
    if old is None or "\r" in text or "\n" not in text or b"\r" not in old:
        return text
    if is_binary(old):
        return text
    ending = FileText.from_bytes(old).dominant_ending()
    return text if ending == "\n" else text.replace("\n", ending)


def namesake_refusal(base, path: str) -> tuple[str, str] | None:
    """(reason, hint) for a whole file for the missing ``path``, in an answer that does not
    say the file is new, while a file of that name is tracked in another folder: most
    likely that file under a shortened path, so refused as a patch of the path would be
    (never a duplicate).  None when no such file is tracked."""
    from .missing_file import namesakes

    found = namesakes(base, path)
    if not found:
        return None
    return (f"cannot write {path}: no such file, and the response does not say it is a new "
            "file", f"did you mean {', '.join(found)}? Use the path as git tracks it; to "
            f"create {path}, say so on its path line (`{path} (new file)`)")



def create_only(planner, op) -> None:
    """A ``create`` (``op.create_only``, the tool's name) whose harness refuses a file
    that exists (SWE-agent's and OpenHands' ``str_replace_editor``: "File already exists
    at: PATH. Cannot overwrite files using command `create`."): written where nothing is;
    where a file is, never written over it: passed over when a later operation of the
    response writes that path (the model's retry after that refusal), else refused,
    naming the tool."""
    from ..errors import ApplyError

    try:
        path = planner.normalize(op.path)
    except ApplyError:
        return planner.new_file(op)  # which reports the path
    if planner.current(path)[1] is None:
        return planner.new_file(op)
    for other in planner.ops[planner.index + 1:]:
        raw = getattr(other, "path", None) or getattr(other, "new_path", None)
        try:
            if isinstance(raw, str) and planner.normalize(raw) == path:
                return None
        except ApplyError:  # a path the planner refuses in its own turn
            continue
    return planner.fail(
        op.source, path, f"{path} already exists, and {op.create_only} (SWE-agent, OpenHands) "
        f"refuses to create a file that exists (\"File already exists at: {path}. Cannot "
        "overwrite files using command `create`.\"), so this content was never written there",
        hint="edit the file with str_replace (or insert), or remove it first and say so")
