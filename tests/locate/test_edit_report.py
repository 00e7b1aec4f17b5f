"""The -v / --json edit reports as plain functions (locate/edit_report.py): collected only
while a run asks, kept only from what succeeds (scope, kept_on_success, in_turn), muted
for trials; the three-way mark, a tool call's report, and one rendered line per edit."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate import edit_report
from git_aiapply.locate.edit_report import EditReport, text_edit_report, ws_words
from git_aiapply.ops import InsertText, ReplaceText, Source
from conftest import file_text

SRC = Source("tool-call", "tool call 1")


class Refused(Exception):
    """A refused attempt."""


def report(file: str = "f", edit: int = 1) -> EditReport:
    return EditReport(file, "d", edit, 1, 1, 1, 1, ["exact"])


def test_notes_reach_only_a_running_collection_and_never_from_a_muted_trial():
    edit_report.note([report()])  # nobody collects: nothing happens
    assert not edit_report.collecting()
    with edit_report.scope() as got:
        assert edit_report.collecting()
        with edit_report.muted():
            assert not edit_report.collecting()
            edit_report.note([report(edit=9)])
        edit_report.note([report(edit=1)])
        with edit_report.scope() as inner:
            edit_report.note([report(edit=2)])
        assert [r.edit for r in inner] == [2]
    assert [r.edit for r in got] == [1, 2]  # a finished inner scope hands its reports up


def test_kept_on_success_keeps_the_reports_of_a_call_that_returns_only():
    @edit_report.kept_on_success
    def planned(fail: bool):
        edit_report.note([report()])
        if fail:
            raise ValueError("refused")
        return "plan"

    assert planned(False) == "plan"  # not collecting: a plain call
    with edit_report.scope() as got:
        with pytest.raises(ValueError):
            planned(True)
        assert got == []
        assert planned(False) == "plan"
    assert len(got) == 1


def test_in_turn_says_so_once_and_keeps_nothing_of_a_failed_turn():
    with edit_report.in_turn() as nothing:
        edit_report.note([report()])
    assert nothing is None  # not collecting
    with edit_report.scope() as got:
        with edit_report.in_turn():
            edit_report.note([report(edit=1), EditReport("f", "d", 2, detail="in turn already")])
        with pytest.raises(Refused):
            with edit_report.in_turn():
                edit_report.note([report(edit=3)])
                raise Refused()
    assert [r.edit for r in got] == [1, 2]
    assert got[0].detail == "in turn: old lines as the edits before it left the file"
    assert got[1].detail == "in turn already"


def test_three_way_marks_the_merged_files_only():
    merged, other = report("m.py"), EditReport("o.py", "d", 1, how=["exact"], detail="kept")
    folded = EditReport("m.py", "d", 2, how=["punctuation-folded"], detail="quotes folded")
    edit_report.mark_three_way([merged, other, folded], "0123456789abcdef0123", {"m.py"})
    assert merged.how == ["exact", "three-way"]
    assert merged.detail == "from base 0123456789ab, lines as there, merged into the current file"
    assert folded.detail.startswith("quotes folded; from base 0123456789ab")
    assert (other.how, other.detail) == (["exact"], "kept")


def test_a_tool_calls_report_says_how_it_matched():
    old = file_text("a\nsay(\u201chi\u201d)\nc\n")
    new = file_text("a\nsay(\u201cbye\u201d)\nc\n")
    folded = ReplaceText("f", 'say("hi")', 'say("bye")', SRC, number=2, tool="Edit")
    r = text_edit_report("f", folded, old, new)
    assert (r.edit, r.old_start, r.old_end, r.new_start, r.new_end) == (2, 2, 2, 2, 2)
    assert r.how == ["punctuation-folded"] and "quotes folded" in r.detail
    every = ReplaceText("f", "a\n", "A\n", SRC, expected=None)
    r = text_edit_report("f", every, file_text("a\nb\na\n"), file_text("A\nb\nA\n"))
    assert r.how == ["exact"] and r.detail == "every occurrence (replace_all)"
    assert (r.old_start, r.old_end) == (1, 3)
    r = text_edit_report("f", InsertText("f", 2, "x\ny\n", SRC), old, old)
    assert (r.old_start, r.old_end, r.new_start, r.new_end) == (3, 2, 3, 4)
    assert r.render() == "f: edit 1 after line 2 -> lines 3-4 (line-number: insert after line 2)"


def test_whitespace_in_words():
    assert [ws_words(w) for w in ("", " ", "  ", "\t", "\t\t")] == [
        "none", "1 space", "2 spaces", "1 tab", "2 tabs"]
    assert ws_words(" \t") == repr(" \t")


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 500), st.integers(0, 40), st.integers(1, 500), st.integers(0, 40),
       st.lists(st.sampled_from(["exact", "whitespace", "anchor", "restated"]), min_size=1,
                max_size=3), st.one_of(st.none(), st.text("abc ;:", max_size=10)))
def test_a_report_is_one_line_and_its_json_holds_every_field(old_start, old_n, new_start,
                                                            new_n, how, detail):
    """Property: whatever the ranges (empty ones included), a report renders as one line
    naming the file, the edit, an old range, a new range and how; its JSON is a copy."""
    r = EditReport("src/m.py", "block 3", 4, old_start, old_start + old_n - 1,
                   new_start, new_start + new_n - 1, how, detail)
    line = r.render()
    assert "\n" not in line and line.startswith("src/m.py: edit 4 ") and " -> " in line
    assert line.endswith(f"({', '.join(how)}{': ' + detail if detail else ''})")
    where = line.split(" (")[0].split(": edit 4 ")[1]
    if old_n == 0:
        assert where.startswith(f"after line {old_start - 1}" if old_start > 1 else "at the top")
    j = r.to_json()
    assert j == {"file": "src/m.py", "directive": "block 3", "edit": 4, "old_start": old_start,
                 "old_end": old_start + old_n - 1, "new_start": new_start,
                 "new_end": new_start + new_n - 1, "how": how, "detail": detail}
    j["how"].append("changed")
    assert "changed" not in r.how
