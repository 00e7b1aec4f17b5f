"""Edits as tool calls (BEHAVIOR.md §1): extraction from each JSON shape, the operations
each call becomes, str_replace / insert on a file's text, and the refusals.  Plain
functions, no repository; the end-to-end runs are in test_toolcalls_e2e.py and the
data-driven cases in tests/cases/json-*."""
from __future__ import annotations

import json

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.ops import DeleteFile, EditFile, InsertText, NewFile, RenameFile, ReplaceText, Source
from git_aiapply.plan.plan import make_plan
from git_aiapply.answer.response import extract_answer, read_response, split_choices
from git_aiapply.text import FileText
from git_aiapply.locate.text_edits import apply_text_edit
from git_aiapply.answer.toolcalls import (ToolCall, call_ops, is_edit_call, looks_like_edit,
    parse_with_tools)


def read(data) -> object:
    return read_response(json.dumps(data).encode(), "r.json")


def ops_of(data):
    return parse_with_tools(read(data)).ops


SRC = Source("tool-call", "tool call 1 (tool_use str_replace_based_edit_tool): x", 0, 0)


# ------------------------------------------------------------ extraction, per shape

def test_responses_items_in_order():
    data = {"model": "gpt-5.1", "output": [
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Rename it."}]},
        {"type": "apply_patch_call", "call_id": "a", "status": "completed",
         "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y\n"}},
        {"type": "apply_patch_call", "call_id": "b", "status": "completed",
         "operation": {"type": "delete_file", "path": "old.py"}},
        {"type": "function_call_output", "call_id": "zz", "output": "ok"},
    ]}
    r = read(data)
    assert r.text == "Rename it." and r.model == "gpt-5.1"
    assert [(off, c.shape, c.name) for off, c in r.tool_calls] == [
        (10, "apply_patch_call", "apply_patch"), (10, "apply_patch_call", "apply_patch")]
    parsed = parse_with_tools(r)
    assert [type(o) for o in parsed.ops] == [EditFile, DeleteFile]
    assert parsed.formats == ["tool-call"]
    assert parsed.explanation == "Rename it."
    assert parsed.ops[0].hunks[0].lines == [("-", "x"), ("+", "y")]


def test_chat_completions_function_and_custom_tool_calls():
    patch = "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch\n"
    data = {"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "1", "type": "function",
             "function": {"name": "apply_patch", "arguments": json.dumps({"input": patch})}},
            {"id": "2", "type": "custom", "custom": {"name": "apply_patch", "input":
                patch.replace("n.txt", "m.txt")}},
            {"id": "3", "type": "function",
             "function": {"name": "run_tests", "arguments": "{\"path\": \"tests\"}"}},
        ]}}]}
    ops = ops_of(data)
    assert [(type(o), o.path, o.text) for o in ops] == [(NewFile, "n.txt", "hi\n"),
                                                       (NewFile, "m.txt", "hi\n")]
    assert all(o.source.format == "tool-call" for o in ops)


def test_anthropic_text_editor_blocks_and_text_keep_their_order():
    data = {"type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "First a diff:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-1\n+one\n```"},
                {"type": "tool_use", "id": "t1", "name": "str_replace_based_edit_tool",
                 "input": {"command": "str_replace", "path": "b.txt", "old_str": "2", "new_str": "two"}},
                {"type": "tool_use", "id": "t2", "name": "str_replace_based_edit_tool",
                 "input": {"command": "view", "path": "b.txt"}},
                {"type": "text", "text": "Then another:\n\n```diff\n--- a/c.txt\n+++ b/c.txt\n@@\n-3\n+three\n```"},
            ]}
    parsed = parse_with_tools(read(data))
    assert [(type(o).__name__, o.path) for o in parsed.ops] == [
        ("EditFile", "a.txt"), ("ReplaceText", "b.txt"), ("EditFile", "c.txt")]
    assert parsed.formats == ["unified-diff", "tool-call"]


def test_tool_call_before_any_text_comes_first():
    data = {"type": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "str_replace_editor",
         "input": {"command": "create", "path": "z.txt", "file_text": "z"}},
        {"type": "text", "text": "<FILE_CHANGES>\n<FILE_NEW file_path=\"y.txt\">\ny\n</FILE_NEW>\n</FILE_CHANGES>"},
    ]}
    parsed = parse_with_tools(read(data))
    assert [o.path for o in parsed.ops] == ["z.txt", "y.txt"]
    assert parsed.formats == ["tool-call", "file-changes"]


def test_conversation_list_takes_every_assistant_turn_in_order():
    convo = [
        {"role": "system", "content": "You edit files."},
        {"role": "user", "content": "Fix a and b.\n\n```diff\n--- a/u.txt\n+++ b/u.txt\n@@\n-u\n+U\n```"},
        {"role": "assistant", "content": "Fixing a.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "str_replace_based_edit_tool",
             "arguments": json.dumps({"command": "str_replace", "path": "a.txt",
                                      "old_str": "a", "new_str": "A"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "assistant", "content": [{"type": "text", "text": "Now b."},
                                          {"type": "tool_use", "id": "t9", "name": "str_replace_based_edit_tool",
                                           "input": {"command": "insert", "path": "b.txt",
                                                     "insert_line": 0, "insert_text": "top"}}]},
    ]
    r = read(convo)
    assert r.text == "Fixing a.\nNow b."  # the user's diff is not the assistant's
    ops = parse_with_tools(r).ops
    assert [(type(o).__name__, o.path) for o in ops] == [("ReplaceText", "a.txt"),
                                                         ("InsertText", "b.txt")]


@pytest.mark.parametrize("key", ["messages", "input"])
def test_conversation_object(key):
    convo = {"model": "m", key: [
        {"role": "user", "content": "go"},
        {"type": "apply_patch_call", "call_id": "a", "status": "completed",
         "operation": {"type": "create_file", "path": "n.txt", "diff": "+n\n"}}]}
    r = read(convo)
    assert [type(o) for o in parse_with_tools(r).ops] == [NewFile]
    assert r.model == "m"


def test_conversation_skips_calls_the_harness_reported_as_failed():
    convo = [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "bad", "name": "str_replace_based_edit_tool",
             "input": {"command": "str_replace", "path": "a.txt", "old_str": "nope", "new_str": "x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "bad", "is_error": True,
                                      "content": "No match found"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "good", "name": "str_replace_based_edit_tool",
             "input": {"command": "str_replace", "path": "a.txt", "old_str": "a", "new_str": "A"}}]},
        {"type": "apply_patch_call", "call_id": "p1", "status": "completed",
         "operation": {"type": "delete_file", "path": "gone.txt"}},
        {"type": "apply_patch_call_output", "call_id": "p1", "status": "failed", "output": "no"},
    ]
    ops = ops_of(convo)
    assert [(type(o).__name__, getattr(o, "old", None)) for o in ops] == [("ReplaceText", "a")]


def test_saved_api_responses_as_a_conversation():
    turns = [{"model": "m1", "choices": [{"finish_reason": "stop", "message": {
                 "role": "assistant", "content": "one"}}]},
             {"model": "m2", "output": [{"type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": "two"}]}]}]
    r = read(turns)
    assert r.text == "one\ntwo" and r.model == "m2"


@pytest.mark.parametrize("raw, is_text", [
    (b"[1, 2, 3]", True), (b"[]", True), (b'[{"a": 1}]', True),
    (b'[{"role": "assistant", "content": "hi"}]', False),
])
def test_only_message_lists_are_conversations(raw, is_text):
    assert read_response(raw).is_json is (not is_text)


# ------------------------------------------------------------ the response id

def test_tool_only_answers_get_distinct_ids():
    def answer(path):
        return {"output": [{"type": "apply_patch_call", "call_id": "a", "status": "completed",
                            "operation": {"type": "delete_file", "path": path}}]}
    a, b = read(answer("a.txt")), read(answer("b.txt"))
    assert a.text == b.text == ""
    assert a.response_id != b.response_id


def test_id_of_text_only_json_is_unchanged():
    import xxhash
    r = read({"choices": [{"message": {"role": "assistant", "content": "hello",
                                       "tool_calls": [{"id": "1", "type": "function", "function":
                                                       {"name": "run", "arguments": "{}"}}]}}]})
    assert r.response_id == xxhash.xxh64(b"hello", seed=0).hexdigest()


# ------------------------------------------------------------ stop signals, choices

@pytest.mark.parametrize("data, signal", [
    ({"choices": [{"finish_reason": "length", "message": {"role": "assistant", "content": "x"}}]},
     'finish_reason "length"'),
    ({"type": "message", "role": "assistant", "stop_reason": "max_tokens",
      "content": [{"type": "text", "text": "x"}]}, 'stop_reason "max_tokens"'),
    ({"type": "message", "role": "assistant", "stop_reason": "model_context_window_exceeded",
      "content": [{"type": "text", "text": "x"}]}, "model_context_window_exceeded"),
    ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
      "output": [{"type": "message", "role": "assistant",
                  "content": [{"type": "output_text", "text": "x"}]}]},
     'status "incomplete" (max_output_tokens)'),
    ([{"role": "assistant", "stop_reason": "max_tokens", "content": "x"}],
     'stop_reason "max_tokens"'),
    ([{"type": "message", "role": "assistant", "status": "incomplete", "content": "x"}],
     'status "incomplete"'),
    # complete tool calls do not make a cut-off answer whole
    ({"type": "message", "role": "assistant", "stop_reason": "max_tokens", "content": [
        {"type": "tool_use", "id": "t", "name": "str_replace_based_edit_tool",
         "input": {"command": "create", "path": "a", "file_text": "a"}}]}, "max_tokens"),
])
def test_cut_off_answers_are_refused(data, signal):
    with pytest.raises(ApplyError) as e:
        read(data)
    assert "cut off" in str(e.value) and signal in str(e.value)
    assert e.value.kind == "truncated"


@pytest.mark.parametrize("data", [
    {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "x"}}]},
    {"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": "x"}}]},
    {"type": "message", "role": "assistant", "stop_reason": "end_turn", "content": "x"},
    {"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": "x"},
    {"status": "completed", "output": [{"type": "message", "role": "assistant",
                                        "content": [{"type": "output_text", "text": "x"}]}]},
])
def test_finished_answers_are_read(data):
    assert read(data).text == "x"


def test_several_choices_are_refused_with_the_way_out():
    data = {"choices": [{"index": i, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": f"c{i}"}} for i in range(3)]}
    with pytest.raises(ApplyError) as e:
        read(data)
    assert "3 choices" in str(e.value) and "--branch" in str(e.value)
    parts = split_choices(json.dumps(data).encode())
    assert [read_response(p).text for p in parts] == ["c0", "c1", "c2"]
    assert split_choices(json.dumps({"choices": data["choices"][:1]}).encode()) is None
    assert split_choices(b"plain text") is None


# ------------------------------------------------------------ V4A diffs

def call(shape="apply_patch_call", name="apply_patch", args=None, number=1):
    return ToolCall(number, shape, name, args)


def test_create_file_diff_is_the_plus_lines():
    ops = call_ops(call(args={"type": "create_file", "path": "a/b.py",
                              "diff": "+import os\n+\n+print(os.sep)"}))
    assert len(ops) == 1 and isinstance(ops[0], NewFile)
    assert ops[0].path == "a/b.py" and ops[0].text == "import os\n\nprint(os.sep)\n"


def test_create_file_diff_with_a_line_without_plus_is_refused():
    with pytest.raises(ApplyError) as e:
        call_ops(call(args={"type": "create_file", "path": "a.py", "diff": "+a\nb\n"}))
    msg = str(e.value)
    assert "tool call 1 (apply_patch_call)" in msg and "line 2 of the diff" in msg


def test_update_file_diff_anchors_and_end_of_file():
    diff = "@@ class A:\n@@     def f(self):\n-        return 1\n+        return 2\n@@\n-last\n+LAST\n*** End of File\n"
    (op,) = call_ops(call(args={"type": "update_file", "path": "m.py", "diff": diff}))
    assert isinstance(op, EditFile) and op.ensure_final_newline
    h1, h2 = op.hunks
    assert h1.anchors == ["class A:", "    def f(self):"]
    assert h2.at_eof and h2.lines == [("-", "last"), ("+", "LAST")]


def test_update_file_diff_inside_an_envelope_is_accepted():
    diff = "*** Begin Patch\n*** Update File: m.py\n@@\n-a\n+b\n*** End Patch\n"
    (op,) = call_ops(call(args={"type": "update_file", "path": "m.py", "diff": diff}))
    assert op.hunks[0].lines == [("-", "a"), ("+", "b")]


def test_update_file_diff_may_not_touch_another_file():
    diff = "@@\n-a\n+b\n*** Delete File: other.py\n"
    with pytest.raises(ApplyError) as e:
        call_ops(call(args={"type": "update_file", "path": "m.py", "diff": diff}))
    assert "another file section" in str(e.value)


def test_update_file_with_move_to_renames():
    diff = "*** Move to: new.py\n@@\n-a\n+b\n"
    ops = call_ops(call(args={"type": "update_file", "path": "m.py", "diff": diff}))
    assert [type(o) for o in ops] == [EditFile, RenameFile] and ops[1].new_path == "new.py"


@pytest.mark.parametrize("op, fragment", [
    ({"type": "update_file", "path": "m.py"}, "has no diff"),
    ({"type": "update_file", "path": "m.py", "diff": ""}, "empty update"),
    ({"type": "rename_file", "path": "m.py"}, "unknown apply_patch operation 'rename_file'"),
    ({"type": "delete_file"}, "delete_file without a path"),
    ({"type": "create_file", "path": "a\nb", "diff": "+x"}, "line break"),
    ("nonsense", "has no operation"),
])
def test_bad_apply_patch_operations(op, fragment):
    with pytest.raises(ApplyError) as e:
        call_ops(call(args=op))
    assert fragment in str(e.value)


def test_apply_patch_function_call_without_patch_is_refused():
    with pytest.raises(ApplyError) as e:
        call_ops(call("function_call", "apply_patch", json.dumps({"cmd": 1})))
    assert "carries no patch text" in str(e.value)


def test_apply_patch_text_that_never_ends_is_refused():
    with pytest.raises(ApplyError) as e:
        call_ops(call("custom_tool_call", "apply_patch", "*** Begin Patch\n*** Add File: a\n+a\n"))
    assert "never closed" in str(e.value) and "tool call 1" in str(e.value)


def test_shell_apply_patch_forms():
    patch = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"
    for args in ({"command": ["apply_patch", patch]},
                 {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}\nEOF\n"]}):
        (op,) = call_ops(call("function_call", "shell", json.dumps(args)))
        assert isinstance(op, DeleteFile) and op.path == "a.txt"
    # a script that does more than apply the patch is not replayed: refused, named
    with pytest.raises(ApplyError) as e:
        call_ops(call("function_call", "shell",
                      json.dumps({"command": ["bash", "-lc", f"cd sub && apply_patch <<'EOF'\n{patch}\nEOF"]})))
    assert "'shell' is not a tool ai-apply knows" in str(e.value)


def test_responses_shell_call_running_apply_patch():
    """GPT-5.1's shell tool: a ``shell_call`` item whose ``action.commands`` are separate
    commands; one that is only an apply_patch heredoc is that patch, the others (a test
    run) change nothing, and a patch inside any other script is refused, never dropped."""
    patch = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"
    heredoc = f"apply_patch <<'EOF'\n{patch}\nEOF\n"

    def answer(commands, status="completed"):
        return {"model": "gpt-5.1", "status": "completed", "output": [
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Drop a.txt."}]},
            {"type": "shell_call", "call_id": "s1", "status": status,
             "action": {"commands": commands, "timeout_ms": 1000}}]}

    (op,) = ops_of(answer(["ls", heredoc, "pytest -q"]))
    assert isinstance(op, DeleteFile) and op.path == "a.txt"
    assert ops_of(answer(["pytest -q"])) == []
    for commands in ([f"cd sub && {heredoc}"], [heredoc, f"cd sub && {heredoc}"]):
        with pytest.raises(ApplyError) as e:
            ops_of(answer(commands))
        assert "'shell' is not a tool ai-apply knows" in str(e.value)
    with pytest.raises(ApplyError) as e:
        read(answer([heredoc], status="incomplete"))
    assert e.value.kind == "truncated"


# ------------------------------------------------------------ unknown tools

@pytest.mark.parametrize("args", [
    {"file_path": "a.py", "old_string": "x", "new_string": "y"},
    {"path": "a.py", "content": "print(1)\n"},
    {"target_file": "a.py", "code_edit": "..."},
    {"patch": "--- a/x\n+++ b/x\n"},
    "*** Begin Patch\n*** Delete File: a\n*** End Patch",
])
def test_unknown_tool_that_looks_like_an_edit_is_refused_by_name(args):
    c = call("function_call", "CustomEdit", json.dumps(args) if isinstance(args, dict) else args)
    with pytest.raises(ApplyError) as e:
        call_ops(c)
    assert "'CustomEdit' is not a tool ai-apply knows" in str(e.value)
    assert not is_edit_call(c)


@pytest.mark.parametrize("name, args", [
    ("run_tests", {"path": "tests/"}),
    ("bash", {"command": "pytest -q"}),
    ("read_file", {"path": "a.py", "start_line": 1}),
    ("grep", {"pattern": "def ", "path": "src"}),
    ("web_search", {"query": "python"}),
    ("str_replace_based_edit_tool", {"command": "view", "path": "a.py", "view_range": [1, 5]}),
])
def test_calls_that_carry_no_file_content_are_ignored(name, args):
    assert call_ops(call("tool_use", name, args)) == []
    assert looks_like_edit(args) is None or name == "str_replace_based_edit_tool"


def test_every_bad_call_is_reported():
    data = {"type": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "1", "name": "scribble", "input": {"path": "a", "content": "x"}},
        {"type": "tool_use", "id": "2", "name": "str_replace_based_edit_tool",
         "input": {"command": "undo_edit", "path": "a"}},
    ]}
    with pytest.raises(ApplyError) as e:
        ops_of(data)
    assert len(e.value.problems) == 2
    assert "'scribble'" in str(e.value) and "undo_edit" in str(e.value)


# ------------------------------------------------------------ text editor arguments

@pytest.mark.parametrize("args, fragment", [
    ({"command": "str_replace", "path": "a", "new_str": "x"}, "has no 'old_str'"),
    ({"command": "str_replace", "path": "a", "old_str": "", "new_str": "x"}, "has no 'old_str'"),
    ({"command": "create", "path": "a"}, "has no 'file_text'"),
    ({"command": "insert", "path": "a", "insert_text": "x"}, "'insert_line' must be a line number"),
    ({"command": "insert", "path": "a", "insert_line": -1, "insert_text": "x"}, "'insert_line'"),
    ({"command": "insert", "path": "a", "insert_line": True, "insert_text": "x"}, "'insert_line'"),
    ({"command": "insert", "path": "a", "insert_line": 1}, "has no 'insert_text'"),
    ({"command": "str_replace", "old_str": "a"}, "str_replace without a path"),
    ({"command": "rewrite", "path": "a"}, "unknown text editor command 'rewrite'"),
])
def test_bad_text_editor_calls(args, fragment):
    with pytest.raises(ApplyError) as e:
        call_ops(call("tool_use", "str_replace_based_edit_tool", args))
    assert fragment in str(e.value)


@pytest.mark.parametrize("name, args", [
    ("apply_patch", '{"input": "*** Begin Patch\\n*** Delete File: a'),
    ("str_replace_based_edit_tool", '{"command": "str_replace", "path": "a", "old_str": "x'),
])
def test_function_arguments_cut_off_mid_json_are_refused(name, args):
    with pytest.raises(ApplyError) as e:
        call_ops(call("function_call", name, args))
    assert "not valid JSON (cut off?)" in str(e.value)


def test_insert_line_as_a_whole_float():
    (op,) = call_ops(call("tool_use", "str_replace_based_edit_tool",
                          {"command": "insert", "path": "a", "insert_line": 2.0, "insert_text": "x"}))
    assert op.line == 2
    with pytest.raises(ApplyError):
        call_ops(call("tool_use", "str_replace_based_edit_tool",
                      {"command": "insert", "path": "a", "insert_line": 2.5, "insert_text": "x"}))


def test_insert_accepts_new_str_and_a_numeric_string():
    (op,) = call_ops(call("tool_use", "str_replace_editor",
                          {"command": "insert", "path": "a", "insert_line": "2", "new_str": "x"}))
    assert isinstance(op, InsertText) and op.line == 2 and op.text == "x"


# ------------------------------------------------------------ str_replace and insert on text

def edit(data: bytes, op) -> bytes:
    new, _added, _removed = apply_text_edit(FileText.from_bytes(data), op, "f.txt")
    return new.to_bytes()


def rep(old, new):
    return ReplaceText("f.txt", old, new, SRC)


@pytest.mark.parametrize("before, old, new, after", [
    (b"a\nb\nc\n", "b", "B", b"a\nB\nc\n"),
    (b"a\nb\nc\n", "b\n", "", b"a\nc\n"),
    (b"a\nb\nc\n", "b\nc", "X", b"a\nX\n"),
    (b"a\nb\nc\n", "a\n", "z", b"zb\nc\n"),  # a substring: the newline goes too
    (b"a\nb", "b", "B\nC", b"a\nB\nC"),  # no final newline stays so
    (b"x\ny\n", "y\n", "Y", b"x\nY"),  # the final newline was part of old_str
    (b"x\ny\n", "\ny\n", "", b"x"),
    (b"def f():\n    return 1\n", "return 1", "return 2", b"def f():\n    return 2\n"),
    (b"a\r\nb\r\nc\r\n", "a\nb", "A\nB", b"A\r\nB\r\nc\r\n"),  # CRLF file, LF old_str
    (b"a\r\nb\r\nc\r\n", "b\r\n", "B\r\nB2\r\n", b"a\r\nB\r\nB2\r\nc\r\n"),
    (b"\xef\xbb\xbfa\nb\n", "a", "A", b"\xef\xbb\xbfA\nb\n"),  # BOM kept
    (b"one two three\n", "two", "2", b"one 2 three\n"),
    (b"keep\nx\n", "x\n", "x\ny\n", b"keep\nx\ny\n"),
])
def test_str_replace(before, old, new, after):
    assert edit(before, rep(old, new)) == after


def test_str_replace_counts_changed_lines_only():
    _new, added, removed = apply_text_edit(FileText.from_bytes(b"a\nb\nc\nd\n"),
                                           rep("b\nc", "b\nC\nC2"), "f.txt")
    assert (added, removed) == (2, 1)


def test_str_replace_not_found_shows_the_closest_lines():
    with pytest.raises(ApplyError) as e:
        edit(b"def f():\n    return 1\n\ndef g():\n    pass\n", rep("    return  1", "x"))
    p = e.value.problems[0]
    assert "does not occur in f.txt" in p.reason and p.file == "f.txt"
    assert (2, "    return 1") in p.nearby


def test_str_replace_in_two_places_names_the_lines():
    with pytest.raises(ApplyError) as e:
        edit(b"x = 1\ny = 2\nx = 1\n", rep("x = 1", "x = 3"))
    p = e.value.problems[0]
    assert "occurs 2 times" in p.reason and "lines 1, 3" in p.reason
    assert p.candidates == [1, 3]


def test_str_replace_overlapping_occurrences_count():
    with pytest.raises(ApplyError) as e:
        edit(b"aaa\n", rep("aa", "b"))
    assert "occurs 2 times" in str(e.value)


def ins(line, text):
    return InsertText("f.txt", line, text, SRC)


@pytest.mark.parametrize("before, line, text, after", [
    (b"a\nb\n", 0, "top", b"top\na\nb\n"),
    (b"a\nb\n", 1, "mid\n", b"a\nmid\nb\n"),
    (b"a\nb\n", 2, "end", b"a\nb\nend\n"),
    (b"a\nb", 2, "end", b"a\nb\nend\n"),  # whole lines: the last one gets its newline
    (b"a\r\nb\r\n", 1, "x\ny", b"a\r\nx\r\ny\r\nb\r\n"),
    (b"", 0, "first", b"first\n"),
    (b"a\n", 1, "", b"a\n"),
    (b"a\n", 0, "\n", b"\na\n"),
])
def test_insert(before, line, text, after):
    assert edit(before, ins(line, text)) == after


def test_insert_past_the_end_is_refused():
    with pytest.raises(ApplyError) as e:
        edit(b"a\nb\n", ins(3, "x"))
    assert "insert_line 3 is past the end of the file (2 lines)" in str(e.value)


# ------------------------------------------------------------ planning, in order

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


def test_sequential_tool_edits_see_each_others_results():
    ops = [ReplaceText("f.txt", "a", "b", SRC), ReplaceText("f.txt", "b\n", "c\n", SRC),
           InsertText("f.txt", 1, "d", SRC)]
    plan = make_plan(ops, DictBase({"f.txt": b"a\n"}), lambda p: p)
    assert plan.final["f.txt"].data == b"c\nd\n"


def test_str_replace_after_a_create_edits_the_new_file():
    ops = [NewFile("n.txt", "one\ntwo\n", SRC), ReplaceText("n.txt", "two", "2", SRC)]
    plan = make_plan(ops, DictBase({}), lambda p: p)
    assert plan.final["n.txt"].data == b"one\n2\n"


def test_str_replace_on_a_missing_file_is_refused_with_a_hint():
    with pytest.raises(ApplyError) as e:
        make_plan([ReplaceText("nope.txt", "a", "b", SRC)], DictBase({}), lambda p: p)
    assert "no such file" in str(e.value) and "create command" in str(e.value)


def test_extract_answer_is_a_plain_function():
    a = extract_answer({"output": [{"type": "custom_tool_call", "call_id": "c", "name": "apply_patch",
                                    "input": "*** Begin Patch\n*** End Patch"}]})
    assert a.shape == "OpenAI Responses" and a.texts == [] and a.calls[0].name == "apply_patch"


def test_a_shell_apply_patch_followed_by_another_command_is_not_read_as_the_patch():
    # the command after the heredoc (`sed -i`) changes what the patch made: refused, as
    # any script that is more than the heredoc
    from git_aiapply.answer.toolcalls import _heredoc_patch

    patch = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-hi\n+bye\n"
             "*** End Patch\nEOF\n")
    assert _heredoc_patch(patch) == patch
    assert _heredoc_patch(patch + "\n") == patch + "\n"
    assert _heredoc_patch(patch + "sed -i s/bye/ciao/ a.txt\n") is None


# the known ones (an MCP filesystem's move_file, Zed's move_path, Cursor's delete_file)
# apply: tests/answer/test_shapes.py
@pytest.mark.parametrize("name, args", [
    ("mcp__filesystem__relocate_file", {"source": "a.py", "destination": "b.py"}),
    ("shift_path", {"source_path": "a.py", "destination_path": "b.py"}),
    ("rename", {"old_path": "a.py", "new_path": "b.py"}),
    ("remove_file", {"target_file": "a.py"}),
    ("mcp__fs__unlink", {"path": "a.py"}),
])
def test_an_unknown_tool_that_moves_or_deletes_a_file_refuses_the_response(name, args):
    # nothing dropped silently: the model believes the file moved (BEHAVIOR.md §1)
    from git_aiapply.answer.toolcalls import ToolCall, call_ops
    from git_aiapply.errors import ApplyError

    with pytest.raises(ApplyError) as e:
        call_ops(ToolCall(1, "tool_use", name, args))
    assert name in str(e.value) and "a.py" in str(e.value)
