"""Coding agents' own edit tools as tool calls (BEHAVIOR.md §1, issue 22 item 5): Claude
Code's Edit / MultiEdit / Write, SWE-agent/OpenHands str_replace_editor, Gemini CLI's
replace / write_file, each read from the Anthropic, OpenAI Chat and Responses envelopes;
their counts (replace_all, expected_replacements) on a file's text, checked against
str.replace; MultiEdit in order and all or nothing.  Plain functions; the runs through the
real command are in test_agent_tools_e2e.py."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.ops import NewFile, ReplaceText, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from git_aiapply.answer.response import read_response
from git_aiapply.text import FileText
from git_aiapply.locate.text_edits import apply_text_edit
from git_aiapply.answer.toolcalls import ToolCall, call_ops, is_edit_call, parse_with_tools


def anthropic(name: str, args: dict) -> dict:
    return {"type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "Doing it."},
                        {"type": "tool_use", "id": "t1", "name": name, "input": args}]}


def chat(name: str, args: dict) -> dict:
    return {"model": "gpt-x", "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Doing it.", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}]}}]}


def responses(name: str, args: dict) -> dict:
    return {"model": "gpt-x", "status": "completed", "output": [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Doing it."}]},
        {"type": "function_call", "call_id": "c1", "name": name,
         "arguments": json.dumps(args)}]}


ENVELOPES = [anthropic, chat, responses]


def ops_of(data: dict):
    return parse_with_tools(read_response(json.dumps(data).encode(), "r.json")).ops


class DictBase:
    def __init__(self, files):
        self.files = files

    def entry(self, path):
        return (0o100644, self.files[path]) if path in self.files else None

    def kind(self, path):
        if path in self.files:
            return "file"
        return "dir" if any(p.startswith(path + "/") for p in self.files) else None

    def disk_kind(self, path):
        return None


WORKTREE = "/repo"


def plan(ops, files):
    """The files after ``ops``, paths normalised as the command does for /repo."""
    result = make_plan(ops, DictBase(files),
                       lambda p: normalize_path(p, worktree=WORKTREE))
    return {p: s.data for p, s in result.final.items() if s is not None}


# ------------------------------------------------------------ each tool, each envelope

@pytest.mark.parametrize("envelope", ENVELOPES)
def test_claude_code_edit(envelope):
    ops = ops_of(envelope("Edit", {"file_path": "/repo/src/a.py", "old_string": "x = 1",
                                   "new_string": "x = 2"}))
    assert [(type(o), o.path, o.old, o.new, o.expected) for o in ops] == [
        (ReplaceText, "/repo/src/a.py", "x = 1", "x = 2", 1)]
    assert plan(ops, {"src/a.py": b"x = 1\ny = 1\n"}) == {"src/a.py": b"x = 2\ny = 1\n"}


@pytest.mark.parametrize("envelope", ENVELOPES)
def test_claude_code_edit_replace_all(envelope):
    ops = ops_of(envelope("Edit", {"file_path": "a.py", "old_string": "foo", "new_string": "bar",
                                   "replace_all": True}))
    assert ops[0].expected is None
    assert plan(ops, {"a.py": b"foo(foo)\nfoo\n"}) == {"a.py": b"bar(bar)\nbar\n"}


@pytest.mark.parametrize("envelope", ENVELOPES)
def test_claude_code_multi_edit_applies_in_order(envelope):
    ops = ops_of(envelope("MultiEdit", {"file_path": "/repo/a.py", "edits": [
        {"old_string": "one", "new_string": "uno"},
        {"old_string": "uno\ntwo", "new_string": "uno\ndos"},  # sees the first edit's result
        {"old_string": "z", "new_string": "Z", "replace_all": True}]}))
    assert [type(o) for o in ops] == [ReplaceText] * 3
    assert plan(ops, {"a.py": b"one\ntwo\nz z\n"}) == {"a.py": b"uno\ndos\nZ Z\n"}


@pytest.mark.parametrize("envelope", ENVELOPES)
@pytest.mark.parametrize("name", ["Write", "write_file"])
def test_write_tools(envelope, name):
    ops = ops_of(envelope(name, {"file_path": "/repo/new/b.txt", "content": "hello\n"}))
    assert [(type(o), o.path, o.text, o.replace) for o in ops] == [
        (NewFile, "/repo/new/b.txt", "hello\n", True)]
    assert plan(ops, {"new/b.txt": b"old\n"}) == {"new/b.txt": b"hello\n"}


@pytest.mark.parametrize("envelope", ENVELOPES)
def test_gemini_replace_with_expected_replacements(envelope):
    ops = ops_of(envelope("replace", {"file_path": "/repo/a.py", "old_string": "v1",
                                      "new_string": "v2", "expected_replacements": 2}))
    assert ops[0].expected == 2
    assert plan(ops, {"a.py": b"v1\nv1\n"}) == {"a.py": b"v2\nv2\n"}


@pytest.mark.parametrize("envelope", ENVELOPES)
def test_openhands_str_replace_editor_commands(envelope):
    # SWE-agent/OpenHands: the text editor's commands, absolute paths, new_str for insert
    data = envelope("str_replace_editor", {"command": "str_replace", "path": "/repo/a.py",
                                           "old_str": "a", "new_str": "b"})
    more = envelope("str_replace_editor", {"command": "insert", "path": "/repo/a.py",
                                           "insert_line": 1, "new_str": "c"})
    view = envelope("str_replace_editor", {"command": "view", "path": "/repo/a.py",
                                           "view_range": [1, 2]})
    create = envelope("str_replace_editor", {"command": "create", "path": "/repo/n.py",
                                             "file_text": "n\n"})
    ops = ops_of(data) + ops_of(more) + ops_of(view) + ops_of(create)
    assert plan(ops, {"a.py": b"a\n"}) == {"a.py": b"b\nc\n", "n.py": b"n\n"}


@pytest.mark.parametrize("name, args", [
    ("Edit", {"file_path": "a", "old_string": "x", "new_string": "y"}),
    ("MultiEdit", {"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}]}),
    ("Write", {"file_path": "a", "content": ""}),
    ("replace", {"file_path": "a", "old_string": "x", "new_string": "y"}),
    ("write_file", {"file_path": "a", "content": "x"}),
])
def test_agent_tools_are_edit_calls(name, args):
    # they count in the AI-Response id, as every edit call does
    assert is_edit_call(ToolCall(1, "tool_use", name, args))


# ------------------------------------------------------------ counts

SRC = Source("tool-call", "tool call 1 (tool_use Edit): Edit f.txt", 0, 0)


def edit(data: bytes, old: str, new: str, expected, tool="Edit") -> bytes:
    op = ReplaceText("f.txt", old, new, SRC, expected=expected, tool=tool, old_name="old_string")
    return apply_text_edit(FileText.from_bytes(data), op, "f.txt")[0].to_bytes()


def refusal(data: bytes, old: str, new: str, expected, tool="Edit") -> str:
    with pytest.raises(ApplyError) as e:
        edit(data, old, new, expected, tool)
    return str(e.value)


def test_edit_without_replace_all_needs_exactly_one():
    why = refusal(b"x = 1\nx = 1\n", "x = 1", "x = 2", 1)
    assert "old_string occurs 2 times in f.txt (at lines 1, 2)" in why
    assert "Edit needs exactly one occurrence" in why and "replace_all" in why


def test_replace_all_needs_at_least_one():
    why = refusal(b"a\n", "zzz", "y", None)
    assert "old_string does not occur in f.txt" in why and "at least one" in why


@pytest.mark.parametrize("count, expected", [(3, 2), (1, 2), (2, 1)])
def test_expected_replacements_must_match_exactly(count, expected):
    data = b"v1 " * count + b"\n"
    why = refusal(data, "v1", "v2", expected, tool="replace")
    assert f"expected_replacements is {expected}" in why
    assert f"{count} times" in why or (count == 1 and "occurs once" in why)


def test_expected_replacements_zero_occurrences():
    why = refusal(b"a\n", "v1", "v2", 2, tool="replace")
    assert "does not occur" in why and "expected_replacements is 2" in why


@pytest.mark.parametrize("before, old, new, after", [
    (b"a-a\na\n", "a", "bb", b"bb-bb\nbb\n"),
    (b"aaa\n", "aa", "b", b"ba\n"),  # counted end to end, as str.replace
    (b"x\ny\nx\ny\n", "x\ny\n", "", b""),
    (b"x\r\ny\r\nx\r\n", "x", "X\nX", b"X\r\nX\r\ny\r\nX\r\nX\r\n"),  # CRLF kept
    (b"k\nab\nk\nab", "b", "", b"k\na\nk\na"),
])
def test_replace_all_examples(before, old, new, after):
    assert edit(before, old, new, None) == after


_ALPHABET = st.sampled_from(["a", "b", "\n", " "])


@settings(max_examples=200, deadline=None)
@given(text=st.lists(_ALPHABET, max_size=30).map("".join),
       old=st.lists(_ALPHABET, min_size=1, max_size=4).map("".join),
       new=st.lists(_ALPHABET, max_size=4).map("".join))
def test_replace_all_and_exact_counts_are_str_replace(text, old, new):
    """On an LF file, replace_all and a matching expected_replacements give exactly what
    str.replace gives; any other count is refused."""
    data = text.encode()
    count = text.count(old)
    if count == 0:
        with pytest.raises(ApplyError):
            edit(data, old, new, None)
        return
    want = text.replace(old, new).encode()
    assert edit(data, old, new, None) == want
    overlapping = sum(text.startswith(old, i) for i in range(len(text)))
    if count == 1 and overlapping > 1:  # "aa" in "aaa": which one was meant is unknown
        with pytest.raises(ApplyError):
            edit(data, old, new, 1, tool="replace")
    else:
        assert edit(data, old, new, count, tool="replace") == want
    with pytest.raises(ApplyError):
        edit(data, old, new, count + 1, tool="replace")


# ------------------------------------------------------------ refusals of the call itself

def call(name, args, shape="tool_use"):
    return ToolCall(1, shape, name, args)


@pytest.mark.parametrize("name, args, fragment", [
    ("Edit", {"old_string": "a", "new_string": "b"}, "without a file_path"),
    ("Edit", {"file_path": "a", "new_string": "b"}, "'old_string' is missing"),
    ("Edit", {"file_path": "a", "old_string": "b"}, "'new_string' is missing"),
    ("Edit", {"file_path": "a", "old_string": "b", "new_string": "b"}, "are the same"),
    ("Edit", {"file_path": "a", "old_string": "b", "new_string": "c", "replace_all": "yes"},
     "replace_all must be true or false"),
    ("replace", {"file_path": "a", "old_string": "b", "new_string": "c",
                 "expected_replacements": 0}, "at least 1"),
    ("MultiEdit", {"file_path": "a", "edits": []}, "has no 'edits' list"),
    ("MultiEdit", {"file_path": "a", "edits": [{"old_string": "a", "new_string": "b"},
                                               {"old_string": "", "new_string": "c"}]},
     "only a MultiEdit's first edit may create the file"),
    ("Write", {"file_path": "a"}, "has no 'content'"),
    ("write_file", {"file_path": "a\nb", "content": "x"}, "line break"),
    ("Edit", '{"file_path": "a", "old_str', "not valid JSON"),
])
def test_bad_agent_tool_calls(name, args, fragment):
    shape = "function_call" if isinstance(args, str) else "tool_use"
    with pytest.raises(ApplyError) as e:
        call_ops(call(name, args, shape))
    assert fragment in str(e.value)


def test_replace_all_as_a_string_and_counts_as_strings():
    ops = call_ops(call("Edit", {"file_path": "a", "old_string": "x", "new_string": "y",
                                 "replace_all": "true"}))
    assert ops[0].expected is None
    ops = call_ops(call("replace", {"file_path": "a", "old_string": "x", "new_string": "y",
                                    "expected_replacements": "3"}))
    assert ops[0].expected == 3


def test_empty_old_string_creates_the_file_only():
    ops = call_ops(call("Edit", {"file_path": "n.txt", "old_string": "", "new_string": "hi\n"}))
    assert [(type(o), o.replace) for o in ops] == [(NewFile, False)]
    assert plan(ops, {}) == {"n.txt": b"hi\n"}
    with pytest.raises(ApplyError) as e:
        plan(ops, {"n.txt": b"content\n"})
    assert "already exists; an empty old_string only creates" in str(e.value)


def test_multi_edit_whose_second_edit_fails_refuses_all():
    ops = call_ops(call("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": "one", "new_string": "uno"},
        {"old_string": "three", "new_string": "tres"}]}))
    with pytest.raises(ApplyError) as e:
        plan(ops, {"a.py": b"one\ntwo\n"})
    assert "MultiEdit a.py, edit 2" in str(e.value) and "does not occur" in str(e.value)


def test_absolute_path_outside_the_worktree_is_refused():
    ops = call_ops(call("Write", {"file_path": "/etc/passwd", "content": "x"}))
    with pytest.raises(ApplyError) as e:
        plan(ops, {})
    assert "outside the worktree" in str(e.value)


def test_notebook_edit_is_refused_by_name_not_dropped():
    with pytest.raises(ApplyError) as e:
        call_ops(call("NotebookEdit", {"notebook_path": "/repo/n.ipynb", "new_source": "x",
                                       "cell_id": "1"}))
    assert "'NotebookEdit' is not a tool ai-apply knows" in str(e.value)


_WORDS = st.sampled_from(["a", "b", "ab", "a\n", "\nb", "c"])


@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "b", "c", "\n"]), max_size=20).map("".join),
       edits=st.lists(st.tuples(_WORDS, _WORDS), min_size=1, max_size=3))
def test_multi_edit_is_replace_all_in_sequence(text, edits):
    """A MultiEdit of replace_all edits gives what str.replace gives applied in turn, or
    is refused as a whole (an edit that finds nothing); a later edit may change what an
    earlier one wrote (test_agent_tools_sequence.py)."""
    args = {"file_path": "f.txt", "edits": [
        {"old_string": old, "new_string": new, "replace_all": True} for old, new in edits]}
    want: str | None = text
    for old, new in edits:
        if old == new or old not in want:
            want = None
            break
        want = want.replace(old, new)
    try:
        got = plan(call_ops(call("MultiEdit", args)), {"f.txt": text.encode()})["f.txt"]
    except ApplyError:
        got = None
    assert got == (want.encode() if want is not None else None)


# ------------------------------------------------------------ typographic quotes (Edit)

@pytest.mark.parametrize("before, old, new, after", [
    # the file's curly quotes found by straight ones; unchanged text keeps them
    ("print(\u201chello\u201d)\n", 'print("hello")', 'print("hello")\nprint("bye")',
     'print(\u201chello\u201d)\nprint("bye")\n'),
    ("say(\u2018it\u2019s\u2019)\n", "say('it's')", "shout('it's')", "shout(\u2018it\u2019s\u2019)\n"),
    ("a \u201cx\u201d b\n", 'a "x" b', 'a "y" b', "a \u201cy\u201d b\n"),  # quotes around a change
])
def test_edit_finds_straight_quotes_where_the_file_has_curly_ones(before, old, new, after):
    assert edit(before.encode(), old, new, 1) == after.encode()


def test_quote_folding_is_claude_codes_only_and_keeps_the_counts():
    data = "x = \u201ca\u201d\n".encode()
    with pytest.raises(ApplyError):  # the text editor matches exactly, as Anthropic's does
        edit(data, 'x = "a"', 'x = "b"', 1, tool="str_replace")
    with pytest.raises(ApplyError):
        edit(data, 'x = "a"', 'x = "b"', 1, tool="replace")
    twice = "\u201ca\u201d \u201ca\u201d\n".encode()
    with pytest.raises(ApplyError) as e:
        edit(twice, '"a"', '"b"', 1)
    assert "occurs 2 times in f.txt (at line 1)" in str(e.value)
    assert edit(twice, '"a"', "b", None) == b"b b\n"
