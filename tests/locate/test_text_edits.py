"""The text editor's str_replace and insert as plain functions (locate/text_edits.py):
they keep the file's line endings (a CRLF file edited as its LF twin would be), insert
whole lines after a stated line, and Claude Code's quote folding reads one character for
one and keeps the file's quotes wherever the new text repeats the old."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.text_edits import apply_text_edit, fold_quotes, keep_file_quotes
from git_aiapply.ops import InsertText, ReplaceText, Source
from git_aiapply.text import FileText
from conftest import file_text

SRC = Source("tool-call", "tool call 1 (tool_use str_replace_based_edit_tool)")
CURLY = "\u2018\u2019\u201c\u201d"


def edited(data: bytes, op) -> tuple[bytes, int, int]:
    new, added, removed = apply_text_edit(FileText.from_bytes(data), op, "f.txt")
    return new.to_bytes(), added, removed


def test_fold_quotes_is_one_character_for_one():
    assert fold_quotes("\u201cit\u2019s\u201d and \u2018x\u2019") == "\"it's\" and 'x'"
    assert fold_quotes("plain \u2014 dash \u2026") == "plain \u2014 dash \u2026"  # quotes only


def test_the_new_text_keeps_the_files_quotes_only_where_it_repeats_the_old():
    actual = "print(\u201chi\u201d)"
    assert keep_file_quotes('print("hi")', actual, 'print("bye")') == "print(\u201cbye\u201d)"
    # what the edit writes anew is as the model wrote it
    assert keep_file_quotes('"a"', "\u201ca\u201d", "b = 'c'") == "b = 'c'"
    assert keep_file_quotes('x = "a"', "x = \u201ca\u201d", 'x = "a"\ny = "b"') == \
        'x = \u201ca\u201d\ny = "b"'


def test_an_insert_past_the_end_shows_how_the_file_ends():
    with pytest.raises(ApplyError) as e:
        edited(b"only\n", InsertText("f.txt", 2, "x", SRC))
    (p,) = e.value.problems
    assert "insert_line 2 is past the end of the file (1 line)" in p.reason
    assert p.nearby == [(1, "only")] and "0 to 1" in p.hint
    assert p.directive == SRC.directive


def test_an_insert_in_the_middle_keeps_a_missing_final_newline():
    assert edited(b"a\nb", InsertText("f.txt", 1, "x\ny\n", SRC)) == (b"a\nx\ny\nb", 2, 0)
    assert edited(b"a\r\nb", InsertText("f.txt", 0, "x", SRC)) == (b"x\r\na\r\nb", 1, 0)
    assert edited(b"a\n", InsertText("f.txt", 1, "", SRC)) == (b"a\n", 0, 0)


_TEXT = st.lists(st.sampled_from(["a", "b", "\n", " "]), max_size=20).map("".join)


@settings(max_examples=100, deadline=None)
@given(_TEXT.filter(lambda t: "\n" in t),
       st.lists(st.sampled_from(["a", "b", "\n", " "]), min_size=1, max_size=4).map("".join),
       _TEXT, st.sampled_from([1, None]))
def test_a_crlf_file_is_edited_as_its_lf_twin(text, old, new, expected):
    """Property: str_replace (one occurrence, or replace_all) on a CRLF file gives the
    result it gives on the same file with LF endings, in CRLF; refused on one, refused on
    the other."""
    op = ReplaceText("f.txt", old, new, SRC, expected=expected)

    def outcome(data: bytes):
        try:
            return edited(data, op)
        except ApplyError:
            return None

    lf, crlf = outcome(text.encode()), outcome(text.replace("\n", "\r\n").encode())
    assert (lf is None) == (crlf is None)
    if lf is not None:
        assert crlf == (lf[0].replace(b"\n", b"\r\n"), lf[1], lf[2])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "  c"]), max_size=6), st.data(),
       st.lists(st.sampled_from(["x", "", "y y"]), max_size=3), st.booleans())
def test_an_insert_puts_whole_lines_after_the_stated_line(lines, data, new, final_newline):
    """Property: insert after line k gives the file's first k lines, the text's lines,
    then the rest; it adds as many lines as the text has, removes none."""
    k = data.draw(st.integers(0, len(lines)))
    body = "".join(t + "\n" for t in lines)
    if lines and lines[-1] and not final_newline:
        body = body[:-1]  # a last line without its newline (an empty one would vanish)
    text = "".join(t + "\n" for t in new)
    got = apply_text_edit(file_text(body), InsertText("f.txt", k, text, SRC), "f.txt")
    assert got[0].lines == lines[:k] + new + lines[k:]
    assert got[1:] == (len(new), 0)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab'\" " + CURLY, max_size=12), st.text(alphabet="xy'\" ", max_size=6))
def test_folded_quotes_keep_offsets_and_the_kept_text_is_the_files(actual, extra):
    """Property: folding keeps every offset; an edit that appends to the old text keeps
    the file's own characters for the old part and writes the rest as given."""
    folded = fold_quotes(actual)
    assert len(folded) == len(actual)
    assert all(a == f or a in CURLY for a, f in zip(actual, folded))
    new = folded + extra
    assert keep_file_quotes(folded, actual, new) == actual + extra
