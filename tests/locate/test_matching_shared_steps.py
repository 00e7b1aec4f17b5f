"""The steps several modules share, written once in matching.py (issue 23): the first tier
with a fit (locate, anchors, divider_readings) and the common start/end of two runs
(text_edits, placer, edit_report, threeway.drift, plan.restated, verify.placeholders)."""
from __future__ import annotations

from git_aiapply.locate.matching import LineIndex, common_ends


def test_first_fits_gives_the_first_tier_with_a_fit_and_only_its_places():
    lines = ["a = 1  ", "b", "  a = 1", "b"]
    index = LineIndex(lines)
    # tier 1 (trailing whitespace) fits at 0 only; tier 2 would fit at 2 too
    assert index.first_fits(["a = 1", "b"]) == (1, [0])
    assert index.first_fits(["b"]) == (0, [1, 3])


def test_first_fits_filters_before_a_tier_counts_and_bounds_the_search():
    lines = ["x", "y", "x", "y"]
    index = LineIndex(lines)
    assert index.first_fits(["x", "y"], keep=lambda s: s + 2 == len(lines)) == (0, [2])
    assert index.first_fits(["x", "y"], lo=1) == (0, [2])
    assert index.first_fits(["x", "y"], hi=3) == (0, [0])
    assert index.first_fits(["z"]) == (4, [])


def test_common_ends_counts_the_start_then_the_rest_of_the_end():
    assert common_ends(["a", "b", "c"], ["a", "x", "c"]) == (1, 1)
    assert common_ends(["a", "a"], ["a"]) == (1, 0)  # the end never overlaps the start
    assert common_ends([], ["a"]) == (0, 0)
    assert common_ends("it's", "it\u2019s") == (2, 1)  # strings too (keep_file_quotes)
