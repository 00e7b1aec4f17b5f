"""Agent edit tools through the real command (BEHAVIOR.md §1, issue 22 item 5): Claude
Code's tools with absolute paths inside the worktree, OpenHands' str_replace_editor, and
the refusals that must change nothing (a count that does not match, a path outside the
worktree, a MultiEdit whose second edit fails)."""
from __future__ import annotations

import json

from conftest import GitRepo


def anthropic(*calls: tuple[str, dict], text: str = "Rename the helper.") -> str:
    content = [{"type": "text", "text": text}]
    content += [{"type": "tool_use", "id": f"t{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(calls, 1)]
    return json.dumps({"type": "message", "role": "assistant", "model": "claude-test",
                       "stop_reason": "tool_use", "content": content})


def setup(repo: GitRepo) -> None:
    repo.write("src/util.py", "def helper():\n    return 1\n\nhelper()\nhelper()\n")
    repo.write("README", "one\ntwo\n")
    repo.commit_all("base")


def test_claude_code_tools_with_absolute_paths(repo: GitRepo):
    setup(repo)
    root = str(repo.root)
    resp = anthropic(
        ("Edit", {"file_path": f"{root}/src/util.py", "old_string": "helper",
                  "new_string": "assist", "replace_all": True}),
        ("MultiEdit", {"file_path": f"{root}/README", "edits": [
            {"old_string": "one", "new_string": "uno"},
            {"old_string": "uno\ntwo", "new_string": "uno\ndos"}]}),
        ("Write", {"file_path": f"{root}/docs/new.md", "content": "# New\n"}))
    r = repo.run("--json", response=resp)
    assert r.returncode == 0, r.err
    assert json.loads(r.out)["formats"] == ["tool-call"]
    assert repo.read("src/util.py") == b"def assist():\n    return 1\n\nassist()\nassist()\n"
    assert repo.read("README") == b"uno\ndos\n"
    assert repo.read("docs/new.md") == b"# New\n"
    assert repo.message().startswith("Rename the helper")
    assert repo.git("status", "--porcelain") == ""


def test_openhands_str_replace_editor_in_chat_completions(repo: GitRepo):
    setup(repo)
    args = {"command": "str_replace", "path": f"{repo.root}/README", "old_str": "two\n",
            "new_str": "2\n"}
    resp = json.dumps({"model": "gpt-test", "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Number two.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {
                "name": "str_replace_editor", "arguments": json.dumps(args)}}]}}]})
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.read("README") == b"one\n2\n"


def refused(repo: GitRepo, resp: str) -> str:
    before = repo.snapshot()
    r = repo.run(response=resp)
    assert r.returncode == 1, (r.out, r.err)
    assert repo.snapshot() == before
    return r.err


def test_count_that_does_not_match_is_refused(repo: GitRepo):
    setup(repo)
    err = refused(repo, anthropic(("replace", {
        "file_path": "src/util.py", "old_string": "helper()", "new_string": "assist()",
        "expected_replacements": 2})))
    assert "old_string occurs 3 times in src/util.py" in err
    assert "expected_replacements is 2" in err


def test_edit_without_replace_all_on_several_occurrences_is_refused(repo: GitRepo):
    setup(repo)
    err = refused(repo, anthropic(("Edit", {
        "file_path": "src/util.py", "old_string": "helper()", "new_string": "assist()"})))
    assert "Edit needs exactly one occurrence" in err and "replace_all" in err


def test_path_outside_the_worktree_is_refused(repo: GitRepo):
    setup(repo)
    outside = repo.root.parent / "elsewhere.txt"
    err = refused(repo, anthropic(("Write", {"file_path": str(outside), "content": "x\n"})))
    assert "outside the worktree" in err
    assert not outside.exists()


def test_multi_edit_whose_second_edit_fails_changes_nothing(repo: GitRepo):
    setup(repo)
    err = refused(repo, anthropic(
        ("Write", {"file_path": "ok.txt", "content": "fine\n"}),
        ("MultiEdit", {"file_path": "README", "edits": [
            {"old_string": "one", "new_string": "uno"},
            {"old_string": "three", "new_string": "tres"}]})))
    assert "MultiEdit README, edit 2" in err and "does not occur in README" in err


def test_zed_paths_begin_with_the_project_folder(repo: GitRepo):
    """Zed names every path from the worktree root folder's name; the command drops it
    (the repository's folder name is the project's)."""
    setup(repo)
    folder = repo.root.name
    resp = anthropic(
        ("streaming_edit_file", {"display_description": "Rename", "path":
                                 f"{folder}/src/util.py", "mode": "edit", "edits": [
                                     {"old_text": "def helper():", "new_text": "def assist():"}]}),
        ("streaming_edit_file", {"display_description": "New", "path": f"{folder}/docs/z.md",
                                 "mode": "write", "content": "# Z\n"}))
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.read("src/util.py").startswith(b"def assist():")
    assert repo.read("docs/z.md") == b"# Z\n"
    assert repo.git("status", "--porcelain") == ""
