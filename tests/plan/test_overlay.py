"""A planning snapshot with earlier responses' changes laid over it, as plain values
(plan/overlay.py): --check and --diff over a series judge each response on top of the
ones before it, so the overlay answers as the base would after those changes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.formats import parse_response
from git_aiapply.plan.overlay import Overlay
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileState, make_plan
from plan_base import DictBase, fc, plan

FILES = {"a.txt": (MODE_FILE, b"a\n"), "d/x": (MODE_FILE, b"x\n"), "d/y": (MODE_FILE, b"y\n"),
         "e/z": (MODE_FILE, b"z\n")}


class CountingBase(DictBase):
    """A dict-backed snapshot that counts the files under a folder, as the git layer's
    does (git/state.py ``files_under``)."""

    def files_under(self, folder: str):
        n = sum(1 for p in self.files if p.startswith(folder + "/"))
        return n or None


def test_changed_paths_answer_as_the_changes_left_them():
    over = Overlay(DictBase(FILES, {"u.txt"}), {
        "a.txt": None, "n/new.txt": FileState(MODE_EXEC, b"n\n"),
        "l": FileState(MODE_LINK, b"a.txt"), "d/x": FileState(MODE_FILE, b"X\n")})
    assert over.entry("a.txt") is None and over.kind("a.txt") is None
    assert over.entry("n/new.txt") == (MODE_EXEC, b"n\n") and over.kind("n/new.txt") == "file"
    assert over.kind("n") == "dir"  # a folder the changes made
    assert over.kind("l") == "symlink"
    assert over.entry("d/x") == (MODE_FILE, b"X\n") and over.entry("d/y") == (MODE_FILE, b"y\n")
    assert over.kind("d") == "dir" and over.kind("nowhere") is None
    assert over.disk_kind("u.txt") == "file"  # the worktree as the base sees it
    assert over.files is FILES  # anything else, as the base's


def test_a_file_replaced_by_a_folder_is_a_folder():
    over = Overlay(DictBase(FILES), {"a.txt": None, "a.txt/inner": FileState(MODE_FILE, b"")})
    assert over.kind("a.txt") == "dir" and over.entry("a.txt") is None


def test_a_folder_is_gone_only_when_the_base_counts_it_empty():
    gone = {"d/x": None, "d/y": None}
    assert Overlay(CountingBase(FILES), gone).kind("d") is None
    assert Overlay(CountingBase(FILES), {"d/x": None}).kind("d") == "dir"
    # a base that cannot count keeps it a folder (never a file put over files it holds)
    assert Overlay(DictBase(FILES), gone).kind("d") == "dir"


def test_the_next_response_of_a_series_is_planned_on_top_of_the_ones_before():
    first = plan(fc('<FILE_NEW file_path="n.txt">\none\n</FILE_NEW>',
                    '<FILE_DELETE file_path="a.txt" />', '<FILE_DELETE file_path="e/z" />'),
                 dict(FILES))
    base = CountingBase(dict(FILES))
    over = Overlay(base, first.final)
    patch_new = parse_response(fc('<FILE_PATCH file_path="n.txt">\n@@\n-one\n+two\n</FILE_PATCH>')).ops
    p = make_plan(patch_new, over, lambda p: normalize_path(p, worktree="/w"))
    assert p.final == {"n.txt": FileState(MODE_FILE, b"two\n")}
    with pytest.raises(ApplyError, match="no such file"):  # alone, the base has no n.txt
        make_plan(patch_new, base, lambda p: normalize_path(p, worktree="/w"))
    with pytest.raises(ApplyError, match="no such file"):
        make_plan(parse_response(fc('<FILE_DELETE file_path="a.txt" />')).ops, over,
                  lambda p: normalize_path(p, worktree="/w"))
    # e/ was emptied by the first response: a file may take its place
    p = make_plan(parse_response(fc('<FILE_NEW file_path="e">\nE\n</FILE_NEW>')).ops, over,
                  lambda p: normalize_path(p, worktree="/w"))
    assert p.final == {"e": FileState(MODE_FILE, b"E\n")}


def test_a_folder_still_holding_tracked_files_stays_a_folder():
    # the first response makes two files in d/ and removes them again: d/x and d/y stay
    first = plan(fc('<FILE_NEW file_path="d/n1">\nn\n</FILE_NEW>',
                    '<FILE_NEW file_path="d/n2">\nn\n</FILE_NEW>',
                    '<FILE_DELETE file_path="d/n1" />', '<FILE_DELETE file_path="d/n2" />'),
                 dict(FILES))
    over = Overlay(CountingBase(dict(FILES)), first.final)
    assert over.entry("d/x") == (MODE_FILE, b"x\n")
    refused = True
    try:  # the real run refuses a file d over the folder d: so must the series' check
        make_plan(parse_response(fc('<FILE_NEW file_path="d">\nf\n</FILE_NEW>')).ops, over,
                  lambda p: normalize_path(p, worktree="/w"))
        refused = False
    except ApplyError:
        pass
    assert over.kind("d") == "dir" and refused


def after_holds_under(files: dict, folder: str) -> bool:
    return any(q.startswith(folder + "/") for q in files)


_PATH = st.sampled_from(["a.txt", "d", "d/x", "d/y", "d/new", "e", "e/z", "a.txt/q", "f"])
_STATE = st.one_of(st.none(), st.sampled_from([FileState(MODE_FILE, b"1"),
                                               FileState(MODE_LINK, b"t")]))


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(_PATH, _STATE, max_size=4))
def test_the_overlay_answers_as_a_base_holding_the_changed_files(changed):
    """Property: the overlay answers entry() and kind() as a snapshot of the base's
    files with the changes applied would (for the changes a plan can leave: no file
    under a file, a path removed only when no file stays under it)."""
    files = {p: v for p, v in FILES.items() if p not in changed}
    files.update({p: (s.mode, s.data) for p, s in changed.items() if s is not None})
    if any(q.startswith(p + "/") for p in files for q in files):
        return  # no tree holds both: the planner refuses that (diff_groups)
    if any(s is None and after_holds_under(files, p) for p, s in changed.items()):
        return  # a path removed is a file, or a folder the changes emptied (plan.py)
    after = CountingBase(files)
    over = Overlay(CountingBase(dict(FILES)), changed)
    for p in ["a.txt", "d", "d/x", "d/y", "d/new", "e", "e/z", "a.txt/q", "f"]:
        assert over.entry(p) == after.entry(p), p
        assert over.kind(p) == after.kind(p), p
    assert Overlay(CountingBase(dict(FILES)), {}).kind("d") == "dir"
