"""Tool results read by structure, through the real command (BEHAVIOR.md §1): a
successful result that echoes new code holding words of failure keeps its edit; a flagged
failure drops its call and its retry applies, even when the retry reuses the failed call's
id in a later turn (kimi-k2's per-turn ids)."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo

BEFORE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
GUARD = ("    if a is None:\n"
         "        raise ValueError(\"Error: the change has not been applied\")\n")
# Claude Code's view of the edited file: it echoes the new code, failure words and all
ECHO = ("The file /repo/m.py has been updated. Here's the result of running `cat -n` on a "
        "snippet of the edited file:\n     1\tdef add(a, b):\n     2\t    if a is None:\n"
        "     3\t        raise ValueError(\"Error: the change has not been applied\")\n")
NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"


def _edit(old: str, new: str) -> dict:
    return {"file_path": "m.py", "old_string": old, "new_string": new}


FIRST = [("functions.Edit:0", _edit("def add(a, b):\n", "def add(a, b):\n" + GUARD)),
         ("functions.Edit:1", _edit("    return a - b  \n", "    return a - b  # sub\n"))]
RETRY = [("functions.Edit:0", _edit("    return a - b\n", "    return a - b  # sub\n"))]


def _anthropic(calls, results) -> list:
    return [{"role": "assistant", "content": [{"type": "text", "text": "Guard add, note sub."}] + [
                {"type": "tool_use", "id": i, "name": "Edit", "input": a} for i, a in calls]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": t,
                 **({"is_error": True} if t == NOT_FOUND else {})} for i, t in results]}]


def _chat(calls, results) -> list:
    return [{"role": "assistant", "content": "Guard add, note sub.", "tool_calls": [
                {"id": i, "type": "function",
                 "function": {"name": "Edit", "arguments": json.dumps(a)}} for i, a in calls]},
            *({"role": "tool", "tool_call_id": i, "content": t} for i, t in results)]


@pytest.mark.parametrize("turn", [_anthropic, _chat], ids=["anthropic", "chat"])
def test_echoed_failure_words_keep_the_edit_and_a_retry_with_a_reused_id_lands(repo: GitRepo, turn):
    repo.write("m.py", BEFORE)
    base = repo.commit_all("base")
    conversation = [{"role": "user", "content": "Guard add against None; annotate sub."},
                    *turn(FIRST, [("functions.Edit:0", ECHO), ("functions.Edit:1", NOT_FOUND)]),
                    *turn(RETRY, [("functions.Edit:0", "The file /repo/m.py has been updated.")])]
    r = repo.run(response=json.dumps(conversation))
    assert r.returncode == 0, r.err
    assert repo.read("m.py").decode() == (
        "def add(a, b):\n" + GUARD + "    return a + b\n\n\ndef sub(a, b):\n"
        "    return a - b  # sub\n")
    assert repo.git("rev-parse", "HEAD^").strip() == base
    assert repo.git("status", "--porcelain") == ""
