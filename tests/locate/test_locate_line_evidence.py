"""Line numbers are evidence of place, never overridden (BEHAVIOR.md §3): a unified-diff
hunk whose stated line points at one of its fits takes that fit, whether the file's other
edits come in another section, another format, or could only fit one after another.
Neither "copies take successive fits" nor "a later directive applies to the earlier's
result" may move it to another copy of its lines (red-team F3: a revised diff of
Warehouse.value landed on Store.value, 43 lines from its stated line)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import image
from git_aiapply.ops import EditFile, Hunk, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, make_plan

from conftest import GitRepo
from plan_base import DictBase

# a file holding one block twice, far apart (Warehouse.value and Store.value)
BLOCK = ["def value(self):", "    total = 0", "    return total"]
FILLER_A = [f"a{k} = {k}" for k in range(10)]
FILLER_B = [f"b{k} = {k}" for k in range(40)]
TWICE = FILLER_A + BLOCK + FILLER_B + BLOCK + ["end = 1"]
FIRST, SECOND = len(FILLER_A), len(FILLER_A) + len(BLOCK) + len(FILLER_B)  # 0-based starts


def _text(lines: list[str]) -> bytes:
    return "".join(t + "\n" for t in lines).encode()


def _rounding(new: str, **kw) -> Hunk:
    """Replace the block's last line with ``new``."""
    return Hunk([(" ", BLOCK[0]), (" ", BLOCK[1]), ("-", BLOCK[2]), ("+", new)], **kw)


def _diff(hunk: Hunk, n: int) -> EditFile:
    return EditFile("f.py", [hunk], Source("unified-diff", f"diff {n} f.py", block=n))


def _blocks(hunk: Hunk, n: int) -> EditFile:
    return EditFile("f.py", [hunk], Source("search-replace", f"block {n} f.py", block=n),
                    in_turn=True)


def _final(ops: list[EditFile], lines: list[str] = TWICE) -> list[str]:
    plan = make_plan(ops, DictBase({"f.py": (MODE_FILE, _text(lines))}),
                     lambda p: normalize_path(p, worktree="/w"))
    return plan.final["f.py"].data.decode().split("\n")[:-1]


def _with(lines: list[str], at: int, new: str) -> list[str]:
    out = list(lines)
    out[at + len(BLOCK) - 1] = new
    return out


def test_a_revised_diff_at_the_same_stated_line_is_refused_as_overlapping():
    first = _diff(_rounding("    return round(total, 2)", line_hint=FIRST + 1), 1)
    revised = _diff(_rounding("    return round(total)", line_hint=FIRST + 1), 2)
    with pytest.raises(ApplyError) as e:
        _final([first, revised])
    assert "overlaps edit 1 ('def value(self):') of the earlier block 1 (diff 1 f.py)" \
        in str(e.value)


def test_a_revised_diff_at_the_other_copy_s_line_takes_that_copy():
    first = _diff(_rounding("    return round(total, 2)", line_hint=FIRST + 1), 1)
    other = _diff(_rounding("    return round(total)", line_hint=SECOND + 1), 2)
    want = _with(_with(TWICE, FIRST, "    return round(total, 2)"), SECOND, "    return round(total)")
    assert _final([first, other]) == want


def test_a_numbered_diff_restated_as_a_block_is_made_once_at_the_stated_line():
    for numbered_first in (True, False):
        new = "    return round(total, 2)"
        diff = _diff(_rounding(new, line_hint=SECOND + 1), 1)
        block = _blocks(_rounding(new), 2)
        ops = [diff, block] if numbered_first else [block, diff]
        assert _final(ops) == _with(TWICE, SECOND, new), numbered_first


def test_blocks_without_numbers_of_one_search_and_two_replaces_are_refused():
    # red-team F2, now BEHAVIOR.md §3: two versions of the same lines are a revision
    # (never the next copy by elimination, as aider would apply them)
    first = _blocks(_rounding("    return round(total, 2)"), 1)
    second = _blocks(_rounding("    return round(total)"), 2)
    with pytest.raises(ApplyError, match="two different versions of the same lines"):
        _final([first, second])


def test_a_later_diff_written_against_the_earlier_result_still_applies_in_turn():
    # diff 1 adds three lines at the top and rounds the first copy; diff 2 is numbered
    # by that result: it re-rounds the first copy (its old side is only in the result,
    # so the two fit only one after the other) and rounds the second copy, whose old side
    # is in the original too, three lines above its stated line
    top = Hunk([("+", "import math"), ("+", "import os"), ("+", ""), (" ", TWICE[0])],
               line_hint=1)
    first = EditFile("f.py", [top, _rounding("    return round(total, 2)", number=2,
                                             line_hint=FIRST + 1)],
                     Source("unified-diff", "diff 1 f.py", block=1))
    again = Hunk([(" ", BLOCK[0]), (" ", BLOCK[1]), ("-", "    return round(total, 2)"),
                  ("+", "    return round(total, 3)")], line_hint=FIRST + 4)
    second = EditFile("f.py", [again, _rounding("    return math.floor(total)", number=2,
                                                line_hint=SECOND + 4)],
                      Source("unified-diff", "diff 2 f.py", block=2))
    want = ["import math", "import os", ""] + _with(
        _with(TWICE, FIRST, "    return round(total, 3)"), SECOND, "    return math.floor(total)")
    assert _final([first, second]) == want


# ---- property: every numbered hunk lands at its nearest fit, or the run is refused -----

SPACING = 12  # lines between copies: more than any jitter and offset the cases make
COPIES = 4
NEWS = ["    return round(total)", "    return round(total, 2)", "    return int(total)"]


def _copies_file() -> list[str]:
    out = []
    for c in range(COPIES):
        out += [f"pad{c}_{k} = {k}" for k in range(SPACING - len(BLOCK))] + BLOCK
    return out + ["end = 1"]


COPIES_FILE = _copies_file()
STARTS = [c * SPACING + SPACING - len(BLOCK) for c in range(COPIES)]


def test_a_revised_diff_restating_a_long_addition_is_refused_too():
    # the revision restates the whole first diff: its long addition (made once) and its
    # other version of the first copy's edit; the next copy lies within 20 lines of the
    # stated line and the addition adds more lines than that, so no bound on how far
    # lines moved tells the copies apart: only following the stated fit through the change
    grow = Hunk([(" ", COPIES_FILE[-1])] + [("+", f"new{k} = {k}") for k in range(60)],
                number=2, line_hint=len(COPIES_FILE))

    def diff(new: str, n: int) -> EditFile:
        return EditFile("f.py", [_rounding(new, line_hint=STARTS[0] + 1), grow],
                        Source("unified-diff", f"diff {n} f.py", block=n))

    with pytest.raises(ApplyError) as e:
        _final([diff("    return round(total, 2)", 1), diff("    return round(total)", 2)],
               COPIES_FILE)
    assert "overlaps edit 1 ('def value(self):') of the earlier block 1 (diff 1 f.py)" \
        in str(e.value)


@st.composite
def numbered_edits(draw):
    """Up to four edits of the block, each with a stated line near one copy (jitter of at
    most 2 lines), in one or two diffs: (copy, new side, section, jitter) each."""
    n = draw(st.integers(1, 4))
    return [(draw(st.integers(0, COPIES - 1)), draw(st.sampled_from(NEWS)),
             draw(st.integers(0, 1)), draw(st.integers(-2, 2))) for _ in range(n)]


GROW = [f"new{k} = {k}" for k in range(30)]  # more lines than the copies lie apart


def _grow(number: int) -> Hunk:
    return Hunk([(" ", COPIES_FILE[-1])] + [("+", t) for t in GROW], number=number,
                line_hint=len(COPIES_FILE))


@settings(max_examples=150, deadline=None)
@given(numbered_edits(), st.booleans(), st.booleans())
def test_every_numbered_hunk_lands_at_its_nearest_fit_or_the_run_is_refused(edits, as_blocks,
                                                                            grow):
    # the expected result, computed from the stated lines alone: each edit at the copy its
    # line names; the same edit again at a copy it took goes to the next copy it did not
    # take (then the first), made once beyond them; two different edits of a copy collide
    wanted: dict[int, set[str]] = {}
    named: dict[int, set[str]] = {}  # as the lines name them, before any copy moves on
    for copy, new, _s, _j in edits:
        named.setdefault(copy, set()).add(new)
    taken: dict[str, set[int]] = {}
    for _section, _k, copy, new in sorted((s, k, c, n) for k, (c, n, s, _j) in enumerate(edits)):
        places = taken.setdefault(new, set())
        if copy in places:
            rest = [c for c in range(COPIES) if c not in places]
            if not rest:
                continue
            copy = next((c for c in rest if c > copy), rest[0])
        places.add(copy)
        wanted.setdefault(copy, set()).add(new)
    ops = []
    for section in (0, 1):
        hunks = [_rounding(new, number=k + 1, line_hint=STARTS[copy] + 1 + jitter)
                 for k, (copy, new, s, jitter) in enumerate(edits) if s == section]
        if hunks and grow:  # every diff also adds a long tail: one change, made once
            hunks.append(_grow(len(hunks) + 1))
        if hunks:
            ops.append(EditFile("f.py", hunks, Source("unified-diff", f"diff {section} f.py")))
    if as_blocks:  # one more section restating the first edit without numbers (a block)
        copy, new, _s, _j = edits[0]
        ops.append(_blocks(_rounding(new), 9))
    if any(len(news) > 1 for news in named.values()):
        with pytest.raises(ApplyError, match="overlap"):
            _final(ops, COPIES_FILE)
        return
    if any(len(news) > 1 for news in wanted.values()):
        # a copy moved on to a copy of the lines another edit names: refused, or (applied
        # in turn) made once where an earlier copy made it; never another edit lost
        try:
            got = _final(ops, COPIES_FILE)
        except ApplyError:
            return
        for copy, news in named.items():
            assert got[STARTS[copy] + len(BLOCK) - 1] == next(iter(news))
        return
    want = list(COPIES_FILE) + (GROW if grow else [])
    for copy, news in wanted.items():
        want = _with(want, STARTS[copy], next(iter(news)))
    assert _final(ops, COPIES_FILE) == want


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.data())
def test_image_follows_a_line_range_through_changes_or_says_it_was_changed(n, data):
    # unique lines, and unique added ones: a range is intact where its lines still stand
    # together in the result, and there its image must be
    lines = [f"l{k}" for k in range(n)]
    changes = []
    for step in range(data.draw(st.integers(1, 3))):
        runs, pos = [], 0
        while pos <= len(lines) and data.draw(st.booleans()):
            a = data.draw(st.integers(pos, len(lines)))
            b = data.draw(st.integers(a, min(a + 2, len(lines))))
            runs.append((a, b, [f"s{step}r{len(runs)}x{k}" for k in range(data.draw(st.integers(0 if b > a else 1, 2)))]))
            pos = b + 1
        changes.append([(a, b, len(t)) for a, b, t in runs])
        for a, b, t in reversed(runs):
            lines = lines[:a] + t + lines[b:]
    start = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n - start))
    want = [f"l{k}" for k in range(start, start + length)]
    at = image(start, length, changes)
    places = [i for i in range(len(lines)) if lines[i:i + length] == want]
    # where it names a place, it is the range's; where the range is gone, it names none.
    # It may say "changed" of a range a later change restored (lines an earlier change
    # inserted in it, removed again): refusing there is safe, placing wrongly is not
    assert (at is None) if not places else (at is None or places == [at])
    touched = any(a < start + length and b > start or a == b and start < a < start + length
                  for step in changes[:1] for a, b, _n in step)
    if len(changes) == 1 and not touched:
        assert at is not None


# ---- end to end: the red-team answer (F3) ---------------------------------------------

def _response(first_new: str, second_new: str, line: int) -> str:
    def diff(new: str) -> str:
        return ("```diff\n--- a/f.py\n+++ b/f.py\n"
                f"@@ -{line},3 +{line},3 @@\n {BLOCK[0]}\n {BLOCK[1]}\n-{BLOCK[2]}\n+{new}\n```\n")
    return ("Round the value.\n\n" + diff(first_new)
            + "\nActually, rounding to whole units is enough here:\n\n" + diff(second_new))


def test_e2e_revised_diff_of_one_copy_is_refused_and_nothing_changes(repo: GitRepo):
    repo.write("f.py", _text(TWICE))
    head = repo.commit_all("base")
    before = repo.snapshot()
    r = repo.run(response=_response("    return round(total, 2)", "    return round(total)",
                                    FIRST + 1))
    assert r.returncode == 1, r.out + r.err
    # the two diffs carry one label: the message tells which one the revision overlaps
    assert ("block 2 (diff f.py) overlaps edit 1 ('def value(self):') of the earlier block 1 "
            "(diff f.py) (lines 11-13)") in r.err, r.err
    assert "send the final version alone" in r.err
    assert repo.head() == head and repo.snapshot() == before


def test_e2e_the_same_diff_twice_takes_both_copies_of_its_lines(repo: GitRepo):
    # BEHAVIOR.md §3: copies of one edit take as many places as its old side has fits
    # (a hunk copied with its header for "the same change in Store"), one each in order
    repo.write("f.py", _text(TWICE))
    repo.commit_all("base")
    new = "    return round(total)"
    r = repo.run(response=_response(new, new, SECOND + 1))
    assert r.returncode == 0, r.out + r.err
    assert repo.read("f.py") == _text(_with(_with(TWICE, SECOND, new), FIRST, new))
