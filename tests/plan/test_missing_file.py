"""What a refused edit of a missing file suggests, as plain functions (plan/missing_file.py):
the tracked files of the same name in other folders first, else close spellings of the
path, else a look at the path; and how the response's own format creates a file."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.ops import Source
from git_aiapply.plan.missing_file import missing_file_hint, namesakes
from git_aiapply.plan.plan import MODE_FILE
from plan_base import DictBase


class TrackedBase(DictBase):
    """A dict-backed snapshot that also lists its tracked paths, as the git layer's does
    (git/state.py ``paths_under``: every path under a folder with its kind)."""

    def paths_under(self, folder: str, budget: int | None = None):
        kinds = {0o160000: "submodule", 0o120000: "symlink"}
        found = [(p, kinds.get(mode, "file")) for p, (mode, _data) in sorted(self.files.items())
                 if not folder or p.startswith(folder + "/")]
        return found[:budget] if budget is not None else found


FILES = {"src/main.py": (MODE_FILE, b""), "lib/util.py": (MODE_FILE, b""),
         "docs/util.py": (MODE_FILE, b""), "vendor/util.py": (0o160000, b""),
         "README.md": (MODE_FILE, b"")}


def hint(path: str, fmt: str = "file-changes", files=FILES) -> str:
    return missing_file_hint(TrackedBase(files), path, Source(fmt, "d"))


def test_the_same_name_in_another_folder_comes_first():
    assert hint("util.py") == (
        "did you mean docs/util.py, lib/util.py? Use the path as git tracks it; to create "
        'util.py, use a <FILE_NEW file_path="util.py"> directive')  # no submodule named


def test_a_close_spelling_of_the_whole_path_when_no_name_matches():
    assert hint("src/mian.py", "apply-patch") == (
        "did you mean src/main.py? Use the path as git tracks it; to create src/mian.py, "
        "use `*** Add File: src/mian.py`")


def test_without_a_likely_file_the_hint_says_how_this_format_creates_one():
    tail = "check the path (relative to the repository root); to create the file, use "
    assert hint("zzz/qqq.txt", "unified-diff") == tail + "a diff from `--- /dev/null`"
    assert hint("zzz/qqq.txt", "tool-call") == (
        tail + "the text editor's create command or an apply_patch create_file operation")
    assert hint("zzz/qqq.txt", "no-such-format") == tail + "a new-file directive"
    # a snapshot that cannot list its paths (a plain base) suggests nothing
    assert missing_file_hint(DictBase(FILES), "util.py", Source("unified-diff", "d")) == (
        tail + "a diff from `--- /dev/null`")


_NAMES = st.sampled_from(["a.py", "b.py", "util.py"])
_FOLDERS = st.sampled_from(["", "x/", "y/", "x/z/", "w/"])


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.tuples(_FOLDERS, _NAMES).map("".join),
                       st.sampled_from([MODE_FILE, 0o160000]), max_size=10),
       _FOLDERS, _NAMES)
def test_namesakes_are_the_tracked_files_of_that_name_elsewhere(tracked, folder, name):
    """Property: namesakes are tracked files (never submodules, never the path itself)
    with the path's file name, sorted, three at most; the hint names them when any."""
    files = {p: (mode, b"") for p, mode in tracked.items()}
    path = folder + name
    base = TrackedBase(files)
    want = sorted(p for p, mode in tracked.items()
                  if mode == MODE_FILE and p != path and p.rsplit("/", 1)[-1] == name)
    assert namesakes(base, path) == want[:3]
    assert namesakes(base, path, limit=1) == want[:1]
    if want:
        assert hint(path, files=files).startswith(f"did you mean {', '.join(want[:3])}?")
