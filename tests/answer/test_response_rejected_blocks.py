"""A rejected tool call drops the prose that announced it, not the change blocks the same
text holds for other files (BEHAVIOR.md §1, §8; DECISIONS.md "Rejected tool calls"): a
block for a file the rejected call edits may show the rejected change and goes with it;
a block for any other file is a change the user asked for and stays."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo
from git_aiapply.answer.response import read_response

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file).")

README_BLOCK = ("README.md\n```markdown\n<<<<<<< SEARCH\nListens on 0.0.0.0:8080.\n=======\n"
                "Listens on 127.0.0.1:8080.\n>>>>>>> REPLACE\n```\n")
CONFIG_BLOCK = ("config.yaml\n```yaml\n<<<<<<< SEARCH\n  port: 8080\n=======\n"
                "  port: 1234\n>>>>>>> REPLACE\n```\n")


def _edit(call_id: str, path: str, old: str, new: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "Edit",
            "input": {"file_path": path, "old_string": old, "new_string": new}}


def _conversation(text: str, rejected_path: str = "config.yaml") -> list:
    return [
        {"role": "user", "content": "Listen on localhost only, and fix the README."},
        {"role": "assistant", "content": [
            {"type": "text", "text": text},
            _edit("t1", rejected_path, "  port: 8080", "  port: 1234")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": REJECTED, "is_error": True}]},
        {"role": "user", "content": "Only the host."},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Only the host, then."},
            _edit("t2", "config.yaml", "  host: 0.0.0.0", "  host: 127.0.0.1")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2",
                                      "content": "updated", "is_error": False}]},
    ]


def _text(items) -> str:
    return read_response(json.dumps(items).encode(), "r.json").text


@pytest.mark.parametrize("rejected_path", ["config.yaml", "/home/me/app/config.yaml"])
def test_a_block_for_another_file_stays_and_the_announcement_goes(rejected_path):
    text = _text(_conversation("First the docs:\n\n" + README_BLOCK +
                               "\nNow the config. I'll change the port too.", rejected_path))
    assert "Listens on 127.0.0.1:8080." in text
    assert "port too" not in text
    assert "Only the host, then." in text


@pytest.mark.parametrize("order", ["readme first", "config first"])
def test_a_block_for_the_rejected_file_goes_with_the_call(order):
    blocks = [README_BLOCK, CONFIG_BLOCK] if order == "readme first" else \
        [CONFIG_BLOCK, README_BLOCK]
    text = _text(_conversation("Here:\n\n" + "\n".join(blocks) + "\nApplying it now."))
    assert "1234" not in text
    assert "Listens on 127.0.0.1:8080." in text
    assert "Applying it now" not in text


def test_prose_alone_before_a_rejected_call_is_dropped():
    text = _text(_conversation("I'll change the port too."))
    assert "port too" not in text and "Only the host, then." in text


def test_a_rejected_call_whose_file_cannot_be_told_drops_the_whole_text():
    """No path to compare: every block of the text may show the rejected change."""
    items = _conversation("Docs:\n\n" + README_BLOCK + "\nAnd the rest.")
    items[1]["content"][1] = {"type": "tool_use", "id": "t1", "name": "Edit",
                              "input": {"old_string": "a", "new_string": "b"}}
    text = _text(items)
    assert "127.0.0.1:8080" not in text


def test_redteam_g16_end_to_end(repo: GitRepo):
    repo.write("README.md", "# App\n\nListens on 0.0.0.0:8080.\n")
    repo.write("config.yaml", "server:\n  host: 0.0.0.0\n  port: 8080\n")
    repo.commit_all("init")
    items = _conversation("First the docs, so the README matches:\n\n" + README_BLOCK +
                          "\nNow the config. I'll change the port too.")
    response = repo.root.parent / "response.json"
    response.write_text(json.dumps(items))
    result = repo.run(str(response))
    assert result.returncode == 0, result.err
    assert repo.read("README.md") == b"# App\n\nListens on 127.0.0.1:8080.\n"
    assert repo.read("config.yaml") == b"server:\n  host: 127.0.0.1\n  port: 8080\n"
