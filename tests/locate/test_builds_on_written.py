"""A later edit that quotes lines an earlier edit wrote while the original holds the same
lines unchanged elsewhere (locate/builds_on.py, BEHAVIOR.md §3, issue 30): two readings,
refused as ambiguous naming both places, unless the edit's own marks pick one (a stated
line counted in the original or in the earlier edits' result; apply-patch anchors; an
end-of-file mark).  And the cheap filter that spares the trial to answers whose blocks
quote nothing another block adds never misses an edit that does."""
from __future__ import annotations

import pytest
from hypothesis import assume, event, given, settings, strategies as st

from conftest import file_text
from git_aiapply.errors import ApplyError
from git_aiapply.locate.builds_on import _after, _quoting_earlier, builds_on_earlier
from git_aiapply.locate.locate import apply_hunks, recording_changes
from git_aiapply.ops import Hunk

# a() holds the lines; the first edit writes the same lines into b()
ORIGINAL = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    return 0\n"
WRITE = Hunk([(" ", "def b():"), ("-", "    return 0"), ("+", "    x = 1"),
              ("+", "    return x")], number=1)


def later(**marks) -> Hunk:
    return Hunk([("-", "    x = 1"), ("+", "    x = 2"), (" ", "    return x")], number=2,
                **marks)


def apply_group(ft, hunks):
    return apply_hunks(ft, hunks, path="m.py")


def judge(*hunks: Hunk):
    return builds_on_earlier(file_text(ORIGINAL), [[WRITE], list(hunks)], apply_group,
                             path="m.py")


def test_with_nothing_to_say_which_it_is_refused_naming_both_places():
    with pytest.raises(ApplyError) as e:
        judge(later())
    (problem,) = e.value.problems
    assert problem.file == "m.py" and problem.edit == 2
    assert "the earlier edit 1 ('def b():') writes" in problem.reason
    assert "the file as it is holds the same lines (lines 2-3)" in problem.reason
    assert problem.candidates == [2]
    assert problem.nearby == [(2, "    x = 1"), (3, "    return x")]


@pytest.mark.parametrize("line, reading", [(2, False), (7, True)],
                         ids=["counted-in-the-original", "counted-after-the-first-edit"])
def test_a_stated_line_that_names_one_reading_decides(line, reading):
    # line 2: a()'s lines as the original counts them; line 7: b()'s new lines as the
    # first edit's result counts them (in the original, line 7 is `return 0`)
    assert judge(later(line_hint=line)) is reading


def test_a_stated_line_as_near_to_both_readings_says_nothing():
    # line 4 of the result lies 2 lines after a()'s copy and 3 before b()'s: the original
    # counting names a() (2 lines off), the result's counting a() too: the original
    assert judge(later(line_hint=4)) is False
    # a line far from both (past the end) names neither: refused
    far = Hunk(later().lines, number=2, line_hint=400)
    with pytest.raises(ApplyError):
        judge(far)


@pytest.mark.parametrize("anchor, reading", [("def a():", False), ("def b():", True)])
def test_an_anchor_that_names_one_function_decides(anchor, reading):
    assert judge(later(anchors=[anchor])) is reading


CLASS = "class C:\n    def a(self):\n        pass\n\n    def b(self):\n        return 1\n"


@pytest.mark.parametrize("write_in, reading", [("b", "original"), ("a", "refused")])
def test_an_anchor_whose_block_holds_both_copies_goes_to_its_first_fit_in_each(write_in, reading):
    # `@@ class C:` takes the first fit after it (BEHAVIOR.md §3): when the earlier edit
    # writes its copy (in b()) after the original's (in a()), both readings take a()'s;
    # written before it (in a()), the original's first fit and the result's differ
    where = {"a": "    def a(self):", "b": "    def b(self):"}[write_in]
    original = ("class C:\n    def a(self):\n        return 1\n\n    def b(self):\n"
                "        pass\n") if write_in == "b" else CLASS
    write = Hunk([(" ", where), ("-", "        pass"), ("+", "        return 1")], number=1)
    edit = Hunk([("-", "        return 1"), ("+", "        return 2")], number=2,
                anchors=["class C:"])
    groups = [[write], [edit]]
    if reading == "refused":
        with pytest.raises(ApplyError) as e:
            builds_on_earlier(file_text(original), groups, apply_group, path="m.py")
        assert "(line 6)" in str(e.value)
    else:
        assert builds_on_earlier(file_text(original), groups, apply_group) is False


def test_an_end_of_file_mark_decides():
    # the copy the first edit writes is at the end of the file; a()'s is not
    edit = Hunk([("-", "    x = 1"), ("+", "    x = 2"), (" ", "    return x")], number=2,
                at_eof=True)
    assert judge(edit) is True


def test_lines_an_earlier_edit_changed_are_no_second_reading():
    # the original's only copy is the one the first edit rewrites: today's rules decide
    # (an edit of what the first one left, or a revision of it), never this refusal
    original = "    x = 1\n    return x\n"
    write = Hunk([("-", "    x = 1"), ("+", "    y = 0"), ("+", "    x = 1")], number=1)
    assert not builds_on_earlier(file_text(original), [[write], [later()]], apply_group)


def test_a_later_edit_of_lines_no_edit_wrote_is_not_judged():
    edit = Hunk([(" ", "def a():"), ("-", "    x = 1"), ("+", "    x = 2")], number=2)
    assert not judge(edit)
    assert _quoting_earlier([[WRITE], [edit]]) == set()


# -- the cheap filter ---------------------------------------------------------------------

LINES = st.sampled_from(["a", "b", "", "  a", "c"])


def _fits(lines: list[str], old: list[str]) -> list[int]:
    n = len(old)
    return [i for i in range(len(lines) - n + 1) if lines[i:i + n] == old]


@settings(max_examples=200, deadline=None)
@given(original=st.lists(LINES, min_size=1, max_size=8), data=st.data())
def test_the_filter_never_misses_an_edit_that_fits_on_written_lines(original, data):
    """Property: whatever earlier edits (each applied in turn, with context, removed and
    added lines, some changing another's context), a later edit whose old side fits
    their result exactly on a line they wrote is among those ``_quoting_earlier`` keeps."""
    ft = file_text("".join(t + "\n" for t in original))
    writer = [-1] * len(ft.lines)
    groups = []
    for g in range(data.draw(st.integers(1, 3))):
        text = list(ft.lines)
        lo = data.draw(st.integers(0, max(0, len(text) - 1)))
        hi = data.draw(st.integers(min(lo + 1, len(text)), len(text)))
        lines = [(data.draw(st.sampled_from(" -")), t) for t in text[lo:hi]]
        for _ in range(data.draw(st.integers(1, 3))):
            lines.insert(data.draw(st.integers(0, len(lines))), ("+", data.draw(LINES)))
        h = Hunk(lines, number=g + 1)
        assume(not h.old or len(_fits(text, h.old)) == 1)
        try:
            with recording_changes() as changes:
                ft = apply_hunks(ft, [h], path="")[0]
        except ApplyError:
            assume(False)
        writer = _after(writer, changes, g)
        groups.append([h])
    text = list(ft.lines)
    assume(text)
    lo = data.draw(st.integers(0, len(text) - 1))
    old = text[lo:data.draw(st.integers(lo + 1, len(text)))]
    on_written = any(any(w >= 0 for w in writer[s:s + len(old)]) for s in _fits(text, old))
    last = Hunk([(" ", t) for t in old] + [("+", "new")], number=9)
    event(f'on written lines: {on_written}')
    if on_written:
        assert id(last) in _quoting_earlier(groups + [[last]])


def test_the_filter_keeps_blocks_that_only_share_a_common_line_out():
    # fifty blocks each add a blank line; fifty later ones quote a blank line elsewhere:
    # the lines around them disagree, so no block is tried (no trial in turn at all)
    groups = [[Hunk([(" ", f"f{k}"), ("+", ""), (" ", f"g{k}")], number=k + 1)]
              for k in range(50)]
    groups += [[Hunk([(" ", ""), (" ", f"h{k}"), ("+", "x")], number=k + 51)] for k in range(50)]
    assert _quoting_earlier(groups) == set()
