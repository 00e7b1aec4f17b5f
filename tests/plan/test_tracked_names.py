"""Which tracked path a response's path means, as plain functions (plan/tracked_names.py,
BEHAVIOR.md §6): judged component by component against the tree, a name equal to a
tracked one after Unicode normalisation is that name, one in another case is it only
under core.ignorecase (else refused, naming the tracked path), and a rename's source or
a file the response deleted does not count."""
from __future__ import annotations

import unicodedata

from hypothesis import given, settings, strategies as st

from git_aiapply.plan.plan import MODE_FILE
from git_aiapply.plan.tracked_names import TrackedNames, fold
from plan_base import DictBase


class TreeBase(DictBase):
    """A dict-backed snapshot that lists its tree as the git layer's does (git/state.py:
    ``names_in`` a folder's names, ``paths_under`` its paths with their kinds; None where
    the tree has no folder)."""

    tree = "the commit's tree"

    def _under(self, folder: str) -> list[str]:
        prefix = folder + "/" if folder else ""
        return sorted(p for p in self.files if p.startswith(prefix))

    def names_in(self, folder: str):
        prefix = len(folder) + 1 if folder else 0
        return sorted({p[prefix:].split("/")[0] for p in self._under(folder)}) or None

    def paths_under(self, folder: str, budget: int | None = None):
        kinds = {0o160000: "submodule", 0o120000: "symlink"}
        return [(p, kinds.get(self.files[p][0], "file")) for p in self._under(folder)] or None


def names(files: dict, ignore_case: bool = False) -> TrackedNames:
    base = TreeBase(files)
    return TrackedNames(base, base.kind, ignore_case)


CAFE_NFD = unicodedata.normalize("NFD", "café")
FILES = {"Src/Main.py": (MODE_FILE, b""), "café/x.txt": (MODE_FILE, b""),
         "README.md": (MODE_FILE, b""), "Src/vendor/lib": (0o160000, b"")}


def test_another_unicode_normalisation_names_the_tracked_path():
    n = names(FILES)
    assert n.spelling(f"{CAFE_NFD}/x.txt", {}) == ("café/x.txt", None)
    assert n.spelling(f"{CAFE_NFD}/new.txt", {}) == ("café/new.txt", None)  # a new file there
    # git keeps a name as written: a folder tracked in NFD (from macOS) is named in NFC too
    nfd = names({f"{CAFE_NFD}/x.txt": (MODE_FILE, b"")})
    assert nfd.spelling("café/x.txt", {}) == (f"{CAFE_NFD}/x.txt", None)


def test_another_case_is_the_tracked_path_only_under_ignorecase():
    spelled, problem = names(FILES).spelling("SRC/new.py", {})
    assert spelled is None and problem.file == "SRC/new.py"
    assert problem.reason == ("SRC/new.py differs only by case from the tracked Src; the names "
                              "are different files to git here")
    assert "write the tracked name Src" in problem.hint
    n = names(FILES, ignore_case=True)
    assert n.spelling("src/main.py", {}) == ("Src/Main.py", None)
    assert n.spelling("SRC/new.py", {}) == ("Src/new.py", None)  # a new file, in Src
    # gathering keys a file's edits by the spelling, the path itself when refused
    assert names(FILES).file_named("readme.md") == "readme.md"
    assert n.file_named("readme.md") == "README.md"


def test_a_renames_source_or_a_deleted_file_does_not_count():
    n = names(FILES)
    assert n.spelling("readme.md", {}, beside="README.md") == ("readme.md", None)
    assert n.spelling("readme.md", {"README.md": None}) == ("readme.md", None)
    assert n.spelling("readme.md", {})[0] is None
    # a path tracked as written, or one the response already wrote, is taken as it is
    assert n.spelling("README.md", {}) == ("README.md", None)
    assert n.spelling("readme.md", {"readme.md": None}) == ("readme.md", None)
    # a base that cannot list its tree (a plain dict) keeps every name as written
    plain = DictBase(FILES)
    assert TrackedNames(plain, plain.kind, False).spelling("readme.md", {}) == ("readme.md", None)


def test_the_files_under_a_folder_unless_it_holds_a_submodule():
    n = names(FILES)
    assert n.files_under("café") == ["café/x.txt"]
    assert n.files_under("Src") is None  # Src/vendor/lib is a submodule
    assert n.files_under("nowhere") is None and n.files_under("") is None


_NAME = st.text(alphabet="abcéñöABCÉÑÖ", min_size=1, max_size=5)


@settings(max_examples=80, deadline=None)
@given(_NAME, _NAME, st.lists(st.booleans(), max_size=10), st.booleans(), st.booleans(),
       st.booleans())
def test_a_spelling_of_a_tracked_path_is_it_or_refused(folder, name, flips, nfd_folder,
                                                       nfd_name, ignore_case):
    """Property: a path whose every component is a tracked one in another case or
    normalisation is the tracked path under core.ignorecase, or when the components
    differ only by normalisation; otherwise it is refused naming the tracked spelling."""
    tracked = f"{folder}/{name}.txt"
    flips += [False] * 10

    def variant(text: str, offset: int, nfd: bool) -> str:
        v = "".join(c.swapcase() if flips[offset + i] else c for i, c in enumerate(text))
        return unicodedata.normalize("NFD" if nfd else "NFC", v)

    folder_v, name_v = variant(folder, 0, nfd_folder), variant(name, 5, nfd_name)
    path = f"{folder_v}/{name_v}.txt"
    assert fold(folder_v) == fold(folder) and fold(name_v) == fold(name)
    spelled, problem = names({tracked: (MODE_FILE, b"")}, ignore_case).spelling(path, {})
    nfc = unicodedata.normalize
    same_case = nfc("NFC", path) == tracked
    if ignore_case or same_case or path == tracked:
        assert (spelled, problem) == (tracked, None)
    else:
        assert spelled is None and "differs only by case from the tracked" in problem.reason
