"""Diff shapes models write that the headers alone misread (BEHAVIOR.md §2, §3):

- ``--- a/X (original)`` / ``+++ b/X (modified)``: a parenthesised annotation after a
  space is no part of the path when the two sides agree without it;
- a fenced diff with only ``@@`` hunks takes the one file the prose line just above
  names (``In `web/app.js`, change...:``), read as SEARCH/REPLACE reads such a line;
  with no such line, or more than one file named, it is refused as before;
- ``@@ -0,0 +1,N @@`` on ``--- a/X`` (not /dev/null) claims X is empty: on a file with
  lines it is refused (``git apply`` refuses it too), on an empty file it fills it;
- a numbered hunk of only ``+`` lines that restate the file is refused whatever its
  header, never added on top of the file (tests/formats/test_apply_patch_restated.py
  has the unnumbered chunks);
- a hunk of only ``+`` lines whose header announces old lines (``@@ -5,2 +5,3 @@``) left
  its ``-`` lines out: refused at parsing, never placed after line 5.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.formats import parse_response
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import EditFile
from conftest import file_text, text_of

F = "```"
HUNK = "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def edits(text: str) -> list[tuple[str, list]]:
    """(path, hunk bodies) of every EditFile, in order."""
    return [(op.path, [h.lines for h in op.hunks]) for op in parse_response(text).ops
            if isinstance(op, EditFile)]


# ---------------------------------------------------------------- header annotations

@pytest.mark.parametrize("old,new", [
    ("a/config.yaml (original)", "b/config.yaml (modified)"),
    ("a/config.yaml (original)", "b/config.yaml"),
    ("a/config.yaml", "b/config.yaml (new version)"),
    ("config.yaml (before)", "config.yaml (after)"),
    ("a/config.yaml  (old)", "b/config.yaml (fixed: port)"),
])
def test_annotation_after_the_path_is_not_part_of_it(old, new):
    text = f"{F}diff\n--- {old}\n+++ {new}\n{HUNK}{F}\n"
    assert edits(text) == [("config.yaml", [[(" ", "a"), ("-", "b"), ("+", "B"), (" ", "c")]])]


def test_remark_on_a_new_or_deleted_files_header_dropped():
    # the other side is /dev/null: a name ending in a remark is not the file's
    [op] = parse_response(f"{F}diff\n--- /dev/null\n+++ b/new.py (new file)\n"
                          f"@@ -0,0 +1 @@\n+x = 1\n{F}\n").ops
    assert (type(op).__name__, op.path) == ("NewFile", "new.py")
    [op] = parse_response(f"{F}diff\n--- a/old.py (deleted)\n+++ /dev/null\n"
                          f"@@ -1 +0,0 @@\n-x = 1\n{F}\n").ops
    assert (type(op).__name__, op.path) == ("DeleteFile", "old.py")


def test_new_file_with_parentheses_inside_its_name_kept():
    [op] = parse_response(f"{F}diff\n--- /dev/null\n+++ b/notes (draft).md\n"
                          f"@@ -0,0 +1 @@\n+x\n{F}\n").ops
    assert op.path == "notes (draft).md"


def test_same_parenthesised_name_on_both_sides_is_kept_as_written():
    # 'notes (draft).md' may be a real file: nothing says the parentheses are a remark
    text = f"{F}diff\n--- a/notes (draft).md\n+++ b/notes (draft).md\n{HUNK}{F}\n"
    assert [p for p, _ in edits(text)] == ["notes (draft).md"]


def test_different_paths_with_annotations_still_refused_as_a_rename():
    text = f"{F}diff\n--- a/one.py (original)\n+++ b/two.py (modified)\n{HUNK}{F}\n"
    with pytest.raises(ParseError, match="names one.py"):
        parse_response(text)


def test_timestamps_after_a_tab_still_dropped():
    text = (f"{F}diff\n--- config.yaml\t2024-01-01 10:00:00 +0000\n"
            f"+++ config.yaml\t2024-01-02 10:00:00 +0000\n{HUNK}{F}\n")
    assert [p for p, _ in edits(text)] == ["config.yaml"]


# ---------------------------------------------------------------- headerless diff

def test_headerless_diff_takes_the_file_named_in_the_prose_above():
    text = ("In `web/app.js`, change the 404 message:\n\n"
            f"{F}diff\n@@ -15,3 +15,3 @@ function getItem(req, res) {{\n"
            "   if (!item) {\n-    a;\n+    b;\n     return;\n"
            f"{F}\n")
    [(path, bodies)] = edits(text)
    assert path == "web/app.js"
    assert bodies == [[(" ", "  if (!item) {"), ("-", "    a;"), ("+", "    b;"),
                       (" ", "    return;")]]


def test_headerless_diff_all_hunks_kept():
    text = (f"Now in `src/a.py`:\n{F}diff\n{HUNK}@@ -9,2 +9,2 @@\n-x\n+X\n y\n{F}\n")
    [(path, bodies)] = edits(text)
    assert path == "src/a.py" and len(bodies) == 2


def test_headerless_diff_path_in_the_fence_info():
    text = f"Change it:\n{F}diff src/a.py\n{HUNK}{F}\n"
    assert [p for p, _ in edits(text)] == ["src/a.py"]


def test_headerless_diff_after_a_path_line():
    text = f"src/a.py\n{F}diff\n{HUNK}{F}\n"
    assert [p for p, _ in edits(text)] == ["src/a.py"]


@pytest.mark.parametrize("prose", [
    "Change the message:",                                  # no file named
    "In `web/app.js` and `web/api.js`, change the message:",  # two files named
    "Here is the fix",                                      # no file, no colon
])
def test_headerless_diff_without_one_named_file_refused(prose):
    text = f"{prose}\n\n{F}diff\n{HUNK}{F}\n"
    with pytest.raises(ParseError, match="stands outside any file's diff"):
        parse_response(text)


def test_headerless_diff_after_another_files_diff():
    # prose naming a file between two diffs: the second takes it, the first keeps its own
    text = (f"{F}diff\n--- a/x.py\n+++ b/x.py\n{HUNK}{F}\n\nAnd in `y.py`:\n\n"
            f"{F}diff\n{HUNK}{F}\n")
    [(p1, _), (p2, _)] = edits(text)
    assert (p1, p2) == ("x.py", "y.py")


# ---------------------------------------------------------------- '@@ -0,0' on a file

def _apply(original: str, diff: str) -> str:
    [op] = parse_response(f"{F}diff\n{diff}{F}\n").ops
    out, _a, _r = apply_hunks(file_text(original), op.hunks, path="f")
    return text_of(out)


ZERO_HUNK = "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"


def test_zero_hunk_on_a_file_with_lines_refused():
    with pytest.raises(ApplyError) as e:
        _apply("a\nb\nc\n", ZERO_HUNK)
    reason = str(e.value)
    assert "-0,0" in reason and "3 lines" in reason


def test_zero_hunk_on_an_empty_file_fills_it():
    assert _apply("", ZERO_HUNK) == "x\ny\n"


def test_zero_hunk_with_context_is_placed_by_its_lines():
    # the body defines the hunk: with context lines its old side is not empty
    assert _apply("a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n a\n") == "x\na\nb\n"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "x"]), min_size=1, max_size=8),
       st.lists(st.sampled_from(["a", "b", "", "y"]), min_size=1, max_size=8))
def test_zero_hunk_never_lands_on_a_file_with_lines(file_lines, added):
    """Property: an add-only '@@ -0,0' hunk either is refused or the file had no lines."""
    original = "".join(t + "\n" for t in file_lines)
    diff = f"--- a/f\n+++ b/f\n@@ -0,0 +1,{len(added)} @@\n" + "".join(f"+{t}\n" for t in added)
    with pytest.raises(ApplyError):
        _apply(original, diff)


@pytest.mark.parametrize("header", ["-1,0 +1,3", "-3,0 +4,3", "-2,0 +3,3"])
def test_numbered_add_only_hunk_restating_the_file_refused(header):
    # the whole new file as '+' lines under any header: never added on top of the file
    diff = f"--- a/f\n+++ b/f\n@@ {header} @@\n+alpha 1\n+beta 2\n+gamma 9\n"
    with pytest.raises(ApplyError, match="restates the file"):
        _apply("alpha 1\nbeta 2\ngamma 3\n", diff)


def test_numbered_add_only_hunk_of_new_lines_goes_after_its_line():
    assert _apply("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -2,0 +3,1 @@\n+new\n") == "a\nb\nnew\nc\n"


# ------------------------------------------------- old lines announced, none written

@pytest.mark.parametrize("header", ["@@ -5,2 +5,3 @@", "@@ -5 +5,3 @@", "@@ -1,8 +1,8 @@"])
def test_add_only_hunk_whose_header_announces_old_lines_refused(header):
    # the '-' lines (or the context) were left out: what the '+' lines replace, and where
    # they go, is unknown; placing them after the stated line would guess
    text = f"{F}diff\n--- a/f\n+++ b/f\n{header}\n+x\n+y\n+z\n{F}\n"
    with pytest.raises(ParseError, match="announces .* old line.* no context or removed line"):
        parse_response(text)


@pytest.mark.parametrize("header", ["@@ -5,0 +6,3 @@", "@@ -0,0 +1,3 @@", "@@"])
def test_add_only_hunk_announcing_no_old_lines_parses(header):
    text = f"{F}diff\n--- a/f\n+++ b/f\n{header}\n+x\n+y\n+z\n{F}\n"
    assert edits(text) == [("f", [[("+", "x"), ("+", "y"), ("+", "z")]])]


def test_numbered_addition_repeating_lines_of_a_small_file_goes_after_its_line():
    # a second service copied from the first repeats half of a small file, but the header
    # says where it goes and it does not start as the file starts: an addition
    compose = ("services:\n  web:\n    image: nginx:1.25\n    ports:\n      - \"8080:80\"\n"
               "    restart: always\n")
    added = ["  web2:", "    image: nginx:1.25", "    ports:", "      - \"8081:80\"",
             "    restart: always"]
    diff = "--- a/f\n+++ b/f\n@@ -6,0 +7,5 @@\n" + "".join(f"+{t}\n" for t in added)
    assert _apply(compose, diff) == compose + "".join(t + "\n" for t in added)
