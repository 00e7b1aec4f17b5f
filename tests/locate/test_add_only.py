"""add_only_refusal as a plain function (locate/add_only.py, BEHAVIOR.md §3): which edits
that only add lines, placed by nothing but a line number or by nothing at all, are the
whole file written again (refused) rather than an addition: an '@@ -0,0' hunk on a file
with lines, and a placeless hunk or chunk restating at least half of the file's lines."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.locate.add_only import RESTATED_SHARE, add_only_refusal, restated_lines
from git_aiapply.ops import Hunk

FILE = ["def f():", "    return 1", "", "def g():", "    return 2", "}"]


def added(*lines: str, **kw) -> Hunk:
    return Hunk([("+", t) for t in lines], **kw)


def test_a_zero_hunk_claims_an_empty_file():
    why = add_only_refusal(added("x = 1", line_hint=0), ["only"])
    assert why is not None
    reason, hint = why
    assert "'@@ -0,0'" in reason and "the file has 1 line;" in reason and "git apply" in reason
    assert "'-'" in hint and "'+'" in hint
    assert "the file has 6 lines" in add_only_refusal(added("x = 1", line_hint=0), FILE)[0]
    # on an empty file it fills it: nothing to refuse
    assert add_only_refusal(added("x = 1", line_hint=0), []) is None


def test_only_placeless_diff_hunks_and_chunks_are_judged():
    whole = list(FILE)
    assert add_only_refusal(added(*whole), FILE) is not None
    assert add_only_refusal(added(*whole, kind="chunk"), FILE) is not None
    # what says where, or says "at the end" in so many words, is the model's choice
    assert add_only_refusal(added(*whole, anchors=["def g():"], kind="chunk"), FILE) is None
    assert add_only_refusal(added(*whole, kind="search"), FILE) is None
    assert add_only_refusal(added(*whole, kind="append"), FILE) is None
    context = Hunk([(" ", "def f():")] + [("+", t) for t in whole])
    assert add_only_refusal(context, FILE) is None
    removed = Hunk([("-", "}")] + [("+", t) for t in whole])
    assert add_only_refusal(removed, FILE) is None
    # a blank context line says nothing of place: still judged
    blank = Hunk([(" ", "")] + [("+", t) for t in whole])
    assert add_only_refusal(blank, FILE) is not None


def test_a_stated_line_refuses_only_a_copy_that_starts_as_the_file_starts():
    # '@@ -6,0': a second function copied from the first is an addition there
    copy = added("def g():", "    return 2", line_hint=6)
    assert add_only_refusal(copy, FILE) is None
    whole = added(*FILE, line_hint=6)
    reason, _hint = add_only_refusal(whole, FILE)
    assert "restates the file" in reason and "hold 4 of the file's 4 lines" in reason


def test_half_of_the_files_lines_is_the_threshold():
    assert RESTATED_SHARE == 0.5
    # four lines say something ("", "}" do not): two of them restated is half
    assert add_only_refusal(added("def f():", "def g():", "x = 3"), FILE) is not None
    assert add_only_refusal(added("def f():", "x = 3", "y = 4"), FILE) is None
    # lines that say nothing never make a restatement
    assert add_only_refusal(added("", "}", "}"), FILE) is None


_LINE = st.sampled_from(["a = 1", "b = 2", "  c()", "", "}", "d"])


@settings(max_examples=80, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=8), st.lists(_LINE, min_size=1, max_size=8),
       st.sampled_from(["hunk", "chunk"]), st.sampled_from(["none", "context", "removed"]))
def test_the_rule_without_a_stated_line(file_lines, new, kind, place):
    """Property: a hunk with a removed line or a context line that says something is
    never refused; one of added lines alone is refused exactly when they restate at
    least half of the file's lines that say something."""
    lines = [("+", t) for t in new]
    if place == "context":
        lines.insert(0, (" ", "a = 1"))
    elif place == "removed":
        lines.insert(0, ("-", file_lines[0]))
    why = add_only_refusal(Hunk(lines, kind=kind), file_lines)
    if place != "none":
        assert why is None
        return
    restated, counted = restated_lines(new, file_lines)
    assert (why is not None) == (restated > 0 and restated >= RESTATED_SHARE * counted)
