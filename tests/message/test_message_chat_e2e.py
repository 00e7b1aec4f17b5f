"""A chatty answer through the real command (BEHAVIOR.md §8 "Chat is not message"): the
commit's subject is the change in the imperative, the closing chat is gone, the model's
trailer joins ours where git finds it, and the commit passes git fsck --strict."""
from __future__ import annotations

from conftest import GitRepo


def test_chatty_answer_makes_a_clean_commit(repo: GitRepo):
    repo.write("app.py", "TIMEOUT = 5\n")
    repo.commit_all("base")
    resp = ("Sure! I'll raise the timeout\x1b[0m to 30 seconds.\x00\n\n"
            "Five seconds was too short for slow networks.\n\n"
            "```diff\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-TIMEOUT = 5\n+TIMEOUT = 30\n```\n\n"
            "Let me know if you'd like tests too!\n\nFixes: #42\n")
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    msg = repo.message()
    assert msg.splitlines()[0] == "Raise the timeout to 30 seconds"
    assert "Let me know" not in msg and "\x00" not in msg and "\x1b" not in msg
    trailers = repo.git("interpret-trailers", "--parse", input=msg.encode()).splitlines()
    assert trailers[0] == "Fixes: #42" and trailers[1].startswith("AI-Format: unified-diff")
    repo.git("fsck", "--strict")
