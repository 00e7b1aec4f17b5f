"""`-v` / `--verbose`: where each edit landed and how it was found (edit_report.py).

Pure tests of the collection first (apply_hunks inside a collecting scope, the range
arithmetic as properties), then the real command for each "how", checking both the
standard-error lines and the ``edits`` of --json."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.locate import edit_report
from git_aiapply.locate.edit_report import EditReport, changed_range, indent_words
from git_aiapply.errors import ApplyError
from git_aiapply.locate.hashline import line_id
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.locate.matching import IndentMap
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def H(spec: str, **kw) -> Hunk:
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], **kw)


def located(before: str, *hunks: Hunk) -> tuple[list[EditReport], list[str]]:
    with edit_report.scope() as got:
        new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), list(hunks), path="f")
    return got, new.lines


# --------------------------------------------------------------------------- the collection

def test_nothing_is_collected_unless_asked():
    assert not edit_report.collecting()
    apply_hunks(FileText.from_bytes(b"a\nb\n"), [H(" a\n-b\n+B")], path="f")
    with edit_report.scope() as got:
        pass
    assert got == []


def test_a_refused_attempt_reports_nothing():
    with edit_report.scope() as outer:
        with pytest.raises(ApplyError):
            with edit_report.scope():
                apply_hunks(FileText.from_bytes(b"a\n"), [H(" a\n+b")], path="f")
                apply_hunks(FileText.from_bytes(b"a\n"), [H("-zzz\n+b")], path="f")
    assert outer == []


def test_exact_edit_ranges():
    (r,), lines = located("a\nb\nc\nd\n", H(" b\n-c\n+C\n+C2"))
    assert (r.old_start, r.old_end, r.new_start, r.new_end) == (2, 3, 2, 4)
    assert r.how == ["exact"] and r.file == "f" and r.edit == 1
    assert lines[r.new_start - 1:r.new_end] == ["b", "C", "C2"]


def test_trailing_whitespace_tier():
    (r,), _ = located("a  \nb\n", H(" a\n-b\n+B"))
    assert r.how == ["trailing-whitespace"]


def test_whitespace_tier_says_the_indentation_mapping():
    before = "def f():\n    if x:\n        y()\n"
    (r,), lines = located(before, H(" def f():\n   if x:\n-    y()\n+    z()"))
    assert r.how == ["whitespace"]
    assert r.detail == "indentation 2 -> 4 spaces"
    assert lines[r.new_end - 1] == "        z()"


def test_punctuation_tier_names_the_folded_characters():
    (r,), _ = located("x = \u201cq\u201d\ny\n", H("-x = \"q\"\n+x = 2"))
    assert r.how[0] == "punctuation-folded" and '"' in r.detail


def test_line_number_chooses_between_two_fits():
    before = "x\nsame\nx\nsame\nx\n"
    (r,), _ = located(before, H("-same\n+other", line_hint=4))
    assert r.old_start == 4 and "line-number" in r.how and "4" in r.detail
    # one fit: the stated line chose nothing
    (r,), _ = located("x\nsame\nx\n", H("-same\n+other", line_hint=2))
    assert r.how == ["exact"]


def test_anchor_is_reported():
    before = "def f():\n    x = 1\ndef g():\n    x = 1\n"
    (r,), _ = located(before, H("     x = 1\n+    x += 1", anchors=["def g():"]))
    assert r.old_start == 4 and "anchor" in r.how and "def g():" in r.detail


def test_restated_copy_is_reported_at_the_place_of_its_twin():
    before = "a\nb\nc\n"
    got, lines = located(before, H(" b\n+B", number=1), H(" b\n+B", number=2))
    assert lines == ["a", "b", "B", "c"]
    first, second = sorted(got, key=lambda r: r.edit)
    assert first.how == ["exact"] and second.how == ["restated"]
    assert (second.old_start, second.new_end) == (first.old_start, first.new_end)


def test_pure_insertion_has_an_empty_old_range():
    (r,), lines = located("a\nb\n", H("+top", line_hint=1))
    assert r.old_end == r.old_start - 1
    assert lines[r.new_start - 1:r.new_end] == ["top"]
    assert EditReport("f", None, 1, 1, 0, 1, 1, ["exact"]).render() == \
        "f: edit 1 at the top -> line 1 (exact)"


def test_render_is_one_line_a_git_user_reads():
    r = EditReport("m.py", "d", 2, 14, 18, 14, 19, ["whitespace"], "indentation 2 -> 4 spaces")
    assert r.render() == "m.py: edit 2 lines 14-18 -> 14-19 (whitespace: indentation 2 -> 4 spaces)"
    assert EditReport("m.py", "d", 1, 3, 4, 3, 2, ["exact"]).render() == \
        "m.py: edit 1 lines 3-4 -> after line 2 (exact)"


@pytest.mark.parametrize("m, want", [
    (IndentMap("  ", "    ", "  ", "    "), "indentation 2 -> 4 spaces"),
    (IndentMap("", "", "    ", "\t"), "indentation 4 spaces -> 1 tab per level"),
    (IndentMap("", "    "), "indentation none -> 4 spaces"),
    (None, "indentation kept"),
])
def test_indent_words(m, want):
    assert indent_words(m) == want


# unique lines, so that an exact edit fits one place only
_files = st.lists(st.integers(0, 10**6), min_size=1, max_size=30, unique=True).map(
    lambda ns: [f"line {n}" for n in ns])


@settings(max_examples=150, deadline=None)
@given(_files, st.data())
def test_ranges_hold_the_edits_old_and_new_lines(lines, data):
    """Whatever edits fit (non-overlapping, with context), the reported old range holds
    each edit's old side in the original and the new range its new side in the result."""
    cuts = sorted(data.draw(st.sets(st.integers(0, len(lines)), max_size=6)))
    hunks = []
    for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
        if b - a < 1:
            continue
        old = lines[a:b]
        new = data.draw(st.lists(st.sampled_from(["x", "y = 1", "z"]), max_size=3))
        hunks.append(Hunk([(" ", old[0])] + [("-", t) for t in old[1:]]
                          + [("+", f"{t} {k}") for t in new], number=len(hunks) + 1))
    if not hunks:
        return
    got, result = located("\n".join(lines) + "\n", *hunks)
    # an edit of context only changes nothing, and is dropped
    assert sorted(r.edit for r in got) == [h.number for h in hunks if h.old != h.new]
    for r in got:
        h = hunks[r.edit - 1]
        assert lines[r.old_start - 1:r.old_end] == h.old
        assert result[r.new_start - 1:r.new_end] == h.new


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=8), st.lists(st.sampled_from("abc"), max_size=8))
def test_changed_range_leaves_common_ends_outside(old, new):
    a, b, c, d = changed_range(old, new)
    assert old[:a - 1] == new[:c - 1] and a == c
    assert old[b:] == new[d:]
    assert old[a - 1:b] != new[c - 1:d] or old == new


# --------------------------------------------------------------------------- the command

def _edits(r) -> list[dict]:
    assert r.returncode == 0, r.err
    return json.loads(r.out)["edits"]


def _both(repo: GitRepo, response: str, *args: str) -> tuple[list[dict], list[str]]:
    """The --json edits and the -v lines of standard error, of a --check run; the
    standard output of -v is the one without it."""
    plain = repo.run("--check", *args, response=response)
    verbose = repo.run("--check", "-v", *args, response=response)
    assert verbose.returncode == plain.returncode == 0, verbose.err
    assert verbose.out == plain.out
    edits = _edits(repo.run("--check", "--json", "--verbose", *args, response=response))
    return edits, verbose.err.splitlines()


def _search(path: str, search: str, replace: str) -> str:
    return f"Do it.\n\n{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


SOURCE = "def f():\n    if x:\n        y()\n    return 1\n\n\ndef g():\n    return \u201cq\u201d\n"


@pytest.fixture
def m_repo(repo: GitRepo) -> GitRepo:
    repo.write("m.py", SOURCE)
    repo.commit_all("base")
    return repo


def test_json_has_no_edits_without_verbose(m_repo: GitRepo):
    r = m_repo.run("--check", "--json", response=_search("m.py", "    return 1\n", "    return 2\n"))
    assert "edits" not in json.loads(r.out)


def test_exact_and_whitespace_through_the_command(m_repo: GitRepo):
    answer = (_search("m.py", "    return 1\n", "    return 2\n")
              + _search("m.py", "  if x:\n    y()\n", "  if x:\n    z()\n"))
    edits, err = _both(m_repo, answer)
    assert [(e["how"], e["old_start"], e["old_end"]) for e in edits] == [
        (["exact"], 4, 4), (["whitespace"], 2, 3)]
    assert edits[1]["detail"] == "indentation 2 -> 4 spaces"
    assert set(edits[0]) == {"file", "directive", "edit", "old_start", "old_end", "new_start",
                             "new_end", "how", "detail"}
    assert "m.py: edit 1 line 4 -> 4 (exact)" in err
    assert any(line == "m.py: edit 2 lines 2-3 -> 2-3 (whitespace: indentation 2 -> 4 spaces)"
               for line in err), err


def test_punctuation_folded_through_the_command(m_repo: GitRepo):
    edits, err = _both(m_repo, _search("m.py", '    return "q"\n', '    return "r"\n'))
    assert edits[0]["how"][0] == "punctuation-folded" and edits[0]["old_start"] == 8
    assert any("punctuation-folded" in line for line in err)


def test_line_numbers_choose_between_two_fits(repo: GitRepo):
    repo.write("t.txt", "x\nsame\nx\nx\nx\nx\nx\nsame\nx\n")
    repo.commit_all("base")
    answer = "Fix.\n\n```diff\n--- a/t.txt\n+++ b/t.txt\n@@ -8 +8 @@\n-same\n+other\n```\n"
    edits, err = _both(repo, answer)
    assert edits[0]["old_start"] == 8 and "line-number" in edits[0]["how"]
    assert any("line-number" in line and "lines" not in line.split("(")[0] for line in err)


def test_anchor_and_restated_through_the_command(repo: GitRepo):
    repo.write("m.py", "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n"
               "\n\ndef h():\n    y = 1\n")
    repo.commit_all("base")
    anchored = "@@ def g():\n     x = 1\n+    x += 1\n     return x\n"
    copy = "@@\n     y = 1\n+    y += 1\n"
    answer = (f"Count.\n\n```patch\n*** Begin Patch\n*** Update File: m.py\n{anchored}{copy}{copy}"
              "*** End Patch\n```\n")
    edits, err = _both(repo, answer)
    assert [e["edit"] for e in edits] == [1, 2, 3]
    assert "anchor" in edits[0]["how"] and edits[0]["old_start"] == 7
    assert edits[1]["how"] == ["exact"] and edits[2]["how"] == ["restated"]
    assert edits[2]["new_start"] == edits[1]["new_start"]
    assert len(err) == 3


def test_new_file_and_hashline_through_the_command(repo: GitRepo):
    lines = ["a", "b", "c"]
    repo.write("h.txt", "".join(t + "\n" for t in lines))
    repo.commit_all("base")
    answer = ("Change.\n\n<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path=\"h.txt\">\n"
              f"2#{line_id('b')}:B\n>+3#{line_id('c')}:d\n</FILE_HASHLINE_PATCH>\n"
              "<FILE_NEW file_path=\"n.txt\">\none\ntwo\n</FILE_NEW>\n</FILE_CHANGES>\n")
    edits, err = _both(repo, answer)
    by_file = {e["file"]: e for e in edits}
    assert by_file["n.txt"]["how"] == ["whole file"] and by_file["n.txt"]["detail"] == "new file"
    assert (by_file["n.txt"]["new_start"], by_file["n.txt"]["new_end"]) == (1, 2)
    hl = [e for e in edits if e["file"] == "h.txt"]
    assert [e["how"] for e in hl] == [["hashline id"], ["hashline id"]]
    assert [(e["old_start"], e["old_end"], e["new_start"], e["new_end"]) for e in hl] == [
        (2, 2, 2, 2), (4, 3, 4, 4)]
    assert len(err) == 3


def test_three_way_is_reported(repo: GitRepo):
    source = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(1, 5))
    repo.write("m.py", source)
    repo.commit_all("base")
    base = repo.head()
    repo.write("m.py", source.replace("return 1\n", "return 100\n"))
    repo.commit_all("f1")
    answer = ("Change it.\n\n```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,6 +1,6 @@\n def f1():\n"
              "     return 1\n \n \n def f2():\n-    return 2\n+    return 20\n```\n")
    r = repo.run("-3", "-v", "--json", response=answer)
    (e,) = _edits(r)
    assert "three-way" in e["how"] and base[:12] in e["detail"]
    assert repo.read("m.py").count(b"return 20") == 1


def test_refusal_reports_no_edits(m_repo: GitRepo):
    r = m_repo.run("--json", "-v", response=_search("m.py", "    nothing\n", "    x\n"))
    assert r.returncode == 1 and json.loads(r.out)["edits"] == []


def test_the_library_reports_edits_field_for_field(m_repo: GitRepo):
    import git_aiapply
    from git_aiapply.doors.api import Result

    answer = _search("m.py", "    return 1\n", "    return 2\n")
    out = json.loads(m_repo.run("--check", "--json", "-v", response=answer).out)
    # every field in order; a refusal's suggestion only when there is one
    assert [f for f in Result.__dataclass_fields__ if f != "suggestion"] == list(out)
    assert Result.from_json(out).to_json() == out
    res = git_aiapply.apply(answer, repo=m_repo.root, check=True, verbose=True)
    assert [(e.how, e.old_start) for e in res.edits] == [(("exact",), 4)]


def test_edits_in_turn_say_so_and_a_failed_turn_reports_nothing():
    from git_aiapply.locate.divider_readings import apply_edit

    text = FileText.from_bytes(b"def f(a):\n    return a\n")
    first = H("-def f(a):\n+def f(a, b=0):", number=1)
    second = H(" def f(a, b=0):\n-    return a\n+    return a + b", number=2)
    with edit_report.scope() as got:
        apply_edit(text, [first, second], path="m.py", in_turn=True)
    assert [r.edit for r in got] == [1, 2]
    assert all("in turn" in r.detail for r in got)
    with edit_report.scope() as got:
        with pytest.raises(ApplyError):
            apply_edit(text, [first, H("-nowhere\n+x", number=2)], path="m.py", in_turn=True)
    assert got == []


def test_tool_call_str_replace_and_insert(repo: GitRepo):
    repo.write("a.txt", "one\ntwo\nthree\n")
    repo.commit_all("base")

    def call(i, **inp):
        return {"type": "tool_use", "id": f"t{i}", "name": "str_replace_based_edit_tool",
                "input": {"path": "a.txt", **inp}}
    answer = json.dumps({"type": "message", "role": "assistant", "stop_reason": "tool_use",
                         "content": [call(1, command="str_replace", old_str="two\n",
                                          new_str="TWO\n2\n"),
                                     call(2, command="insert", insert_line=0, new_str="zero\n")]})
    edits, err = _both(repo, answer)
    assert [(e["how"], e["old_start"], e["old_end"], e["new_start"], e["new_end"])
            for e in edits] == [(["exact"], 2, 2, 2, 3), (["line-number"], 1, 0, 1, 1)]
    assert err == ["a.txt: edit 1 line 2 -> 2-3 (exact)",
                   "a.txt: edit 2 at the top -> line 1 (line-number: insert after line 0)"]


# --------------------------------------------------------------------------- through make_plan

def _planned(ops, files) -> list[EditReport]:
    from git_aiapply.paths import normalize_path
    from git_aiapply.plan.plan import make_plan
    from plan_base import DictBase

    with edit_report.scope() as got:
        make_plan(ops, DictBase(files), lambda p: normalize_path(p, worktree="/w"))
    return got


def _edit_op(path: str, spec: str, n: int, **kw):
    from git_aiapply.ops import EditFile, Source

    return EditFile(path, [H(spec)], Source("search-replace", f"block {n} {path}", block=n), **kw)


def test_a_tool_call_restating_a_diff_is_reported_restated():
    from git_aiapply.ops import ReplaceText, Source
    from git_aiapply.plan.plan import MODE_FILE

    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n")}
    again = ReplaceText("m.py", "x = 1\n", "x = 1\nx += 1\n", Source("tool-call", "tool call 1"))
    got = _planned([_edit_op("m.py", " x = 1\n+x += 1\n b", 1), again], files)
    assert [r.how for r in got] == [["exact"], ["restated"]]


def test_directives_in_turn_report_the_restatement_between_them():
    from git_aiapply.plan.plan import MODE_FILE

    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n")}
    ops = [_edit_op("m.py", "-x = 1\n+x = 1\n+x += 1", 1),
           _edit_op("m.py", " a\n x = 1\n+x += 1\n b", 2),
           _edit_op("m.py", " x += 1\n-b\n+c", 3)]
    got = _planned(ops, files)
    assert sorted((r.directive, r.how[0]) for r in got) == [
        ("block 1 m.py", "exact"), ("block 2 m.py", "restated"), ("block 3 m.py", "exact")]
    assert all("in turn" in r.detail for r in got if r.how != ["restated"])


def test_whole_file_operations_are_reported():
    from git_aiapply.ops import DeleteFile, NewFile, RenameFile, SetMode, Source
    from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE

    src = Source("unified-diff", "diff")
    files = {"a.txt": (MODE_FILE, b"1\n2\n"), "b.txt": (MODE_FILE, b"b\n"),
             "c.sh": (MODE_FILE, b"c\n")}
    got = _planned([NewFile("n.txt", "x\ny\nz\n", src), NewFile("a.txt", "one\n", src, replace=True),
                    DeleteFile("b.txt", src), RenameFile("c.sh", "d.sh", src),
                    SetMode("d.sh", MODE_EXEC, src)], files)
    assert [(r.file, r.how, r.detail, r.old_end, r.new_end) for r in got] == [
        ("n.txt", ["whole file"], "new file", 0, 3),
        ("a.txt", ["whole file"], "rewritten", 2, 1),
        ("b.txt", ["whole file"], "deleted", 1, 0),
        ("d.sh", ["rename"], "from c.sh", None, None),
        ("d.sh", ["mode"], "100644 -> 100755", None, None)]
    assert got[3].render() == "d.sh: edit 1 (rename: from c.sh)"
    assert got[0].render() == "n.txt: edit 1 at the top -> lines 1-3 (whole file: new file)"


def test_a_refused_plan_reports_nothing():
    from git_aiapply.plan.plan import MODE_FILE

    files = {"m.py": (MODE_FILE, b"a\n")}
    with edit_report.scope() as got:
        with pytest.raises(ApplyError):
            _planned([_edit_op("m.py", "-a\n+A", 1), _edit_op("m.py", "-zz\n+x", 2)], files)
    assert got == []


def test_quiet_verbose_commit_prints_only_the_edit_lines(m_repo: GitRepo):
    r = m_repo.run("-q", "-v", response=_search("m.py", "    return 1\n", "    return 2\n"))
    assert r.returncode == 0, r.err
    assert r.out == "" and r.err.splitlines() == ["m.py: edit 1 line 4 -> 4 (exact)"]
    assert b"    return 2\n" in m_repo.read("m.py")


@settings(max_examples=150, deadline=None)
@given(_files, st.data())
def test_hashline_ranges_hold_each_operations_lines(lines, data):
    """Sets and inserts on distinct lines: each report's old range holds the lines a set
    replaced, and its new range the operation's lines in the result."""
    from git_aiapply.locate.hashline import apply_hashline
    from git_aiapply.ops import HashlineEdit, HashlineOp, Source

    at = sorted(data.draw(st.sets(st.integers(1, len(lines)), min_size=1, max_size=5)))
    ops = []
    for k, n in enumerate(at):
        kind = data.draw(st.sampled_from(["set", "insert_before", "insert_after"]))
        text = [f"new {k} {j}" for j in range(data.draw(st.integers(0 if kind == "set" else 1, 2)))]
        ops.append(HashlineOp(kind, n, line_id(lines[n - 1]), n, line_id(lines[n - 1]), text,
                              k + 1, f"{n}#{line_id(lines[n - 1])}"))
    ft = FileText.from_bytes(("\n".join(lines) + "\n").encode())
    new, _a, _r = apply_hashline(ft, HashlineEdit("f", ops, Source("hashline", "d")), "f")
    reports = edit_report.hashline_reports("f", "d", ops)
    assert [r.edit for r in reports] == [op.number for op in ops]
    for r, op in zip(reports, ops):
        assert new.lines[r.new_start - 1:r.new_end] == op.text_lines
        if op.kind == "set":
            assert (r.old_start, r.old_end) == (op.start, op.end)
        else:
            assert r.old_end == r.old_start - 1


def test_a_lazy_snippet_merged_reports_what_each_placeholder_kept(repo: GitRepo):
    from git_aiapply.doors.api import Result

    source = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n"
    repo.write("m.py", source)
    repo.commit_all("base")
    answer = ("<FILE_CHANGES>\n<FILE_NEW file_path=\"m.py\">\nimport os\nimport sys\n\n"
              "# ... existing code ...\n\n"
              "def g():\n    return 3\n</FILE_NEW>\n</FILE_CHANGES>\n")
    r = repo.run("-v", "--json", response=answer)
    assert r.returncode == 0, r.out
    (e,) = _edits(r)
    assert e["how"] == ["whole file"] and e["detail"].startswith("lazy snippet merged")
    assert e["kept"] == [{"note_line": 4, "note": "# ... existing code ...", "start": 4,
                          "end": 5}]
    assert repo.read("m.py").decode() == source.replace("import os\n", "import os\nimport sys\n") \
        .replace("return 2", "return 3")
    assert Result.from_json(json.loads(r.out)).edits[0].kept[0].end == 5
    r = repo.run("--check", "-v", response=answer.replace("return 3", "return 4"))
    assert "lazy snippet merged" in r.err and "kept lines 5-6" in r.err  # after the commit
