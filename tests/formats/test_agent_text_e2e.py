"""Agents' text tool uses through the real command, in a real repository."""
from __future__ import annotations

from conftest import GitRepo


def test_cline_and_roo_text_tools_commit(repo: GitRepo):
    repo.write("m.py", "def a():\n    return 1\n")
    repo.commit_all("base")
    resp = ("Return ten and add a note.\n\n<replace_in_file>\n<path>m.py</path>\n<diff>\n"
            "------- SEARCH\n    return 1\n=======\n    return 10\n+++++++ REPLACE\n</diff>\n"
            "</replace_in_file>\n\n<write_to_file>\n<path>NOTE</path>\n<content>\nten\n"
            "</content>\n</write_to_file>\n")
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.read("m.py") == b"def a():\n    return 10\n"
    assert repo.read("NOTE") == b"ten\n"
    assert repo.message().startswith("Return ten and add a note")
    assert repo.git("status", "--porcelain") == ""


def test_a_zed_edit_that_does_not_match_changes_nothing(repo: GitRepo):
    repo.write("m.py", "def a():\n    return 1\n")
    repo.commit_all("base")
    before = repo.snapshot()
    resp = ("m.py\n<edits>\n<old_text line=2>\n    return 7\n</old_text>\n<new_text>\n"
            "    return 8\n</new_text>\n</edits>\n")
    r = repo.run(response=resp)
    assert r.returncode == 1, r.out
    assert "<edits> block at response line 2" in r.err
    assert repo.snapshot() == before
