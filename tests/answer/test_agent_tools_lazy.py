"""Lazy edit tools as tool calls (BEHAVIOR.md §5 "Lazy edits", issue 31 item 3): Cursor's,
Kilo's and Morph's ``edit_file``, Copilot's ``insert_edit_into_file``, Continue's
``edit_existing_file``: each a ``NewFile(lazy=True)``, merged into the tracked file, written
whole where nothing is tracked; through the parser and the planner (plain functions) and,
twice, through the real command."""
from __future__ import annotations

import json

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.ops import NewFile
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import ToolCall, call_ops, is_edit_call, parse_with_tools
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan

from conftest import GitRepo
from plan_base import DictBase

FILE = ("import os\n\n\nclass Client:\n    def __init__(self):\n        self.a = 1\n\n"
        "    def get(self, k):\n        return self.data[k]\n\n    def put(self, k, v):\n"
        "        self.data[k] = v\n")
SNIPPET = ("class Client:\n    # ... existing code ...\n\n    def get(self, k):\n"
           "        log(k)\n        return self.data[k]\n\n    # ... existing code ...\n")
MERGED = FILE.replace("    def get(self, k):\n", "    def get(self, k):\n        log(k)\n")

# (tool name, its arguments for a path and a snippet), as each agent's source defines them
TOOLS = [
    ("edit_file", lambda p, s: {"target_file": p, "instructions": "I log reads.", "code_edit": s}),
    ("mcp__morph__edit_file", lambda p, s: {"path": p, "instruction": "I log reads.",
                                            "code_edit": s}),
    ("insert_edit_into_file", lambda p, s: {"filePath": p, "code": s,
                                            "explanation": "Log reads."}),
    ("edit_existing_file", lambda p, s: {"filepath": p, "changes": s}),
]
IDS = [t[0] for t in TOOLS]


def chat(name: str, args: dict) -> bytes:
    return json.dumps({"model": "gpt-x", "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Log reads.", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}]}}]}).encode()


def planned(ops, files: dict) -> dict:
    base = DictBase({p: (0o100644, t.encode()) for p, t in files.items()})
    plan = make_plan(ops, base, lambda p: normalize_path(p, worktree="/w"))
    return {p: st.data.decode() for p, st in plan.final.items() if st is not None}


@pytest.mark.parametrize("name,args", TOOLS, ids=IDS)
def test_each_lazy_tool_is_a_lazy_new_file_merged_into_the_tracked_file(name, args):
    ops = parse_with_tools(read_response(chat(name, args("client.py", SNIPPET)), "r.json")).ops
    assert len(ops) == 1 and isinstance(ops[0], NewFile) and ops[0].lazy
    assert ops[0].path == "client.py" and ops[0].text == SNIPPET
    assert planned(ops, {"client.py": FILE}) == {"client.py": MERGED}


@pytest.mark.parametrize("name,args", TOOLS, ids=IDS)
def test_on_a_path_nothing_tracks_the_snippet_is_a_new_file(name, args):
    ops = call_ops(ToolCall(1, "function_call", name, args("new.py", "x = 1\n")))
    assert planned(ops, {"client.py": FILE}) == {"new.py": "x = 1\n"}


def test_a_snippet_sent_as_one_fenced_block_is_its_content():
    fenced = "```python\n" + SNIPPET + "```\n"
    op, = call_ops(ToolCall(1, "function_call", "edit_existing_file",
                            {"filepath": "client.py", "changes": fenced}))
    assert op.text == SNIPPET
    md = "```sh\nmake\n```\n"  # a Markdown file's own fence is its text
    op, = call_ops(ToolCall(1, "function_call", "edit_file",
                            {"target_file": "README.md", "code_edit": md}))
    assert op.text == md


def test_two_lazy_edits_of_one_file_build_on_each_other():
    first = call_ops(ToolCall(1, "function_call", "edit_file",
                              {"target_file": "client.py", "code_edit": SNIPPET}))
    second = call_ops(ToolCall(2, "function_call", "edit_file", {
        "target_file": "client.py",
        "code_edit": "    def put(self, k, v):\n        check(k)\n        self.data[k] = v\n"}))
    out = planned(first + second, {"client.py": FILE})["client.py"]
    assert out == MERGED.replace("    def put(self, k, v):\n",
                                 "    def put(self, k, v):\n        check(k)\n")


def test_a_snippet_that_cannot_be_merged_is_refused_naming_the_placeholder():
    ops = call_ops(ToolCall(1, "function_call", "edit_file", {
        "target_file": "client.py", "code_edit": "def unrelated():\n    # ... existing code ...\n"}))
    with pytest.raises(ApplyError) as e:
        planned(ops, {"client.py": FILE})
    assert "client.py" in str(e.value) and "existing code" in str(e.value)


def test_a_lazy_tool_call_without_its_snippet_is_refused_never_dropped():
    call = ToolCall(1, "function_call", "edit_file", {"target_file": "a.py", "instructions": "x"})
    assert is_edit_call(call)
    with pytest.raises(ApplyError, match="code_edit"):
        call_ops(call)


# -- through the real command ----------------------------------------------------------


def anthropic(name: str, args: dict) -> str:
    return json.dumps({"type": "message", "role": "assistant", "model": "claude-test",
                       "stop_reason": "tool_use", "content": [
                           {"type": "text", "text": "Log reads."},
                           {"type": "tool_use", "id": "t1", "name": name, "input": args}]})


def test_cursor_edit_file_merged_by_the_command(repo: GitRepo):
    repo.write("src/client.py", FILE)
    repo.commit_all("base")
    resp = anthropic("edit_file", {"target_file": f"{repo.root}/src/client.py",
                                   "instructions": "I log reads.", "code_edit": SNIPPET})
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:src/client.py") == MERGED
    assert repo.git("status", "--porcelain") == ""


def test_copilot_insert_edit_that_cannot_be_merged_changes_nothing(repo: GitRepo):
    repo.write("src/client.py", FILE)
    repo.commit_all("base")
    head, before = repo.head(), repo.snapshot()
    resp = anthropic("insert_edit_into_file", {
        "filePath": "src/client.py", "explanation": "x",
        "code": "def unrelated():\n    # ... existing code ...\n    more()\n"})
    r = repo.run(response=resp)
    assert r.returncode == 1 and "existing code" in r.err
    assert repo.head() == head and repo.snapshot() == before
