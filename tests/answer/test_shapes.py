"""Every agent's edit tools as their models write them (answer/shapes.py, BEHAVIOR.md §1
round 4): one case per agent tool, in the JSON its agent's API carries (Anthropic
tool_use, OpenAI tool_calls with JSON-string arguments, Gemini functionCall), planned on
a small tree; the count and insert rules by property; read-only tools left out and any
other tool that names a path refused.  Plain functions; end-to-end runs are in
test_agent_tools_e2e.py."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.answer import shapes as S
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import ToolCall, call_ops, parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan


def anthropic(name, args):
    return {"type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "t1", "name": name, "input": args}]}


def openai(name, args):
    return {"model": "gpt-x", "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}]}}]}


def gemini(name, args):
    return {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Editing."}, {"functionCall": {"name": name, "args": args}}]},
        "finishReason": "STOP"}], "modelVersion": "gemini-x"}


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
A = b"def f():\n    return 1\n\n\ndef g():\n    return 1\n"


def applied(data, files):
    """The whole tree after the answer's calls."""
    ops = parse_with_tools(read_response(json.dumps(data).encode(), "r.json")).ops
    result = make_plan(ops, DictBase(files), lambda p: normalize_path(p, worktree=WORKTREE))
    tree = dict(files)
    for p, s in result.final.items():
        if s is None:
            tree.pop(p, None)
        else:
            tree[p] = s.data
    return tree


BEFORE = {"a.py": A, "n.txt": b"n\n"}


# (agent tool, envelope, tool name as called, arguments, files after; the tree before is
# {"a.py": A}).  Each is written as that agent's model writes it.
G2 = A.replace(b"def g():\n    return 1", b"def g():\n    return 2")
BOTH = A.replace(b"return 1", b"return 2")
CASES = [
    ("Claude Code Edit", anthropic, "Edit", {"file_path": "/repo/a.py", "old_string":
     "def g():\n    return 1", "new_string": "def g():\n    return 2"}, {"a.py": G2}),
    ("Claude Code Edit replace_all", anthropic, "mcp__ide__Edit", {"file_path": "a.py",
     "old_string": "return 1", "new_string": "return 2", "replace_all": True}, {"a.py": BOTH}),
    ("Gemini CLI replace allow_multiple", gemini, "replace", {"file_path": "/repo/a.py",
     "old_string": "return 1", "new_string": "return 2", "allow_multiple": True}, {"a.py": BOTH}),
    ("Gemini CLI replace expected_replacements", gemini, "replace", {"file_path": "a.py",
     "old_string": "return 1", "new_string": "return 2", "expected_replacements": 2},
     {"a.py": BOTH}),
    ("Gemini CLI write_file", gemini, "write_file", {"file_path": "/repo/n.txt", "content": "n\n"},
     {"a.py": A, "n.txt": b"n\n"}),
    ("Cline replace_in_file", anthropic, "replace_in_file", {"path": "a.py", "diff":
     "------- SEARCH\ndef g():\n    return 1\n=======\ndef g():\n    return 2\n+++++++ REPLACE\n"},
     {"a.py": G2}),
    ("Cline write_to_file", openai, "write_to_file", {"path": "n.txt", "content": "n\n"},
     {"a.py": A, "n.txt": b"n\n"}),
    ("Cline SDK editor insert before", anthropic, "editor", {"path": "/repo/a.py",
     "new_text": "import os", "insert_line": 1}, {"a.py": b"import os\n" + A}),
    ("Cline SDK editor replace", anthropic, "editor", {"path": "a.py", "old_text":
     "def g():\n    return 1", "new_text": "def g():\n    return 2"}, {"a.py": G2}),
    ("Roo apply_diff start_line breaks the tie", openai, "apply_diff", {"path": "a.py", "diff":
     "<<<<<<< SEARCH\n:start_line:6\n-------\n    return 1\n=======\n    return 2\n"
     ">>>>>>> REPLACE"}, {"a.py": G2}),
    ("Roo multi-file apply_diff, start_line breaks the tie", openai, "apply_diff", {"files": [
        {"path": "a.py", "diffs": [{"content": "<<<<<<< SEARCH\n    return 1\n=======\n"
                                               "    return 2\n>>>>>>> REPLACE", "start_line": 6}]},
        {"path": "/repo/n.txt", "diffs": [{"content": "<<<<<<< SEARCH\nn\n=======\nm\n"
                                                      ">>>>>>> REPLACE", "start_line": 1}]}]},
     {"a.py": G2, "n.txt": b"m\n"}),
    ("Roo insert_content 0 = the end", openai, "insert_content", {"path": "a.py", "line": "0",
     "content": "x = 3\n"}, {"a.py": A + b"x = 3\n"}),
    ("Roo insert_content before line 1", openai, "insert_content", {"path": "a.py", "line": 1,
     "content": "import os\n"}, {"a.py": b"import os\n" + A}),
    ("Roo search_and_replace every one", anthropic, "search_and_replace", {"path": "a.py",
     "search": "return 1", "replace": "return 2"}, {"a.py": BOTH}),
    ("Roo edit", openai, "edit", {"file_path": "a.py", "old_string": "def g():\n    return 1",
     "new_string": "def g():\n    return 2"}, {"a.py": G2}),
    ("Roo edit_file expected_replacements", openai, "edit_file", {"file_path": "a.py",
     "old_string": "return 1", "new_string": "return 2", "expected_replacements": 2},
     {"a.py": BOTH}),
    ("OpenCode edit replaceAll", openai, "edit", {"filePath": "/repo/a.py", "oldString":
     "return 1", "newString": "return 2", "replaceAll": True}, {"a.py": BOTH}),
    ("OpenCode multiedit", openai, "multiedit", {"filePath": "a.py", "edits": [
        {"filePath": "a.py", "oldString": "def g():\n    return 1", "newString": "def g():\n    return 5"},
        {"filePath": "a.py", "oldString": "return 5", "newString": "return 2"}]}, {"a.py": G2}),
    ("OpenCode write", openai, "write", {"filePath": "/repo/n.txt", "content": "n\n"},
     {"a.py": A, "n.txt": b"n\n"}),
    ("OpenCode patch", openai, "patch", {"patchText": "*** Begin Patch\n*** Add File: n.txt\n+n\n"
     "*** End Patch"}, {"a.py": A, "n.txt": b"n\n"}),
    ("OpenCode apply_patch patchText", openai, "apply_patch", {"patchText": "*** Begin Patch\n"
     "*** Add File: n.txt\n+n\n*** End Patch"}, {"a.py": A, "n.txt": b"n\n"}),
    ("Copilot replace_string_in_file", openai, "replace_string_in_file", {"explanation": "x",
     "filePath": "/repo/a.py", "oldString": "def g():\n    return 1",
     "newString": "def g():\n    return 2"}, {"a.py": G2}),
    ("Copilot multi_replace_string_in_file", openai, "multi_replace_string_in_file",
     {"explanation": "x", "replacements": [
         {"filePath": "/repo/a.py", "oldString": "def g():\n    return 1",
          "newString": "def g():\n    return 2"},
         {"filePath": "/repo/n.txt", "oldString": "n", "newString": "m"}]},
     {"a.py": G2, "n.txt": b"m\n"}),
    ("Copilot create_file", openai, "create_file", {"filePath": "/repo/c.txt", "content": "c\n"},
     {"a.py": A, "n.txt": b"n\n", "c.txt": b"c\n"}),
    ("Windsurf replace_file_content", anthropic, "replace_file_content", {
        "TargetFile": "/repo/a.py", "Instruction": "x", "ReplacementChunks": [
            {"TargetContent": "return 1", "ReplacementContent": "return 2",
             "AllowMultiple": True}]}, {"a.py": BOTH}),
    ("Windsurf write_to_file", anthropic, "write_to_file", {"TargetFile": "/repo/n.txt",
     "CodeContent": "w\n", "EmptyFile": False}, {"a.py": A, "n.txt": b"w\n"}),
    ("Cursor search_replace", openai, "search_replace", {"file_path": "a.py", "old_string":
     "def g():\n    return 1", "new_string": "def g():\n    return 2"}, {"a.py": G2}),
    ("Cursor delete_file", openai, "delete_file", {"target_file": "n.txt"}, {"a.py": A}),
    ("Amp edit_file", anthropic, "edit_file", {"path": "/repo/a.py", "old_str": "return 1",
     "new_str": "return 2", "replace_all": True}, {"a.py": BOTH}),
    ("Amp create_file", anthropic, "create_file", {"path": "/repo/c.txt", "content": "c\n"},
     {"a.py": A, "n.txt": b"n\n", "c.txt": b"c\n"}),
    ("Goose text_editor str_replace", openai, "developer__text_editor", {"command":
     "str_replace", "path": "/repo/a.py", "old_str": "def g():\n    return 1",
     "new_str": "def g():\n    return 2"}, {"a.py": G2}),
    ("Goose text_editor insert -1 = the end", openai, "developer__text_editor", {"command":
     "insert", "path": "/repo/a.py", "insert_line": -1, "new_str": "x = 3"},
     {"a.py": A + b"x = 3\n"}),
    ("Goose text_editor write", openai, "developer__text_editor", {"command": "write",
     "path": "/repo/n.txt", "file_text": "g\n"}, {"a.py": A, "n.txt": b"g\n"}),
    ("Goose text_editor diff", openai, "developer__text_editor", {"command": "diff",
     "path": "/repo/a.py", "diff": "--- a/a.py\n+++ b/a.py\n@@ -5,2 +5,2 @@\n def g():\n"
     "-    return 1\n+    return 2\n"}, {"a.py": G2}),
    ("Continue single_find_and_replace", openai, "single_find_and_replace", {"filepath":
     "a.py", "old_string": "return 1", "new_string": "return 2", "replace_all": True},
     {"a.py": BOTH}),
    ("Continue multi_edit", openai, "multi_edit", {"filepath": "a.py", "edits": [
        {"old_string": "def f():\n    return 1", "new_string": "def f():\n    return 2"},
        {"old_string": "def g():\n    return 1", "new_string": "def g():\n    return 2"}]},
     {"a.py": BOTH}),
    ("Continue create_new_file", openai, "create_new_file", {"filepath": "c.txt",
     "contents": "c\n"}, {"a.py": A, "n.txt": b"n\n", "c.txt": b"c\n"}),
    ("Zed streaming_edit_file edit", anthropic, "streaming_edit_file", {"display_description":
     "x", "path": "a.py", "mode": "edit", "edits": [{"old_text": "def g():\n    return 1",
                                                    "new_text": "def g():\n    return 2"}]},
     {"a.py": G2}),
    ("Zed move_path", anthropic, "move_path", {"source_path": "n.txt",
     "destination_path": "m.txt"}, {"a.py": A, "m.txt": b"n\n"}),
    ("MCP filesystem move_file", anthropic, "mcp__filesystem__move_file", {"source":
     "/repo/n.txt", "destination": "/repo/m.txt"}, {"a.py": A, "m.txt": b"n\n"}),
    ("MCP filesystem edit_file", anthropic, "mcp__filesystem__edit_file", {"path": "/repo/a.py",
     "edits": [{"oldText": "def g():\n    return 1", "newText": "def g():\n    return 2"}]},
     {"a.py": G2}),
    ("Augment str-replace-editor numbered, line hint breaks the tie", anthropic,
     "str-replace-editor", {"command": "str_replace", "path": "a.py", "old_str_1": "return 1",
                            "new_str_1": "return 2", "old_str_start_line_number_1": 6,
                            "old_str_end_line_number_1": 6}, {"a.py": G2}),
    ("Augment str-replace-editor insert after", anthropic, "str-replace-editor", {
        "command": "insert", "path": "a.py", "insert_line_1": 0, "new_str_1": "import os"},
     {"a.py": b"import os\n" + A}),
    ("Augment save-file", anthropic, "save-file", {"path": "n.txt", "file_content": "s\n"},
     {"a.py": A, "n.txt": b"s\n"}),
    ("Augment remove-files", anthropic, "remove-files", {"file_paths": ["n.txt"]}, {"a.py": A}),
]


@pytest.mark.parametrize("what, envelope, name, args, after", CASES, ids=[c[0] for c in CASES])
def test_each_agent_tool_applies_as_its_agent_means(what, envelope, name, args, after):
    want = dict(BEFORE)
    want.update(after)
    if name.endswith(("delete_file", "remove-files", "move_path", "move_file")):
        del want["n.txt"]
    assert applied(envelope(name, args), BEFORE) == want


# every count rule, by property: an old text found k times applies when the rule allows k
@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 3), flag=st.sampled_from([None, False, True]),
       shape=st.sampled_from([s for s in S.SHAPES if s.kind == S.REPLACE and not s.edits
                              and not s.numbered and not s.when and not s.per_edit_path]))
def test_count_rules(k, flag, shape):
    args = {shape.path[0]: "f.txt", shape.old: "ab", shape.new: "XY"}
    for key in shape.requires:
        args.setdefault(key, None)
    if shape.every and flag is not None:
        args[shape.every] = flag
    if shape.expected and flag:
        args[shape.expected] = max(k, 1)
    if any(args.get(r) is None for r in shape.requires):
        args[shape.every] = bool(flag)
    text = ("ab\n" * k + "z\n").encode()
    data = anthropic(shape.names[0], args)
    allowed = (k >= 1 if shape.all_always or (shape.every and flag) else
               k == max(k, 1) if shape.expected and flag else k == 1)
    try:
        out = applied(data, {"f.txt": text})
    except ApplyError:
        assert not allowed
        return
    assert allowed and out["f.txt"] == text.replace(b"ab", b"XY")


@pytest.mark.parametrize("name, args, fragment", [
    ("Edit", {"file_path": "a.py", "old_string": "return 1", "new_string": "return 2"},
     "occurs 2 times"),
    ("replace_string_in_file", {"filePath": "a.py", "oldString": "return 1",
                                "newString": "return 2"}, "occurs 2 times"),
    ("apply_diff", {"path": "a.py", "diff": "<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n"
                    ">>>>>>> REPLACE"}, "a.py"),
    ("replace_in_file", {"path": "a.py", "diff": "------- SEARCH\nx\n=======\ny\n"}, "no REPLACE"),
    ("replace_in_file", {"path": "a.py", "diff": "------- SEARCH\nx\n=======\ny\n=======\nz\n"
                         "+++++++ REPLACE"}, "2 ======= lines"),
    ("insert_content", {"path": "a.py", "line": -3, "content": "x"}, "'line' must be"),
    ("apply_diff", {"files": [{"path": "a.py", "diffs": []}]}, "no 'diffs' list"),
    ("apply_diff", {"files": [{"path": "a.py", "diffs": [{"content": "<<<<<<< SEARCH\n"
                    "    return 1\n=======\n    return 2\n>>>>>>> REPLACE"}]}]}, "occur 2 times"),
    ("apply_diff", {"files": [{"diffs": [{"content": "x", "start_line": 1}]}]}, "without a path"),
    ("developer__text_editor", {"command": "undo_edit", "path": "a.py"}, "undo_edit"),
    ("NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "x"}, "NotebookEdit"),
    ("generate_image", {"prompt": "a cat", "path": "cat.png"}, "generate_image"),
    ("format_file", {"path": "a.py"}, "format_file"),
])
def test_refusals_name_the_tool_and_change_nothing(name, args, fragment):
    with pytest.raises(ApplyError) as e:
        applied(openai(name, args), {"a.py": A})
    assert fragment in str(e.value)


@pytest.mark.parametrize("name, args", [
    ("Read", {"file_path": "/repo/a.py"}), ("Grep", {"pattern": "x", "path": "src"}),
    ("read_file", {"path": "a.py"}), ("list_files", {"path": "."}),
    ("view_file", {"AbsolutePath": "/repo/a.py"}), ("developer__text_editor",
                                                     {"command": "view", "path": "a.py"}),
    ("read", {"filePath": "a.py"}), ("Task", {"prompt": "apply this diff: --- a/x\n+++ b/x\n"}),
    ("run_tests", {"path": "tests/"}), ("mcp__fs__read_text_file", {"path": "a.py"}),
    ("mcp__filesystem__edit_file", {"path": "a.py", "dryRun": True,
                                    "edits": [{"oldText": "x", "newText": "y"}]}),
])
def test_read_only_tools_are_left_out(name, args):
    assert call_ops(ToolCall(1, "tool_use", name, args)) == []


def test_base_names_strip_harness_prefixes():
    assert S.base_name("developer__text_editor") == "text_editor"
    assert S.base_name("mcp__my_server__Edit") == "Edit"
    assert S.base_name("functions.apply_patch") == "apply_patch"
    # one table: Cursor's lazy edit_file, Amp's old/new one, by their arguments
    assert S.shape_of("mcp__morph__edit_file", {"path": "a", "code_edit": "x"}).kind == S.LAZY
    assert S.shape_of("edit_file", {"path": "a", "old_str": "x", "new_str": "y"}).agent == "Amp"


def test_every_shape_names_its_keys():
    for s in S.SHAPES:
        assert s.names and s.kind
        if s.kind == S.REPLACE:
            assert s.old and s.new and s.path
        if s.kind in (S.WRITE, S.BLOCKS, S.PATCH, S.UNIFIED, S.LAZY):
            assert s.content
        if s.kind == S.INSERT:
            assert s.line and s.new and s.insert
        assert not (s.every and s.expected)


def test_gemini_generate_content_cut_off_is_refused():
    data = gemini("write_file", {"file_path": "a", "content": "x"})
    data["candidates"][0]["finishReason"] = "MAX_TOKENS"
    with pytest.raises(ApplyError) as e:
        read_response(json.dumps(data).encode(), "r.json")
    assert "MAX_TOKENS" in str(e.value)


def test_gemini_conversation_contents():
    data = {"contents": [{"role": "user", "parts": [{"text": "fix"}]},
                         {"role": "model", "parts": [{"functionCall": {"name": "replace", "args": {
                             "file_path": "a.py", "old_string": "def g():\n    return 1",
                             "new_string": "def g():\n    return 2"}}}]}]}
    assert applied(data, {"a.py": A}) == {"a.py": G2}


# Zed writes every path from the project folder's name ('proj/src/a.rs'): dropped where
# the repository says so (agent_tools.project_path), refused where both are meant
def zed_applied(files, path, name="streaming_edit_file"):
    from git_aiapply.paths import TrackedKinds, known_paths

    args = {"display_description": "x", "path": path, "mode": "edit",
            "edits": [{"old_text": "n", "new_text": "m"}]}
    if name == "move_path":
        args = {"source_path": path, "destination_path": "proj/m.txt"}
    with known_paths(TrackedKinds(lambda: list(files)), "proj"):
        return applied(anthropic(name, args), files)


@pytest.mark.parametrize("files, path, after", [
    ({"n.txt": b"n\n"}, "proj/n.txt", {"n.txt": b"m\n"}),  # the folder's name dropped
    ({"proj/n.txt": b"n\n"}, "proj/n.txt", {"proj/n.txt": b"m\n"}),  # a folder of its name
    ({"proj/n.txt": b"n\n", "n.txt": b"n\n"}, "proj/proj/n.txt",
     {"proj/n.txt": b"m\n", "n.txt": b"n\n"}),
    ({"n.txt": b"n\n"}, "n.txt", {"n.txt": b"m\n"}),  # written without it
])
def test_zed_project_folder_prefix(files, path, after):
    assert zed_applied(files, path) == after


def test_zed_move_path_drops_the_prefix_of_both():
    assert zed_applied({"n.txt": b"n\n"}, "proj/n.txt", "move_path") == {"m.txt": b"n\n"}


@pytest.mark.parametrize("files, path, fragment", [
    ({"proj/n.txt": b"n\n", "n.txt": b"n\n"}, "proj/n.txt", "both name tracked files"),
    ({"proj/a.txt": b"n\n"}, "proj/n.txt", "has a folder proj/ too"),
])
def test_zed_ambiguous_project_prefix_refused(files, path, fragment):
    with pytest.raises(ApplyError) as e:
        zed_applied(files, path)
    assert fragment in str(e.value) and "streaming_edit_file" in str(e.value)


def test_swe_agent_edit_tool_call_changes_the_file_open_named():
    """SWE-agent with function calling: open {path}, then edit {start_line, end_line,
    replacement_text} of that file, as it is then; an edit before any open is refused
    (it was dropped)."""
    def calls(*pairs):
        return {"model": "gpt-x", "choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{k}", "type": "function", "function": {
                    "name": name, "arguments": json.dumps(args)}}
                for k, (name, args) in enumerate(pairs)]}}]}

    edit = ("edit", {"start_line": 6, "end_line": 6, "replacement_text": "    return 2"})
    assert applied(calls(("open", {"path": "/repo/a.py"}), edit), {"a.py": A}) == {"a.py": G2}
    delete = ("edit", {"start_line": 1, "end_line": 2, "replacement_text": ""})
    edit_after = ("edit", {"start_line": 4, "end_line": 4, "replacement_text": "    return 2"})
    assert applied(calls(("open", {"path": "a.py", "line_number": 5}), delete, edit_after),
                   {"a.py": A}) == {"a.py": b"\n\ndef g():\n    return 2\n"}
    with pytest.raises(ApplyError) as e:
        applied(calls(edit), {"a.py": A})
    assert "no file is open" in str(e.value)
