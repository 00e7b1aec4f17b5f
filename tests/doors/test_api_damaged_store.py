"""api.Session: every call holds the session's lock, in which an error of a damaged object
store is the FatalError the command gives (`fatal: unable to read <id>`, kind
``repository``), never pygit2's KeyError: the library, serve and mcp answer as the
command does."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.doors.api import Session
from git_aiapply.errors import FatalError


def test_a_missing_blob_is_fatal_through_the_session(repo: GitRepo, env, monkeypatch):
    monkeypatch.chdir(repo.root)
    repo.write("f.txt", "a\nb\nc\n")
    repo.commit_all("init")
    blob = repo.git("rev-parse", "HEAD:f.txt").strip()
    (repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    session = Session(repo.root)
    with pytest.raises(FatalError) as caught:
        session.show("f.txt", rev="HEAD")
    assert (caught.value.message, caught.value.kind) == (f"unable to read {blob}", "repository")
    edit = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    with pytest.raises(FatalError) as caught:  # serve and mcp answer it with the --json object
        session.apply_json(edit.encode(), check=True)
    assert caught.value.message == f"unable to read {blob}"
    with pytest.raises(KeyError):  # any other error passes as it is
        with session._lock:
            {}["x"]
