"""A response that moves a file away and back, or deletes it and makes it again, is
reported as what it did from the first state to the last (an update), never as a rename
of a file onto itself: the summary, --json's files, --diff and the commit message agree
with git (issue 33 item 8; plan_moves.net_moves)."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.doors.api import Session

AWAY_AND_BACK = """*** Begin Patch
*** Update File: a.txt
*** Move to: c.txt
@@
 one
-two
+TWO
 three
*** Update File: c.txt
*** Move to: a.txt
@@
 one
 TWO
-three
+THREE
*** End Patch
"""
DELETED_AND_MADE = ('<FILE_CHANGES>\n<FILE_DELETE file_path="a.txt" />\n'
                    '<FILE_NEW file_path="a.txt">\none\nTWO\nTHREE\n</FILE_NEW>\n</FILE_CHANGES>\n')


@pytest.mark.parametrize("response", [AWAY_AND_BACK, DELETED_AND_MADE])
def test_the_report_is_the_net_update(repo: GitRepo, monkeypatch, response):
    repo.write("a.txt", "one\ntwo\nthree\n")
    repo.commit_all("base")
    monkeypatch.chdir(repo.root)
    checked = Session(".").apply_json(response, diff=True)
    assert checked["files"] == [{"path": "a.txt", "action": "update", "old_path": None,
                                 "added": 2, "removed": 2}]
    assert checked["diff"].startswith("diff --git a/a.txt b/a.txt\nindex ")
    assert "rename" not in checked["diff"] and "new file" not in checked["diff"]
    r = repo.run(response=response)
    assert r.returncode == 0, r.err
    assert r.out.splitlines()[-1] == " 1 file changed, 2 insertions(+), 2 deletions(-)"
    assert "rename" not in r.out and "mode" not in r.out
    assert repo.git("log", "-1", "--format=%s") == "Update a.txt\n"
    assert repo.git("show", "--format=", "--name-status", "-M", "HEAD") == "M\ta.txt\n"
    assert repo.read("a.txt") == b"one\nTWO\nTHREE\n"
