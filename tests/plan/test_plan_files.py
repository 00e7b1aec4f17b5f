"""The planner's file rules of BEHAVIOR.md §5 and §6 as plain functions: placeholders
over replaced lines, the renames of one git diff applied together (as `git apply`), a
file replaced by a folder, and a path's identity with a tracked one (NFC/NFD, case)."""
from __future__ import annotations

import unicodedata

import pygit2
import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.git.state import TreeSnapshot
from git_aiapply.ops import HashlineEdit, HashlineOp, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, FileState, make_plan

from plan_base import DictBase, fc, plan


def _norm(p):
    return normalize_path(p, worktree="/w")


def diff(*sections: str) -> str:
    return "```diff\n" + "".join(sections) + "```\n"


def rename(a: str, b: str) -> str:
    return f"diff --git a/{a} b/{b}\nrename from {a}\nrename to {b}\n"


FILES = {"a": (MODE_FILE, b"A\n"), "b": (MODE_FILE, b"B\n"), "c": (MODE_FILE, b"C\n")}


def test_a_swap_in_one_diff_exchanges_the_files():
    p = plan(diff(rename("a", "b"), rename("b", "a")), dict(FILES))
    assert p.final["a"].data == b"B\n" and p.final["b"].data == b"A\n"


@settings(max_examples=60, deadline=None)
@given(st.permutations(["a", "b", "c"]), st.permutations([0, 1, 2]))
def test_renames_of_one_diff_are_a_permutation_of_the_files(targets, order):
    # any permutation, written in any order, moves every file as git apply would
    sources = ["a", "b", "c"]
    sections = [rename(sources[i], targets[i]) for i in order if sources[i] != targets[i]]
    if not sections:
        return
    p = plan(diff(*sections), dict(FILES))
    for src, dst in zip(sources, targets):
        assert p.final.get(dst, FileState(*FILES[dst]) if dst in FILES else None).data == FILES[src][1]


def test_directive_renames_still_apply_in_order():
    p = plan(fc('<FILE_RENAME from_path="a" to_path="d" />', '<FILE_RENAME from_path="d" to_path="e" />'),
             dict(FILES))
    assert p.final["a"] is None and p.final["e"].data == b"A\n" and p.final["d"] is None


def test_a_file_replaced_by_a_folder_in_every_form():
    for text in (diff(rename("a", "a/y")),
                 fc('<FILE_RENAME from_path="a" to_path="a/y" />'),
                 fc('<FILE_DELETE file_path="a" />', '<FILE_NEW file_path="a/y">\nA\n</FILE_NEW>')):
        p = plan(text, dict(FILES))
        assert p.final["a"] is None and p.final["a/y"].data == b"A\n", text


def test_a_file_under_a_file_that_stays_is_refused():
    with pytest.raises(ApplyError, match="a is a file"):
        plan(fc('<FILE_NEW file_path="a/y">\nA\n</FILE_NEW>'), dict(FILES))


def test_hashline_set_with_a_placeholder_is_refused():
    files = {"m.py": (MODE_FILE, b"def f():\n    return 1\n\n\ndef g():\n    return 2\n")}
    op = HashlineEdit("m.py", [HashlineOp("set", 1, "", 6, "", ["def f():", "    # ... existing code ..."],
                                          1, "1#xx")], Source("hashline", "FILE_HASHLINE_PATCH m.py"))
    with pytest.raises(ApplyError, match="placeholder") as e:
        make_plan([op], DictBase(files), _norm)
    assert e.value.problems[0].nearby[0] == (1, "def f():")


def test_a_placeholder_over_a_tracked_file_names_the_line_and_asks_for_the_full_text():
    files = {"m.py": (MODE_FILE, b"import os\n\n\ndef f():\n    return 1\n")}
    with pytest.raises(ApplyError) as e:
        plan(fc('<FILE_NEW file_path="m.py">\nimport sys\n\n// ... rest of the file unchanged\n</FILE_NEW>'), files)
    text = e.value.problems[0].render()
    # a lazy snippet with nothing to anchor it: the merge names the placeholder
    assert "rest of the file unchanged" in text and "line 3" in text
    assert "no line of the snippet is found exactly once" in text
    assert "every line written out" in text


# -- path identity (§6) ----------------------------------------------------------------
def _tree_base(tmp_path, names: list[str]) -> TreeSnapshot:
    r = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    blob = r.create_blob(b"old\n")
    tb = r.TreeBuilder()
    for n in names:
        tb.insert(n, blob, pygit2.GIT_FILEMODE_BLOB)
    return TreeSnapshot(r, r[tb.write()], None)


_NAME = st.text(alphabet="abcdeéèíñöüABCÉÑÖ", min_size=1, max_size=6)


def _variant(name: str, flips: list[bool], nfd: bool) -> str:
    v = "".join(c.swapcase() if f else c for c, f in zip(name, flips + [False] * len(name)))
    return unicodedata.normalize("NFD" if nfd else "NFC", v)


@settings(max_examples=80, deadline=None)
@given(_NAME, st.lists(st.booleans(), max_size=6), st.booleans(), st.booleans())
def test_a_spelling_of_a_tracked_name_is_that_file_or_refused(tmp_path_factory, name, flips, nfd, ignore_case):
    name = unicodedata.normalize("NFC", name) + ".txt"
    base = _tree_base(tmp_path_factory.mktemp("t"), [name])
    variant = _variant(name, flips, nfd)
    ops = parse_response(fc(f'<FILE_NEW file_path="{variant}">\nnew\n</FILE_NEW>')).ops
    same_but_case = unicodedata.normalize("NFC", variant) == name
    if same_but_case or ignore_case:
        p = make_plan(ops, base, _norm, ignore_case=ignore_case)
        assert list(p.final) == [name]  # the tracked file itself, never a twin
    else:
        with pytest.raises(ApplyError) as e:
            make_plan(ops, base, _norm, ignore_case=False)
        assert name in e.value.problems[0].reason and "case" in e.value.problems[0].reason


def test_a_new_name_unlike_any_tracked_one_is_kept_as_written(tmp_path):
    base = _tree_base(tmp_path, ["README.md"])
    nfd = unicodedata.normalize("NFD", "café.md")
    p = make_plan(parse_response(fc(f'<FILE_NEW file_path="{nfd}">\nx\n</FILE_NEW>')).ops, base, _norm)
    assert list(p.final) == [nfd]


def test_a_case_only_rename_is_a_rename(tmp_path):
    base = _tree_base(tmp_path, ["README.md"])
    p = make_plan(parse_response(diff(rename("README.md", "readme.md"))).ops, base, _norm)
    assert p.final["README.md"] is None and p.final["readme.md"].data == b"old\n"


@pytest.mark.parametrize("text", [
    fc('<FILE_RENAME from_path="a" to_path="b" />', '<FILE_RENAME from_path="b" to_path="a" />'),
    "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Update File: b\n*** Move to: a\n"
    "*** End Patch\n",
    diff(rename("a", "b")) + "\nthen\n\n" + fc('<FILE_RENAME from_path="b" to_path="c" />'),
])
def test_a_swap_written_as_renames_in_order_is_refused(text):
    # in order, a -> b would replace b and b -> a bring a back: b's content silently lost
    with pytest.raises(ApplyError, match="later rename moves b away"):
        plan(text, dict(FILES))


def test_a_rename_over_a_file_nothing_moves_later_replaces_it():
    p = plan(fc('<FILE_RENAME from_path="a" to_path="b" />'), dict(FILES))
    assert p.final == {"a": None, "b": FileState(MODE_FILE, b"A\n")}


def _tree_of(tmp_path, files: dict[str, bytes]) -> TreeSnapshot:
    r = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    idx = pygit2.Index()
    for p, data in files.items():
        idx.add(pygit2.IndexEntry(p, r.create_blob(data), pygit2.GIT_FILEMODE_BLOB))
    return TreeSnapshot(r, r[idx.write_tree(r)], None)


@pytest.mark.parametrize("text", [
    diff(rename("d/y", "d"), "diff --git a/d/z b/d/z\ndeleted file mode 100644\n--- a/d/z\n+++ /dev/null\n"
         "@@ -1 +0,0 @@\n-Z\n"),
    diff("diff --git a/d/z b/d/z\ndeleted file mode 100644\n--- a/d/z\n+++ /dev/null\n@@ -1 +0,0 @@\n-Z\n",
         rename("d/y", "d")),
    fc('<FILE_DELETE file_path="d/y" />', '<FILE_DELETE file_path="d/z" />',
       '<FILE_NEW file_path="d">\nY\n</FILE_NEW>'),
])
def test_a_folder_replaced_by_a_file_once_it_is_empty(tmp_path, text):
    base = _tree_of(tmp_path, {"d/y": b"Y\n", "d/z": b"Z\n", "a": b"A\n"})
    p = make_plan(parse_response(text).ops, base, _norm)
    assert p.final == {"d/y": None, "d/z": None, "d": FileState(MODE_FILE, b"Y\n")}


@pytest.mark.parametrize("text", [
    diff(rename("d/y", "d")),  # d/z stays: git refuses too
    fc('<FILE_DELETE file_path="d/y" />', '<FILE_NEW file_path="d">\nY\n</FILE_NEW>'),
    fc('<FILE_DELETE file_path="d/y" />', '<FILE_DELETE file_path="d/z" />',
       '<FILE_NEW file_path="d/n">\nN\n</FILE_NEW>', '<FILE_NEW file_path="d">\nY\n</FILE_NEW>'),
])
def test_a_folder_that_still_holds_files_is_not_replaced(tmp_path, text):
    base = _tree_of(tmp_path, {"d/y": b"Y\n", "d/z": b"Z\n", "a": b"A\n"})
    with pytest.raises(ApplyError, match="folder|is a file"):
        make_plan(parse_response(text).ops, base, _norm)


def test_one_path_renamed_twice_in_one_diff_gives_two_copies():
    # git apply reads both renames' source as the diff found it
    p = plan(diff(rename("a", "x"), rename("a", "y")), dict(FILES))
    assert p.final["a"] is None and p.final["x"].data == p.final["y"].data == b"A\n"
