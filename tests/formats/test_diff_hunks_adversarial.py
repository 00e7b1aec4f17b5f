"""Hostile review of hunk reading (issues 21, 22): rules found missing, as plain functions."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.formats.diff_hunks import placeless_addition
from git_aiapply.ops import ADD, CONTEXT, REMOVE

_ADDED = [(ADD, "    def new(self):"), (ADD, "        pass")]
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
                min_size=1, max_size=30).filter(lambda t: t.strip() and "@@" not in t)


@settings(max_examples=150, deadline=None)
@given(_TEXT, st.sampled_from(["@@ {}", "@@ ... @@ {}", "@@  {}  "]))
def test_numberless_additions_under_a_named_header_have_no_place(text, shape):
    # the header names a place the format does not read: never silently at the file's end
    assert placeless_addition(shape.format(text), _ADDED) is not None


@settings(max_examples=150, deadline=None)
@given(_TEXT, st.sampled_from([CONTEXT, REMOVE]))
def test_a_hunk_with_old_lines_is_placed_by_them(text, tag):
    assert placeless_addition(f"@@ {text}", [(tag, "x"), *_ADDED]) is None


def test_line_numbers_or_a_bare_header_place_additions():
    assert placeless_addition("@@ -3,0 +4,2 @@ class A:", _ADDED) is None  # the numbers
    assert placeless_addition("@@", _ADDED) is None  # documented: the end of the file
    assert placeless_addition("@@ @@", _ADDED) is None
