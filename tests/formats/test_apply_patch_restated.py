"""An apply-patch Update chunk (or a bare-'@@' diff hunk) that only adds lines, with no
anchor, no context and no line number, goes at the end of the file (BEHAVIOR.md §3),
unless its added lines restate a large share of the file: then it is the whole new
file, and is refused rather than appended as a second copy (docs/DECISIONS.md)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.locate.add_only import restated_lines
from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.locate.locate import apply_hunks
from conftest import file_text

CONFIG = ["server:", "  host: 0.0.0.0", "  port: 8080", "database:",
          "  url: postgres://localhost/inv", "  pool: 5", "logging:", "  level: info"]


def _update(added: list[str], anchor: str = "", eof: bool = False) -> str:
    body = "".join(f"+{t}\n" for t in added)
    return ("*** Begin Patch\n*** Update File: f\n" + (f"@@ {anchor}\n" if anchor else "")
            + body + ("*** End of File\n" if eof else "") + "*** End Patch\n")


def _apply(original: list[str], response: str) -> list[str]:
    [op] = parse_response(response).ops
    out, _a, _r = apply_hunks(file_text("".join(t + "\n" for t in original)),
                              op.hunks, path="f")
    return out.lines


def test_whole_file_as_added_lines_refused():
    new = [t.replace("8080", "9090") for t in CONFIG]
    with pytest.raises(ApplyError, match="restates the file.*7 of the file's 8 lines"):
        _apply(CONFIG, _update(new))


def test_whole_file_marked_end_of_file_refused_too():
    with pytest.raises(ApplyError, match="restates the file"):
        _apply(CONFIG, _update(CONFIG, eof=True))


def test_bare_at_diff_hunk_restating_the_file_refused():
    response = "```diff\n--- a/f\n+++ b/f\n@@\n" + "".join(f"+{t}\n" for t in CONFIG) + "```\n"
    with pytest.raises(ApplyError, match="restates the file"):
        _apply(CONFIG, response)


def test_small_addition_still_goes_at_the_end():
    added = ["metrics:", "  enabled: true"]
    assert _apply(CONFIG, _update(added)) == CONFIG + added


def test_addition_repeating_a_few_generic_lines_goes_at_the_end():
    original = ["def a():", "    x = 1", "    return x", "", "def b():", "    y = 2",
                "    return y", "", "def c():", "    return 3"]
    added = ["", "def d():", "    x = 1", "    return x"]  # 2 of the file's 8 lines
    assert _apply(original, _update(added)) == original + added


def test_anchored_addition_restating_lines_is_the_models_choice():
    added = ["  extra: 1"]
    assert _apply(CONFIG, _update(added, anchor="database:"))[4] == "  extra: 1"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text("ab \t}", max_size=3), min_size=1, max_size=12),
       st.lists(st.text("abc ", max_size=3), max_size=12))
def test_restated_count_is_a_multiset_overlap(file_lines, added):
    """Property: only lines with a letter or digit count; restated lines never exceed
    either side's, and adding the file's own lines restates all of them."""
    def with_text(ls):
        return sum(1 for t in ls if "a" in t or "b" in t or "c" in t)
    restated, nonblank = restated_lines(added, file_lines)
    assert nonblank == with_text(file_lines)
    assert restated <= min(nonblank, with_text(added))
    assert restated_lines(list(file_lines) + list(added), file_lines)[0] == nonblank


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["k: 1", "k: 2", "x", "y", "z", "}", ""]), min_size=1,
                max_size=10).filter(lambda ls: sum(t[:1].isalnum() for t in ls) >= 2),
       st.integers(min_value=0))
def test_file_with_one_line_changed_never_appended(file_lines, k):
    """Property: a chunk that is the file itself with one line changed (the file has at
    least two lines with text) is refused, never appended as a second copy."""
    new = list(file_lines)
    new[k % len(new)] = "changed"
    with pytest.raises(ApplyError, match="restates the file"):
        _apply(file_lines, _update(new))


SPACED = ["server:", "  port: 8080", "", "database:", "  pool: 5", "", "logging:", "  level: info"]


@pytest.mark.parametrize("blank", ["", " "])
def test_whole_file_with_blank_context_lines_refused(blank):
    # the file's blank lines written bare (or as ' '): context that says nothing of place
    body = "".join("+" + t + "\n" if t else blank + "\n" for t in SPACED).replace("8080", "9090")
    response = "*** Begin Patch\n*** Update File: f\n" + body + "*** End Patch\n"
    with pytest.raises(ApplyError, match="restates the file"):
        _apply(SPACED, response)


def test_zero_hunk_with_bare_blank_lines_refused():
    body = "".join("+" + t + "\n" if t else "\n" for t in SPACED)
    response = f"```diff\n--- a/f\n+++ b/f\n@@ -0,0 +1,{len(SPACED)} @@\n{body}```\n"
    with pytest.raises(ApplyError, match="-0,0"):
        _apply(SPACED + ["extra: 1"], response)


def test_addition_around_a_blank_context_line_still_applies():
    assert _apply(SPACED, "*** Begin Patch\n*** Update File: f\n@@ logging:\n+  file: x\n"
                          "*** End Patch\n") == SPACED[:7] + ["  file: x"] + SPACED[7:]
