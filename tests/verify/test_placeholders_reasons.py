"""Two edges of the structural placeholder rule (git_aiapply/verify/placeholders.py,
docs/DECISIONS.md "Placeholders"):

- a long note standing where code was dropped still counts when its words say it stands
  for the user's code ("stay the same as in your current version", "your current code ...
  goes here without modification"): the word limit is higher for such phrases (G9);
- a comment alone in an emptied block that says WHY the block is empty ("errors are
  reported by the caller", "the pool owns the connection now", "already logged
  upstream") is code written on purpose, unless it also refers to the old code (G10).
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.verify.placeholders import placeholder_lines

F = ["def f(x):", "    a = x + 1", "    b = a * 2", "    c = b - 3", "    return c"]


def _numbers(found):
    return [n for n, _line in found]


# -- G9: long notes that say they stand for the user's code ----------------------------
LONG_NOTES = [
    "# The input validation and the intermediate calculations stay the same as in your "
    "current version",
    "# (keep your existing computation of a, b and c here; only the return value changes "
    "below)",
    "# Your current code for computing a, b and c goes here without modification",
    "# All of the setup work that computes a, b and c remains the same as it was in the "
    "current version of this function",
]


def test_a_long_note_standing_for_dropped_code_is_found():
    for note in LONG_NOTES:
        new = ["def f(x):", "    " + note, "    return c + 1"]
        assert _numbers(placeholder_lines(F, new)) == [2], note


def test_a_long_explaining_comment_over_dropped_code_is_a_comment():
    """Without a phrase naming the user's code, a long comment is an explanation."""
    note = ("# c is computed in one step now: the three temporaries were only ever used "
            "to build it")
    new = ["def f(x):", "    " + note, "    c = (x + 1) * 2 - 3", "    return c + 1"]
    assert placeholder_lines(F, new) == []


def test_a_long_referring_note_beside_kept_code_is_a_comment():
    note = "    # the intermediate values stay the same as in your current version"
    assert placeholder_lines(F, F[:4] + [note] + F[4:]) == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["quite", "carefully", "all", "of", "those", "lines", "and",
                                 "steps", "for", "a", "b", "c"]), max_size=12),
       st.sampled_from(["stay the same as in your current version", "goes here",
                        "without modification", "from your current code"]))
def test_any_note_up_to_the_limit_with_a_referring_phrase_is_found(words, phrase):
    note = "    # " + " ".join(words + [phrase])
    assert _numbers(placeholder_lines(F, ["def f(x):", note, "    return c + 1"])) == [2]


# -- G10: a comment in an emptied body that says why -----------------------------------
def _emptied(opening: str, body: list[str], comment: str, closing: str = "}"):
    return [opening] + body + [closing], [opening, "  " + comment, closing]


def test_an_emptied_body_with_a_reason_is_code():
    cases = [
        ("  onError(err) {", ["    console.error(err);"], "// errors are reported by the caller"),
        ("func (s *S) Close() {", ["\ts.conn.Close()"], "// the pool owns the connection now"),
        ("if (x) {", ["  log_error(x);"], "/* already logged upstream */"),
        (".btn {", ["  color: red;", "  padding: 4px;"], "/* styled by the design system now */"),
        ("function reset() {", ["  state = {};"], "// nothing to do: the store resets itself"),
        ("void tick() {", ["  count++;"], "// handled by the scheduler because it owns the clock"),
    ]
    for opening, body, comment in cases:
        old, new = _emptied(opening, body, comment)
        assert placeholder_lines(old, new) == [], comment


def test_a_fall_through_default_with_a_reason_is_code():
    old = ["switch (key) {", "  default:", "    warn(key);", "    break;", "}"]
    new = ["switch (key) {", "  default:", "    // unknown keys fall through to the caller",
           "}"]
    assert placeholder_lines(old, new) == []


def test_a_reason_that_also_refers_to_the_old_code_is_a_placeholder():
    for comment in ("// handled by the caller, as before", "// already there, unchanged",
                    "// same handling, because it works", "// existing logic stays here now",
                    "// the caller's code goes here"):
        old, new = _emptied("  onError(err) {", ["    console.error(err);"], comment)
        assert _numbers(placeholder_lines(old, new)) == [2], comment


def test_a_comment_summing_up_the_body_is_still_a_placeholder():
    for comment in ("// log the error", "// print it to the console", "// load and print"):
        old, new = _emptied("  onError(err) {", ["    console.error(err);"], comment)
        assert _numbers(placeholder_lines(old, new)) == [2], comment
