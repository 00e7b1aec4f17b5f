"""Hostile review of placement (issue 21 item 5): two insertions into one gap, each
keeping the lines around it together, have no order that applies both; applying both
(the second a restated, extended copy of the first) duplicated lines with exit 0."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def _insertion(before: list[str], gap: int, added: list[str], ctx: int) -> Hunk:
    """A hunk adding ``added`` between lines gap-1 and gap (0-based), with up to ``ctx``
    context lines each side."""
    lo, hi = max(gap - ctx, 0), min(gap + ctx, len(before))
    return Hunk([(" ", t) for t in before[lo:gap]] + [("+", t) for t in added]
                + [(" ", t) for t in before[gap:hi]])


def _apply(before: list[str], *hunks: Hunk) -> list[str]:
    text = FileText.from_bytes(("\n".join(before) + "\n").encode())
    new, _a, _r = apply_hunks(text, list(hunks), path="f")
    return new.to_bytes().decode().split("\n")[:-1]


_LINES = st.lists(st.from_regex(r"[a-z]{2,5}", fullmatch=True), min_size=3, max_size=10,
                  unique=True)
_ADDED = st.lists(st.from_regex(r"[A-Z]{2,5}", fullmatch=True), min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(_LINES, _ADDED, _ADDED, st.integers(1, 3), st.integers(1, 3), st.data())
def test_different_insertions_that_both_span_one_gap_are_refused(before, one, two, c1, c2,
                                                                   data):
    gap = data.draw(st.integers(1, len(before) - 1))
    a, b = _insertion(before, gap, one, c1), _insertion(before, gap, two, c2)
    if one == two:
        assert _apply(before, a, b) == before[:gap] + one + before[gap:]  # stated twice
    else:
        with pytest.raises(ApplyError, match="no order can apply both"):
            _apply(before, a, b)


def test_an_insertion_with_context_on_one_side_keeps_response_order():
    before = ["a", "b", "c"]
    after_b = Hunk([(" ", "b"), ("+", "X")])
    between = _insertion(before, 2, ["Y"], 1)
    assert _apply(before, after_b, between) == ["a", "b", "X", "Y", "c"]


_BODY = st.lists(st.from_regex(r"[a-z]{1,4} = [0-9]{1,2}", fullmatch=True), min_size=3,
                 max_size=8, unique=True)


@settings(max_examples=150, deadline=None)
@given(_BODY, st.data(), st.sampled_from(["", "  ", "    ", "\t"]))
def test_a_restatement_that_needs_a_tolerance_is_the_same_edit(body, data, written):
    # the file indents the block by 4; a restated copy writes it at another depth: once
    # corrected to the file's indentation it is the same change, made once
    before = ["def f():"] + ["    " + t for t in body]
    k = data.draw(st.integers(2, len(body)))  # its context a body line too
    exact = Hunk([(" ", before[k - 1]), ("-", before[k]), ("+", before[k] + "0")])
    copy = Hunk([(" ", written + body[k - 2]),
                 ("-", written + body[k - 1]), ("+", written + body[k - 1] + "0")])
    assert _apply(before, exact, copy) == _apply(before, exact)
