"""divider_readings as plain functions (locate/divider_readings.py, BEHAVIOR.md §3): the
file chooses among a block's divider readings (each refused block named, all of them
told at once), and apply_edit locates a file's blocks together, or in turn as aider
applies them when they fit only so, at once when a block builds on an earlier one."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.formats.search_blocks import diff_lines
from git_aiapply.locate.divider_readings import apply_edit, choose_readings
from git_aiapply.ops import Hunk
from conftest import file_text, text_of


def block(n: int, search: list[str], replace: list[str]) -> Hunk:
    return Hunk(diff_lines(search, replace), number=n, kind="search")


def ambiguous(n: int, parts: list[str]) -> Hunk:
    """A block `parts[0] ======= parts[1] ======= parts[2]`: two readings, one per
    '=======' line taken as the divider."""
    a, b, c = parts
    first = ("the first ======= as the divider", diff_lines([a], [b, "=======", c]))
    second = ("the second ======= as the divider", diff_lines([a, "=======", b], [c]))
    return Hunk(first[1], number=n, kind="search", readings=[first, second])


def test_the_chosen_reading_replaces_the_block_and_plain_blocks_keep_their_place():
    plain = block(1, ["x"], ["X"])
    chosen = choose_readings(["x", "Title", "=======", "old"],
                             [plain, ambiguous(2, ["Title", "old", "new"])], path="f.md")
    assert chosen[0] is plain
    assert chosen[1].number == 2 and chosen[1].readings == []
    assert chosen[1].lines == diff_lines(["Title", "=======", "old"], ["new"])


def test_every_refused_block_is_told_at_once():
    lines = ["a", "=======", "b", "a"]  # block 1: both readings fit; block 2: none
    with pytest.raises(ApplyError) as e:
        choose_readings(lines, [ambiguous(1, ["a", "b", "c"]), block(2, ["a"], ["A"]),
                                ambiguous(3, ["p", "q", "r"])], path="f.md", directive="d")
    first, third = e.value.problems
    assert (first.edit, third.edit) == (1, 3)
    assert "fits the SEARCH of 2 of the readings" in first.reason
    assert "no reading's SEARCH fits the file" in third.reason
    assert first.file == third.file == "f.md" and first.directive == "d"
    assert "'='" in first.hint


ORIGINAL = ("def add(a, b):\n    return a + b\n\n\nclass V:\n"
            "    def add(x, y):\n        return x + y\n")
RENAME = block(1, ["def add(a, b):", "    return a + b"], ["def add(x, y):", "    return x + y"])
DOCUMENT = block(2, ["def add(x, y):", "    return x + y"],
                 ["def add(x, y):", '    """Add."""', "    return x + y"])


def test_a_block_building_on_an_earlier_one_is_applied_in_turn_at_once():
    # together, the second block fits the method (indented) loosely and lands there
    together = text_of(apply_edit(file_text(ORIGINAL), [RENAME, DOCUMENT], path="m.py")[0])
    assert together.endswith('    def add(x, y):\n        """Add."""\n        return x + y\n')
    # aider's blocks apply in turn: the second quotes what the first wrote
    new, added, removed = apply_edit(file_text(ORIGINAL), [RENAME, DOCUMENT], path="m.py",
                                     in_turn=True)
    assert text_of(new) == ('def add(x, y):\n    """Add."""\n    return x + y\n\n\nclass V:\n'
                            "    def add(x, y):\n        return x + y\n")
    assert (added, removed) == (3, 2)


def test_one_block_is_never_tried_in_turn_and_its_refusal_is_its_own():
    with pytest.raises(ApplyError) as e:
        apply_edit(file_text("a\nb\n"), [block(1, ["zzz"], ["y"])], path="f", in_turn=True)
    (p,) = e.value.problems
    assert p.edit == 1 and p.file == "f"


@pytest.mark.parametrize("in_turn", [False, True])
def test_a_final_newline_is_supplied_when_asked_either_way(in_turn):
    # in turn: the second block quotes the first one's new line
    hunks = [block(1, ["a"], ["A"]), block(2, ["A"], ["B"])] if in_turn else [block(1, ["a"], ["A"])]
    new, _a, _r = apply_edit(file_text("x\na"), hunks, path="f", in_turn=in_turn,
                             ensure_final_newline=True)
    assert text_of(new) == ("x\nB\n" if in_turn else "x\nA\n")
    new, _a, _r = apply_edit(file_text("x\na"), hunks, path="f", in_turn=in_turn)
    assert text_of(new).endswith(("B", "A")) and not text_of(new).endswith("\n")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 99), min_size=2, max_size=10, unique=True), st.data())
def test_blocks_that_fit_together_give_the_same_file_in_turn(numbers, data):
    """Property: blocks on distinct lines of a file that all fit together give the same
    file, counts and all, whether or not they may also apply in turn."""
    lines = [f"line {n}" for n in numbers]
    picked = data.draw(st.lists(st.integers(0, len(lines) - 1), min_size=1, max_size=4,
                                unique=True))
    hunks = [block(k + 1, [lines[i]], data.draw(st.lists(st.sampled_from(["x", "y = 1", ""]),
                                                         max_size=2)) + [f"new {k}"])
             for k, i in enumerate(picked)]
    ft = file_text("".join(t + "\n" for t in lines))
    together = apply_edit(ft, hunks, path="f")
    in_turn = apply_edit(ft, hunks, path="f", in_turn=True)
    assert (text_of(in_turn[0]), in_turn[1:]) == (text_of(together[0]), together[1:])
