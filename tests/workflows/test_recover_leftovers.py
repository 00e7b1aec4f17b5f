"""`recover` removes what a killed run leaves that no name of ours marks (issue 33 item
4): libgit2's unfinished loose objects and the lock of the ref the run was moving, once
no process has them open (git/leftovers.py)."""
from __future__ import annotations

import os
import signal
import time

RESPONSE = """Louder.

```diff
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 one
-two
+TWO
```
"""


def _aged(path):
    past = time.time() - 60
    os.utime(path, (past, past))


def test_recover_removes_a_dead_runs_object_temporaries_and_ref_lock(repo):
    repo.write("a.txt", "one\ntwo\n")
    repo.commit_all()
    branch = repo.git("symbolic-ref", "HEAD").strip()
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:commit")
    assert repo.run(response=RESPONSE, env=env).returncode == -signal.SIGKILL
    # what a kill inside libgit2's object write and ref update would have left
    temp = repo.root / ".git" / "objects" / "tmp_object_git2_0123456789abcdef"
    temp.write_bytes(b"half an object")
    lock = repo.root / ".git" / (branch + ".lock")
    lock.write_bytes(b"")
    for p in (temp, lock):
        _aged(p)
    r = repo.run("recover")
    assert r.returncode == 0, r.err
    assert "made no commit" in r.out
    assert f"remove the unfinished object file {temp}" in r.out
    assert f"remove the lock {lock}" in r.out
    assert not temp.exists() and not lock.exists()
    assert repo.read("a.txt") == b"one\ntwo\n"
    assert repo.git("status", "--porcelain") == ""
    assert repo.run(response=RESPONSE).returncode == 0  # the branch can move again
