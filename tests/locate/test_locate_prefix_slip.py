"""A diff's context lines written without their one-space prefix, or with two (BEHAVIOR.md
§3): a uniform one-column shift that only the context lines show is a slip of the prefix,
not a drift of the indentation, so the added lines keep their own indentation.  The
locator as a plain function, file text + hunks -> text."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import file_text, text_of

PY = ("class Store:\n"
      "    def value(self):\n"
      "        total = 0\n"
      "        for item in self.items.values():\n"
      "            total += item.total()\n"
      "        return total\n")


def run(before: str, hunk: Hunk) -> str:
    new, _a, _r = apply_hunks(file_text(before), [hunk], path="f.py")
    return text_of(new)


def hunk(kind: str, lines: list[tuple[str, str]]) -> Hunk:
    return Hunk(lines, kind=kind)


def slipped(text: str, slip: int) -> str:
    """A context line as a slipped prefix reads it: one space short, or one more."""
    return text[1:] if slip < 0 else " " + text


@pytest.mark.parametrize("kind", ["hunk", "chunk"])
@pytest.mark.parametrize("slip", [-1, 1])
def test_context_slip_keeps_the_added_lines_indentation(kind, slip):
    ctx = PY.splitlines()[2:5]
    lines = [(" ", slipped(t, slip)) for t in ctx]
    lines.append(("+", "            print(item)"))
    out = run(PY, hunk(kind, lines))
    assert "\n            print(item)\n        return total\n" in out


@pytest.mark.parametrize("slip", [-1, 1])
def test_removed_lines_at_the_file_depth_confirm_the_slip(slip):
    # context slipped, removed line exact: still a slip
    lines = [(" ", slipped("        total = 0", slip)),
             (" ", slipped("        for item in self.items.values():", slip)),
             ("-", "            total += item.total()"),
             ("+", "            total += item.total() * 2")]
    out = run(PY, hunk("hunk", lines))
    assert "\n            total += item.total() * 2\n" in out


@pytest.mark.parametrize("slip", [-1, 1])
def test_removed_lines_shifted_alike_are_a_real_drift(slip):
    # every old line one column off, removed ones too: the drift is mapped as before
    lines = [(" ", slipped("        total = 0", slip)),
             ("-", slipped("        for item in self.items.values():", slip)),
             ("+", slipped("        for item in self.items:", slip)),
             (" ", slipped("            total += item.total()", slip))]
    out = run(PY, hunk("hunk", lines))
    assert "\n        for item in self.items:\n" in out


@pytest.mark.parametrize("slip", [-1, 1])
def test_search_replace_has_no_prefix_to_slip(slip):
    # SEARCH/REPLACE: the same shift is the model's indentation, carried to the new lines
    ctx = PY.splitlines()[2:5]
    lines = [(" ", slipped(t, slip)) for t in ctx] + [("+", slipped("            print(item)", slip))]
    out = run(PY, hunk("search", lines))
    assert "\n            print(item)\n        return total\n" in out


@settings(max_examples=150, deadline=None)
@given(depths=st.lists(st.integers(0, 4), min_size=2, max_size=6),
       added_depth=st.integers(0, 5), slip=st.sampled_from([-1, 1]),
       kind=st.sampled_from(["hunk", "chunk"]), unit=st.sampled_from([2, 4]))
def test_property_a_prefix_slip_never_moves_an_added_line(depths, added_depth, slip, kind, unit):
    """Whatever the depths, a context-only one-column slip leaves every added line exactly
    as the response wrote it (the file's own lines are kept as they were)."""
    if slip < 0 and min(depths) == 0:
        depths = [d + 1 for d in depths]  # a line at column 0 cannot lose a prefix space
    body = [" " * (unit * d) + f"line{k} = {k}" for k, d in enumerate(depths)]
    before = "\n".join(["# head"] + body + ["# tail"]) + "\n"
    added = " " * (unit * added_depth) + "added = 1"
    lines = [(" ", slipped(t, slip)) for t in body] + [("+", added)]
    out = run(before, hunk(kind, lines))
    assert out == "\n".join(["# head"] + body + [added, "# tail"]) + "\n"


@pytest.mark.parametrize("kind", ["hunk", "chunk"])
def test_added_lines_off_the_files_grid_are_the_same_drift(kind):
    # '+ ' with a space after the plus, like the context's two spaces: every line of the
    # hunk is one column deep, so the added line is mapped back onto the file's levels
    ctx = PY.splitlines()[2:5]
    lines = [(" ", " " + t) for t in ctx] + [("+", "             print(item)")]
    out = run(PY, hunk(kind, lines))
    assert "\n            print(item)\n        return total\n" in out


@settings(max_examples=150, deadline=None)
@given(depths=st.lists(st.integers(1, 4), min_size=2, max_size=6), pick=st.integers(0, 5),
       slip=st.sampled_from([-1, 1]), kind=st.sampled_from(["hunk", "chunk"]),
       unit=st.sampled_from([2, 4]))
def test_property_a_whole_hunk_drift_is_mapped_back(depths, pick, slip, kind, unit):
    """Every line of the hunk one column off, the added ones too ('+ ' for '+'): the
    added line lands at the depth of the file line it was copied from."""
    body = [" " * (unit * d) + f"line{k} = {k}" for k, d in enumerate(depths)]
    before = "\n".join(["# head"] + body + ["# tail"]) + "\n"
    intended = " " * (unit * depths[pick % len(depths)]) + "added = 1"
    lines = [(" ", slipped(t, slip)) for t in body] + [("+", slipped(intended, slip))]
    out = run(before, hunk(kind, lines))
    assert out == "\n".join(["# head"] + body + [intended, "# tail"]) + "\n"
