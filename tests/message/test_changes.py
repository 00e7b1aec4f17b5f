"""A subject made from the change itself (message/changes.py, BEHAVIOR.md §8 round 4): the
definitions the edits touch and the files, falling back to the files alone; never longer
than the limit, never cut with an ellipsis."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.message.changes import subject_from_change

NAMES = {"src/_pytest/skipping.py": ["pytest_runtest_makereport"], "app.py": ["load", "save"],
         "util.py": ["parse"], "big.py": [f"function_{i}" for i in range(8)], "README.md": []}


def names_of(path):
    return NAMES.get(path, [])


@pytest.mark.parametrize("changed, subject", [
    ([("update", "src/_pytest/skipping.py")], "Change pytest_runtest_makereport (src/_pytest/skipping.py)"),
    ([("update", "app.py")], "Change load and save (app.py)"),
    ([("update", "app.py"), ("update", "util.py")], "Change load and save (app.py) and parse (util.py)"),
    ([("update", "app.py"), ("add", "new.py")], "Change load and save (app.py), add new.py"),
    ([("update", "big.py")], "Change function_0, function_1 and 6 more (big.py)"),
    # no definition, no grammar, or not updated in place: the files
    ([("update", "README.md")], "Update README.md"),
    ([("add", "app.py")], "Add app.py"),
    ([("rename", "a.py -> app.py")], "Rename a.py to app.py"),
    # more files than a subject names definitions of
    ([("update", p) for p in ("app.py", "util.py", "big.py", "README.md")],
     "Update app.py, util.py, big.py and README.md"),
])
def test_subject_from_change(changed, subject):
    assert subject_from_change(changed, names_of) == subject


def test_shorter_forms_then_the_files():
    changed = [("update", "very/deep/folder/of/the/project/src/_pytest/skipping.py")]
    names = {changed[0][1]: ["pytest_runtest_makereport"]}
    assert subject_from_change(changed, names.get, 72) == \
        "Change pytest_runtest_makereport (skipping.py)"
    assert subject_from_change(changed, names.get, 30) == "Update skipping.py"


def test_names_are_asked_only_for_a_few_updated_files():
    asked = []

    def spy(path):
        asked.append(path)
        return []

    subject_from_change([("add", f"f{i}.py") for i in range(100)], spy)
    subject_from_change([("update", "a.py"), ("delete", "b.py")], spy)
    assert asked == ["a.py"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["update", "add", "delete", "rename", ""]),
                          st.text("ab/._ ->", min_size=1, max_size=40)), max_size=5),
       st.lists(st.text("abc_.:", min_size=1, max_size=30), max_size=4),
       st.integers(min_value=1, max_value=100))
def test_never_longer_than_the_limit_nor_cut_with_an_ellipsis(changed, names, limit):
    subject = subject_from_change(changed, lambda _path: names, limit)
    assert 0 < len(subject) <= limit and "\u2026" not in subject
