"""The indentation mapping is asked only of edits whose added lines need it (BEHAVIOR.md
§3): an edit that only removes lines, or whose added lines all sit at depths every reading
of the matched lines agrees on, is not refused because its context admits no single
mapping; an added line whose depth depends on the reading still is."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.locate.matching import CannotCorrect, agreed_depths, indent_mapping
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText

# the edit indents lines 2 and 3 alike where the file has 4 and 8 spaces: no single mapping
INCONSISTENT = [("", "", 1), ("    ", "    ", 2), ("    ", "        ", 3)]


def test_no_added_line_needs_no_mapping():
    assert indent_mapping(INCONSISTENT, []) is None


def test_an_added_line_whose_depth_depends_on_the_reading_is_refused():
    with pytest.raises(CannotCorrect):
        indent_mapping(INCONSISTENT, ["    "])  # 4 or 8 spaces?


def test_a_depth_every_reading_agrees_on_is_kept():
    pairs = [("", "", 1), ("    ", "    ", 2), ("      ", "        ", 3)]  # 6 -> 8: odd one
    assert not agreed_depths(pairs, ["      "])
    assert agreed_depths(pairs, ["    ", ""])
    # a consistent mapping exists here (a shift of the deeper lines)? whichever: no refusal
    indent_mapping(pairs, ["    "])
    # two edit depths, one file depth: the added line's depth depends on the reading
    assert not agreed_depths([("  ", "    ", 1), ("    ", "    ", 2)], ["    "])
    assert not agreed_depths(pairs, ["  "])  # a depth no matched line has


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(["", "  ", "    ", "\t", "      "]),
                          st.sampled_from(["", "  ", "    ", "\t", "        "])),
                min_size=1, max_size=8))
def test_a_removal_never_needs_a_mapping(depths):
    pairs = [(e, f, n + 1) for n, (e, f) in enumerate(depths)]
    assert indent_mapping(pairs, []) is None


def H(spec: str, kind: str = "search") -> Hunk:
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], kind=kind)


def run(before: str, hunk: Hunk) -> str:
    new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), [hunk], path="f.py")
    return new.to_bytes().decode()


# a removal whose context the model indented every which way applies: exactly its removed
# lines go, the rest keeps the file's bytes
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_removals_apply_whatever_the_context_indentation(data):
    n = data.draw(st.integers(3, 9))
    depth = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    lines = ["    " * d + f"s{i}()" for i, d in enumerate(depth)]
    removed = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n - 1))
    shown = [data.draw(st.sampled_from(["", " ", "  ", "   ", "    ", "\t", "        "])) + l.strip()
             for l in lines]
    spec = "\n".join(("-" if i in removed else " ") + shown[i] for i in range(n))
    for kind in ("search", "hunk", "chunk"):
        got = run("\n".join(lines) + "\n", H(spec, kind))
        assert got == "".join(l + "\n" for i, l in enumerate(lines) if i not in removed)


def test_an_added_line_at_an_agreed_depth_applies():
    before = "def f():\n    x = 1\n    if x:\n        y = 2\n    return y\n"
    # 'y = 2' shown 6 deep where the file has 8; the added line sits with 'x = 1' (4 = 4)
    got = run(before, H(" def f():\n     x = 1\n+    w = 0\n     if x:\n       y = 2", "hunk"))
    assert got == "def f():\n    x = 1\n    w = 0\n    if x:\n        y = 2\n    return y\n"


def test_an_added_line_at_a_disputed_depth_is_still_refused():
    before = "def f():\n    x = 1\n    if x:\n        y = 2\n    return y\n"
    with pytest.raises(ApplyError) as e:
        run(before, H("     x = 1\n     if x:\n     y = 2\n+    z = 3", "hunk"))
    assert "indentation" in str(e.value)
