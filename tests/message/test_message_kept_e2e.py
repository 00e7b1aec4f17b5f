"""An answer that thinks aloud, through the real command (BEHAVIOR.md §8 round 4): the
prose has no sentence that says what changed, so the subject names the function the
diff touches, as the grammar reads it; the body keeps why, without the exploration, the
retracted attempt or the model's own /tmp checkout."""
from __future__ import annotations

from conftest import GitRepo

SKIPPING = """def pytest_runtest_setup(item):
    item.store = {}


def pytest_runtest_makereport(item, call):
    rep = call.result
    if item.config.option.runxfail:
        pass  # don't interfere
    elif call.excinfo:
        rep.outcome = "skipped"
    return rep
"""

ANSWER = """Looking at the `pytest_runtest_makereport` hook in `/tmp/tmpq8x7/pytest/src/_pytest/skipping.py`, I can see that when `--runxfail` is used, the `elif` chain stops before the skip is reported.

Wait, let me re-read this more carefully. Hmm, the location fix is in the last branch.

Actually, that's wrong: it is the second branch.

The issue is that the `runxfail` branch swallows every branch after it.

```diff
--- a/src/_pytest/skipping.py
+++ b/src/_pytest/skipping.py
@@ -6,7 +6,7 @@ def pytest_runtest_makereport(item, call):
     rep = call.result
-    if item.config.option.runxfail:
-        pass  # don't interfere
-    elif call.excinfo:
+    if call.excinfo:
         rep.outcome = "skipped"
+    elif item.config.option.runxfail:
+        pass  # don't interfere
     return rep
```

Let me know if you need anything else!
"""


def test_an_answer_thinking_aloud_makes_a_message_a_git_user_keeps(repo: GitRepo):
    repo.write("src/_pytest/skipping.py", SKIPPING)
    repo.commit_all("base")
    r = repo.run(response=ANSWER)
    assert r.returncode == 0, r.err
    msg = repo.git("log", "-1", "--format=%B")
    lines = msg.split("\n")
    assert lines[0] == "Change pytest_runtest_makereport (src/_pytest/skipping.py)"
    body = msg.split("\n\n", 1)[1].rsplit("\n\nAI-Format:", 1)[0]
    assert "`src/_pytest/skipping.py`, I can see that" in " ".join(body.split())
    assert "swallows every branch after it" in " ".join(body.split())
    for gone in ("/tmp/", "Wait", "Hmm", "Actually", "Let me know"):
        assert gone not in msg
    assert len(body.split("\n")) <= 15
