"""Hostile review of the placeholder rule (issue 21 item 1): a placeholder line is content
only where the old text holds it and the new text keeps it, not wherever the old text
happens to hold the same line."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.verify.placeholders import placeholder_lines

_PLACEHOLDERS = ["# ...", "// ... existing code ...", "    # ...", "<!-- ... -->", "..."]
_CODE = st.lists(st.from_regex(r"[a-z]{1,6} = [0-9]{1,3}", fullmatch=True),
                 min_size=2, max_size=12, unique=True)


def test_a_placeholder_held_elsewhere_does_not_cover_dropped_lines():
    old = ["def f():", "    a = 1", "    b = 2", "    return a", "", "def g():", "    # ...",
           "    pass"]
    new = ["def f():", "    a = 10", "    # ...", "", "def g():", "    # ...", "    pass"]
    assert [n for n, _ in placeholder_lines(old, new)] == [3]


def test_a_held_placeholder_kept_in_place_is_content():
    old = ["def g():", "    # ...", "    pass", "x = 1"]
    new = ["def g():", "    # ...", "    pass", "x = 2"]
    assert placeholder_lines(old, new) == []


@settings(max_examples=150, deadline=None)
@given(_CODE, _CODE, st.sampled_from(_PLACEHOLDERS), st.data())
def test_a_placeholder_over_dropped_lines_is_found_whatever_the_old_text_holds(
        head, tail, placeholder, data):
    # old: head, the placeholder as real content, tail; new: the head's lines from k on
    # replaced by the placeholder, the rest kept
    k = data.draw(st.integers(0, len(head) - 1))
    tail = [t for t in tail if t not in head]
    old = head + [placeholder] + tail
    new = head[:k] + [placeholder] + [placeholder] + tail
    hits = placeholder_lines(old, new)
    assert hits and hits[0][0] in (k + 1, k + 2)  # either copy: one of them is new
