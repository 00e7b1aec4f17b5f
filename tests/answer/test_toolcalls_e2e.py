"""Tool-call edits through the real command (BEHAVIOR.md §1): --json, re-applying,
standard input, several choices with and without --branch, and cut-off answers that
would otherwise land half a change."""
from __future__ import annotations

import json

from conftest import GitRepo


def apply_patch_call(path: str, diff: str, kind: str = "update_file", n: int = 1) -> dict:
    return {"type": "apply_patch_call", "id": f"apc_{n}", "call_id": f"call_{n}",
            "status": "completed", "operation": {"type": kind, "path": path, "diff": diff}}


def responses(*items, status="completed") -> str:
    return json.dumps({"object": "response", "status": status, "model": "gpt-test",
                       "output": list(items)})


def setup(repo: GitRepo) -> str:
    repo.write("a.txt", "one\ntwo\n")
    repo.write("lib/util.py", "def f():\n    return 1\n")
    return repo.commit_all("base")


def test_json_names_the_input_kind_and_files(repo: GitRepo):
    base = setup(repo)
    resp = responses(
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Bump f and number two.\n\n```diff\n"
                                                     "--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+TWO\n```"}]},
        apply_patch_call("lib/util.py", "@@ def f():\n-    return 1\n+    return 2\n"))
    r = repo.run("--json", response=resp)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "applied" and out["formats"] == ["unified-diff", "tool-call"]
    assert sorted(f["path"] for f in out["files"]) == ["a.txt", "lib/util.py"]
    assert repo.git("rev-parse", "HEAD^").strip() == base
    assert repo.read("lib/util.py") == b"def f():\n    return 2\n"
    msg = repo.git("log", "-1", "--format=%B")
    assert msg.startswith("Bump f and number two") and "AI-Format: unified-diff, tool-call" in msg
    assert repo.git("status", "--porcelain") == ""


def test_same_tool_only_answer_twice_is_already_applied_and_another_is_not(repo: GitRepo):
    setup(repo)
    first = responses(apply_patch_call("a.txt", "@@\n-one\n+ONE\n"))
    r = repo.run(response=first)
    assert r.returncode == 0, r.err
    head = repo.head()
    r = repo.run("--json", response=first)
    assert r.returncode == 0 and json.loads(r.out)["status"] == "already-applied"
    assert repo.head() == head
    # a different tool-only answer (same empty text) is not mistaken for the first
    second = responses(apply_patch_call("a.txt", "@@\n-two\n+TWO\n"))
    r = repo.run(response=second)
    assert r.returncode == 0, r.err
    assert repo.head() != head and repo.read("a.txt") == b"ONE\nTWO\n"


def test_tool_calls_from_standard_input(repo: GitRepo):
    setup(repo)
    resp = json.dumps({"type": "message", "role": "assistant", "stop_reason": "tool_use",
                       "content": [{"type": "tool_use", "id": "t", "name": "str_replace_based_edit_tool",
                                    "input": {"command": "create", "path": "new/n.txt",
                                              "file_text": "no final newline"}}]})
    r = repo.run("-", stdin=resp.encode())
    assert r.returncode == 0, r.err
    assert repo.read("new/n.txt") == b"no final newline"  # file_text exactly as given
    assert repo.git("log", "-1", "--format=%s").strip() == "Add new/n.txt"


def test_cut_off_answer_lands_nothing_even_when_its_calls_are_complete(repo: GitRepo):
    setup(repo)
    before = repo.snapshot()
    resp = responses(apply_patch_call("lib/util.py", "*** Move to: lib/helpers.py\n@@\n def f():\n"),
                     status="incomplete")
    r = repo.run("--json", response=resp)
    assert r.returncode == 1
    out = json.loads(r.out)
    assert out["status"] == "refused" and out["error_kind"] == "truncated"
    assert out["fault"] == "response"  # ask the model again: nothing is wrong with the repository
    assert "cut off" in out["error_text"]
    assert repo.snapshot() == before


def test_a_tool_call_that_does_not_fit_refuses_the_text_blocks_too(repo: GitRepo):
    setup(repo)
    before = repo.snapshot()
    resp = json.dumps({"type": "message", "role": "assistant", "stop_reason": "end_turn", "content": [
        {"type": "text", "text": "```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+ONE\n```"},
        {"type": "tool_use", "id": "t", "name": "str_replace_based_edit_tool",
         "input": {"command": "insert", "path": "a.txt", "insert_line": 7, "insert_text": "x"}}]})
    r = repo.run(response=resp)
    assert r.returncode == 1 and "past the end of the file (2 lines)" in r.err
    assert repo.snapshot() == before


def two_choices() -> str:
    def choice(i: int, word: str) -> dict:
        return {"index": i, "finish_reason": "stop", "message": {
            "role": "assistant", "content": f"Make it {word}.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n"
                                            f"@@\n-one\n+{word}\n```"}}
    return json.dumps({"object": "chat.completion", "model": "gpt-test",
                       "choices": [choice(0, "uno"), choice(1, "eins")]})


def test_several_choices_without_branch_are_refused(repo: GitRepo):
    setup(repo)
    before = repo.snapshot()
    r = repo.run(response=two_choices())
    assert r.returncode == 1 and "2 choices" in r.err and "--branch" in r.err
    assert repo.snapshot() == before


def attempt_results(out: str) -> list[dict]:
    """The per-attempt objects of an attempt run's --json: one document with "results",
    or JSON Lines with one object per attempt."""
    try:
        return json.loads(out)["results"]
    except ValueError:
        objects = [json.loads(line) for line in out.splitlines() if line.strip()]
        return [o for o in objects if "input" in o and "status" in o]


def test_several_choices_with_branch_are_one_attempt_each(repo: GitRepo):
    setup(repo)
    before = repo.snapshot()
    r = repo.run("--branch", "try/{n}", "--json", response=two_choices())
    assert r.returncode == 0, r.out + r.err
    results = attempt_results(r.out)
    assert [x["status"] for x in results] == ["applied", "applied"]
    assert [x["input"].rsplit("#", 1)[1] for x in results] == ["choice-1", "choice-2"]
    assert repo.git("show", "try/1:a.txt") == "uno\ntwo\n"
    assert repo.git("show", "try/2:a.txt") == "eins\ntwo\n"
    after = repo.snapshot()  # HEAD, the index and the worktree untouched: only refs moved
    assert {k: v for k, v in after.items() if k != "refs"} == \
        {k: v for k, v in before.items() if k != "refs"}


def test_several_choices_with_one_branch_name_is_a_usage_error(repo: GitRepo):
    setup(repo)
    r = repo.run("--branch", "try", response=two_choices())
    assert r.returncode == 2 and "{n}" in r.err
    assert repo.git("branch", "--list", "try") == ""
