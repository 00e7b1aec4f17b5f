"""builds_on_earlier as a plain function (locate/builds_on.py, BEHAVIOR.md §3): a later
edit of a file builds on an earlier one when its old side fits the original only loosely
or not at all, yet exactly in the text the earlier edits leave, on lines they wrote; the
written lines are followed through every earlier edit, and the trial reports nothing."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate import edit_report
from git_aiapply.locate.builds_on import builds_on_earlier
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import file_text


def H(spec: str, number: int = 1) -> Hunk:
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], number=number)


def apply_group(ft, hunks):
    return apply_hunks(ft, hunks, path="m.py")


# a method of the same name, indented: the loose fit of `def add(x, y):`
ORIGINAL = ("import os\nimport sys\ndef add(a, b):\n    return a + b\n"
            "class V:\n    def add(x, y):\n        return x + y\n")
RENAME = [H("-def add(a, b):\n+def add(x, y):")]
DOCUMENT = [H(' def add(x, y):\n+    """Add."""', 3)]


def test_written_lines_are_followed_through_a_later_edit_that_moves_them():
    # the second edit deletes the two lines above the renamed one: the line it wrote
    # moves up by two, and the third edit quotes it there
    drop_imports = [H("-import os\n-import sys", 2)]
    ft = file_text(ORIGINAL)
    assert builds_on_earlier(ft, [RENAME, drop_imports, DOCUMENT], apply_group)
    assert builds_on_earlier(ft, [RENAME, DOCUMENT], apply_group)
    assert not builds_on_earlier(ft, [drop_imports, DOCUMENT], apply_group)  # wrote nothing


def test_an_exact_fit_on_lines_no_edit_wrote_is_not_building_on_them():
    # deleting `b` joins `a` and `c`: the later edit fits there exactly, but on no line
    # an edit wrote (its loose fit is the indented pair)
    ft = file_text("a\nb\nc\n  a\n  c\n")
    assert not builds_on_earlier(ft, [[H("-b")], [H(" a\n c\n+d", 2)]], apply_group)
    assert builds_on_earlier(ft, [[H("-b\n+a\n+c")], [H(" a\n c\n+d", 2)]], apply_group)


def test_nothing_to_build_on():
    ft = file_text(ORIGINAL)
    assert not builds_on_earlier(ft, [RENAME], apply_group)  # one group
    # later edits without an old side (pure insertions) quote nothing
    assert not builds_on_earlier(ft, [RENAME, [H("+x = 1", 2)]], apply_group)
    # an earlier edit that does not fit: the edits cannot be applied in turn
    assert not builds_on_earlier(ft, [[H("-nowhere\n+x")], DOCUMENT], apply_group)


def test_the_trial_reports_nothing_and_leaves_the_text_alone():
    ft = file_text(ORIGINAL)
    before = ft.to_bytes()
    with edit_report.scope() as got:
        assert builds_on_earlier(ft, [RENAME, DOCUMENT], apply_group)
    assert got == []
    assert ft.to_bytes() == before


_LINES = st.lists(st.sampled_from(["a", "b", "c", "  a", "  b", "x"]), min_size=1, max_size=8)


@settings(max_examples=50, deadline=None)
@given(_LINES, st.data())
def test_an_edit_that_fits_the_original_exactly_never_builds_on_another(original, data):
    """Property: whatever the earlier edits write, later edits whose old sides are runs of
    the original as it is, with no line number or anchor, are never applied in turn:
    located against the original, or refused as ambiguous when they also fit lines an
    earlier edit wrote (issue 30; the exact rule: tests/plan/test_gather_builds_on_earlier)."""
    def run(lines):
        start = data.draw(st.integers(0, len(lines) - 1))
        return lines[start:start + data.draw(st.integers(1, len(lines) - start))]

    earlier = [Hunk([("-", t) for t in run(original)]
                    + [("+", t) for t in data.draw(st.lists(st.sampled_from(["a", "x", "y"]),
                                                            max_size=3))])]
    later = [[Hunk([(" ", t) for t in run(original)] + [("+", "new")], number=k + 2)]
             for k in range(data.draw(st.integers(1, 2)))]
    ft = file_text("".join(t + "\n" for t in original))
    try:
        assert not builds_on_earlier(ft, [earlier, *later], apply_group)
    except ApplyError as e:
        assert "writes, and the file as it is holds the same lines" in str(e)
