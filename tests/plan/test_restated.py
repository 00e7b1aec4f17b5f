"""Edits that restate what an earlier operation of the response made, as plain functions
(plan/restated.py, BEHAVIOR.md §3): the runs two texts differ by, the earlier contents
each file held and whose call or block changed them, the hunks of a later diff left out
as already made (the rest kept), a creation made again, and refusals that say what the
edit was matched against."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.errors import Problem
from git_aiapply.locate import edit_report
from git_aiapply.ops import EditFile, Hunk, NewFile, Source
from git_aiapply.plan.plan import MODE_FILE, FileState
from git_aiapply.plan.restated import EARLIER_TRIED, EarlierContents, changes, restates_earlier

MULTI = "tool call 1 (tool_use MultiEdit): MultiEdit f"
EDIT_1, EDIT_2 = Source("tool-call", MULTI + ", edit 1"), Source("tool-call", MULTI + ", edit 2")
DIFF = Source("unified-diff", "diff f", block=2, line=10)


def one_edit(old: str, new: str, number: int = 1) -> Hunk:
    return Hunk([("-", old), ("+", new)], number=number)


def multiedit() -> EarlierContents:
    """A MultiEdit of f made `a` -> `A`, then `e` -> `E`: f holds A b c d E."""
    earlier = EarlierContents()
    earlier.changed("f", b"a\nb\nc\nd\ne\n", EDIT_1)
    earlier.changed("f", b"A\nb\nc\nd\ne\n", EDIT_2)
    return earlier


NOW = b"A\nb\nc\nd\nE\n"


def test_a_recap_keeps_only_the_hunks_not_made_already_and_says_so():
    recap = EditFile("f", [one_edit("a", "A"), one_edit("c", "C", 2)], DIFF)
    with edit_report.scope() as got:
        left = multiedit().without_restated(recap, "f", NOW)
    assert [h.number for h in left.hunks] == [2]
    assert [(r.directive, r.edit, r.how) for r in got] == [("diff f", 1, ["restated"])]
    both = EditFile("f", [one_edit("a", "A"), one_edit("e", "E", 2)], DIFF)
    assert multiedit().without_restated(both, "f", NOW) is None  # every hunk made already
    # a file no earlier operation changed: nothing to compare with
    assert EarlierContents().without_restated(both, "f", NOW) is both


def test_the_edits_of_one_call_are_never_restatements_of_each_other():
    # the MultiEdit's own edit, met again: a sequence the tool runs strictly
    again = EditFile("f", [one_edit("a", "A")], EDIT_2)
    assert multiedit().without_restated(again, "f", NOW) is again


def test_a_creation_with_the_content_an_earlier_operation_gave_is_made_once():
    earlier = multiedit()
    current = FileState(MODE_FILE, NOW)
    assert earlier.made_again(NewFile("f", NOW.decode(), DIFF, replace=False), "f", current)
    assert not earlier.made_again(NewFile("f", "other\n", DIFF, replace=False), "f", current)
    assert not earlier.made_again(NewFile("f", NOW.decode(), DIFF, replace=True), "f", current)
    assert not EarlierContents().made_again(NewFile("f", NOW.decode(), DIFF, replace=False),
                                            "f", current)
    earlier.forget("f")  # deleted or moved away: a file put there later starts afresh
    assert not earlier.has("f")
    assert not earlier.made_again(NewFile("f", NOW.decode(), DIFF, replace=False), "f", current)


def test_a_refusal_says_it_was_matched_against_the_file_as_earlier_edits_left_it():
    earlier = multiedit()
    for n in range(2, 5):
        earlier.changed("f", NOW, Source("search-replace", f"block {n}", block=n, line=n))
    mine, other, loose = Problem("not found", file="f"), Problem("x", file="g"), Problem("y")
    told = earlier.as_left("f", [mine, other, loose])
    assert told[1] is other  # another file's problem is its own
    note = ("(matched against f as the response's earlier edits left it, not as the "
            "repository holds it; earlier edits: tool call 1 (tool_use MultiEdit), block 2, "
            "block 3, ...)")
    assert told[0].reason == "not found " + note and told[2].reason == "y " + note
    assert mine.reason == "not found"  # the problems given are not changed in place
    assert EarlierContents().as_left("f", [mine]) == [mine]


def test_only_so_many_earlier_contents_are_tried():
    tried = []

    def make(i, data):
        tried.append(i)
        return None  # fits nowhere

    contents = [b"%d\n" % i for i in range(EARLIER_TRIED + 5)]
    assert not restates_earlier(contents, b"now\n", make)
    assert tried == list(range(EARLIER_TRIED))
    # the first content where the edit makes what is there already restates it
    assert restates_earlier([b"a\n", b"b\n"], b"c\n", lambda i, data: b"c\n" if i else None)


_LINES = st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"\n"]), max_size=10)


@settings(max_examples=80, deadline=None)
@given(_LINES, _LINES)
def test_the_runs_two_texts_differ_by_turn_one_into_the_other(a, b):
    """Property: the runs are in order, apart, none empty on both sides, and replacing
    each a[a1:a2] by b[b1:b2] turns a into b; equal texts have none."""
    runs = changes(a, b)
    assert (runs == []) == (a == b)
    out, at_a, at_b = [], 0, 0
    for a1, a2, b1, b2 in runs:
        assert a1 >= at_a and b1 >= at_b and (a1 < a2 or b1 < b2)
        assert a[at_a:a1] == b[at_b:b1]  # what lies between two runs is common
        out += a[at_a:a1] + b[b1:b2]
        at_a, at_b = a2, b2
    assert out + a[at_a:] == b
