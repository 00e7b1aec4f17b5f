"""Which tracked path a path of a response means (BEHAVIOR.md §6).

Git stores names as bytes, so ``paths.normalize_path`` keeps a name as written; but a
name that equals a tracked one after Unicode normalisation (NFC/NFD: a macOS keyboard or
filesystem hands out NFD) is that tracked file, and so is one in another case when
``core.ignorecase`` is set.  Without ``core.ignorecase`` a name that differs from a
tracked one only by case is refused: on this repository they would be two files, which
is almost never what a response means.  Judged against the base tree, component by
component, only for a path that is not tracked as written (docs/DECISIONS.md).
"""
from __future__ import annotations

from collections.abc import Callable

from ..errors import Problem


def nfc(name: str) -> str:
    if name.isascii():
        return name
    import unicodedata

    return unicodedata.normalize("NFC", name)


def fold(name: str) -> str:
    """A name's spelling with case and Unicode normalisation taken out."""
    return name.lower() if name.isascii() else nfc(name).casefold()


class TrackedNames:
    """The tracked spelling of paths, for one planning run.  ``base`` is the planner's
    snapshot (its ``tree``, when it has one, is read once per folder looked at);
    ``base_kind(path)`` what the base holds at a path."""

    def __init__(self, base, base_kind: Callable[[str], "str | None"], ignore_case: bool):
        self.base = base
        self.base_kind = base_kind
        self.ignore_case = ignore_case
        self.folder_names: dict[str, dict[str, str]] = {}  # tracked folder -> fold -> name

    def spelling(self, path: str, overlay: dict, beside: str | None = None
                 ) -> tuple[str | None, Problem | None]:
        """(``path`` as the base tree spells it, None), or (None, the refusal).
        ``overlay``: the paths the response changed so far (a tracked file it deleted
        does not count); ``beside``: a tracked path that does not count either (a
        rename's source, so that a case-only rename stays one)."""
        if path in overlay or self.base_kind(path) is not None \
                or getattr(self.base, "tree", None) is None:
            return path, None
        parts = path.split("/")
        for i, name in enumerate(parts):
            folder = "/".join(parts[:i])
            here = f"{folder}/{name}" if folder else name
            k = self.base_kind(here)
            if k is None:
                other = self.names_in(folder).get(fold(name))
                full = f"{folder}/{other}" if folder else other
                if other is None or full == beside or (full in overlay and overlay[full] is None):
                    return "/".join(parts), None  # a new name
                if nfc(other) != nfc(name) and not self.ignore_case:
                    return None, Problem(
                        f"{path} differs only by case from the tracked {full}; the names "
                        "are different files to git here", file=path,
                        hint=f"write the tracked name {full} to change that file, or choose "
                             "a name that differs by more than case")
                parts[i] = other
                k = self.base_kind(full)
            if k != "dir":
                break
        return "/".join(parts), None

    def file_named(self, path: str) -> str:
        """The base's spelling of the file ``path`` names, or ``path`` itself when it names
        no tracked file or is refused: the key a file's edits are gathered under
        (gather.py), so that two spellings of one file count as that one file."""
        spelled, _refusal = self.spelling(path, {})
        return path if spelled is None else spelled

    def names_in(self, folder: str) -> dict[str, str]:
        """The names in the tracked folder ``folder`` by their folded spelling."""
        names = self.folder_names.get(folder)
        if names is None:
            names = {}
            for name in _tracked(self.base, "names_in", folder) or ():
                names.setdefault(fold(name), name)  # none: not a folder of the tree
            self.folder_names[folder] = names
        return names

    def files_under(self, folder: str) -> list[str] | None:
        """Every tracked path under the tracked folder ``folder`` (read on demand: only a
        file put where a folder is asks), or None when it holds something that is not a
        file or a link (a submodule) or cannot be read."""
        paths = _tracked(self.base, "paths_under", folder) if folder else None
        if paths is None or any(kind == "submodule" for _path, kind in paths):
            return None
        return [path for path, _kind in paths]


def _tracked(base, question: str, folder: str):
    """``base``'s answer to ``question`` about a tracked folder (git/state.py's snapshot
    answers in plain names), or None from a base that cannot say (a test's plain dict)."""
    ask = getattr(base, question, None)
    return None if ask is None else ask(folder)
