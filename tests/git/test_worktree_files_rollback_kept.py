"""A rollback never overwrites what it did not write (issue 33 item 1): after a failing
commit hook, a file is put back only while it still holds what the run wrote; a file
someone changed meanwhile (an edit made while a slow pre-commit hook ran) is left as it
is and named, and the refusal never says "nothing was changed".

Each kind of change the run makes (modify, create, delete, rename, mode change) is
crossed with an edit of that file made during the failing hook.  The hook makes the edit
itself, at the moment a user's would land (the run cannot tell them apart: both are
someone else's bytes); one test edits from outside, while the hook waits."""
from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from conftest import GitRepo

RESPONSE = """Rework the files.

```diff
diff --git a/mod.txt b/mod.txt
--- a/mod.txt
+++ b/mod.txt
@@ -1,2 +1,2 @@
 one
-two
+TWO
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+brand new
diff --git a/del.txt b/del.txt
deleted file mode 100644
--- a/del.txt
+++ /dev/null
@@ -1 +0,0 @@
-to be deleted
diff --git a/ren.txt b/moved/ren.txt
similarity index 100%
rename from ren.txt
rename to moved/ren.txt
diff --git a/tool.sh b/tool.sh
old mode 100644
new mode 100755
```
"""

# path the user touches -> the shell that touches it (during the hook)
EDITS = {
    "mod.txt": "printf 'mine\\n' > mod.txt",  # modified by the run, then by the user
    "new.txt": "printf 'my own notes\\n' >> new.txt",  # created by the run, then edited
    "del.txt": "printf 'I want it back\\n' > del.txt",  # deleted by the run, re-created
    "moved/ren.txt": "printf 'edited\\n' >> moved/ren.txt",  # a rename's new side edited
    "ren.txt": "printf 'old name again\\n' > ren.txt",  # a rename's old side re-created
    "tool.sh": "printf 'echo mine\\n' > tool.sh",  # a mode change, then its bytes edited
}


def setup(repo: GitRepo, hook: str) -> None:
    repo.write("mod.txt", "one\ntwo\n")
    repo.write("del.txt", "to be deleted\n")
    repo.write("ren.txt", "to be moved\n")
    repo.write("tool.sh", "echo tool\n")
    repo.write("keep.txt", "untouched\n")
    repo.commit_all()
    repo.write("staged.txt", "the user's staged work\n")
    repo.git("add", "staged.txt")
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\n" + hook + "\necho 'lint failed'\nexit 1\n",
               mode=0o755)
    repo.settle()


def git_state(repo: GitRepo) -> dict:
    return {"status": repo.git("status", "--porcelain=v2", "-uall"),
            "diff": repo.git("diff", "HEAD"), "ls": repo.git("ls-files", "-s"),
            "head": repo.head()}


def test_without_interference_everything_is_put_back_exactly(repo):
    setup(repo, ":")
    before, snap = git_state(repo), repo.snapshot()
    r = repo.run(response=RESPONSE)
    assert r.returncode == 1, r.err
    assert "pre-commit hook failed" in r.err and "nothing was changed" in r.err
    assert repo.snapshot() == snap  # index bytes, modes and stray files included
    assert git_state(repo) == before


@pytest.mark.parametrize("path", sorted(EDITS))
def test_an_edit_during_the_failing_hook_survives_and_is_named(repo, path):
    setup(repo, EDITS[path])
    before = git_state(repo)
    r = repo.run(response=RESPONSE)
    assert r.returncode == 1, r.err  # as for any failing hook
    assert "nothing was changed" not in r.err
    assert "left as they are: " + path in r.err, r.err
    assert f"{path}: changed while the run was going on" in r.err
    # the user's bytes are there; everything else is as before the run
    theirs = {"mod.txt": b"mine\n", "new.txt": b"brand new\nmy own notes\n",
              "del.txt": b"I want it back\n", "moved/ren.txt": b"to be moved\nedited\n",
              "ren.txt": b"old name again\n", "tool.sh": b"echo mine\n"}[path]
    assert repo.read(path) == theirs
    now = git_state(repo)
    assert now["head"] == before["head"] and now["ls"] == before["ls"]  # the index as it was
    changed = sorted(line.split()[-1] for line in now["status"].splitlines())
    assert changed == sorted({path, "staged.txt"}), now["status"]
    others = ["mod.txt", "del.txt", "tool.sh", "keep.txt", "staged.txt"]
    for p in [p for p in others if p != path]:
        assert repo.git("diff", "--name-only", "--", p) == ""
    if path != "tool.sh":
        assert not os.access(repo.root / "tool.sh", os.X_OK)  # its mode back too
    assert not (repo.root / "moved").exists() or path == "moved/ren.txt"
    if path != "new.txt":
        assert not (repo.root / "new.txt").exists()
    assert [n for n in os.listdir(repo.root / ".git") if "ai-apply" in n or "lock" in n
            or n == "AI_APPLY_JOURNAL"] == []


def test_the_json_outcome_names_the_kept_file(repo):
    setup(repo, EDITS["mod.txt"])
    r = repo.run("--json", response=RESPONSE)
    assert r.returncode == 1
    import json

    out = json.loads(r.out)
    assert out["status"] == "refused" and out["error_kind"] == "hook"
    assert "left as they are: mod.txt" in out["note"]
    assert any(e["file"] == "mod.txt" for e in out["errors"])


def test_a_file_the_hook_restaged_is_the_runs_and_is_put_back(repo):
    """A formatter hook that rewrites a file and stages it, then fails: what it staged is
    the run's own doing (the hooks' index names it), so the file is put back."""
    setup(repo, "printf 'formatted\\n' > mod.txt && git add mod.txt")
    before, snap = git_state(repo), repo.snapshot()
    r = repo.run(response=RESPONSE)
    assert r.returncode == 1 and "nothing was changed" in r.err, r.err
    assert git_state(repo) == before
    assert repo.snapshot()["files"] == snap["files"]


@pytest.mark.real_command  # a concurrent edit from outside the run
def test_a_users_edit_from_outside_while_the_hook_waits(repo):
    flag = repo.root.parent / "hook-started"
    go = repo.root.parent / "edited"
    setup(repo, f"touch '{flag}'; i=0; while [ ! -e '{go}' ] && [ $i -lt 100 ]; do "
                "sleep 0.05; i=$((i+1)); done")
    rp = repo.root.parent / "response.md"
    rp.write_text(RESPONSE)

    def edit_when_the_hook_runs():
        for _ in range(200):
            if flag.exists():
                break
            time.sleep(0.02)
        (repo.root / "mod.txt").write_bytes(b"typed while the hook ran\n")
        go.touch()

    t = threading.Thread(target=edit_when_the_hook_runs)
    t.start()
    from conftest import run_command

    r = run_command([str(rp)], cwd=repo.root, env=repo.env)
    t.join()
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert "left as they are: mod.txt" in err
    assert repo.read("mod.txt") == b"typed while the hook ran\n"
    assert repo.git("diff", "--name-only").split() == ["mod.txt"]
    assert subprocess.run(["git", "diff", "--quiet", "--cached", "HEAD", "--", "mod.txt"],
                          cwd=repo.root, env=repo.env).returncode == 0


def test_an_io_error_after_an_edit_during_the_hook_keeps_the_edit(repo):
    """The same rule for a disk error after the hooks (an injected one): fatal, exit 128,
    naming the file kept, never "nothing was changed"."""
    setup(repo, EDITS["mod.txt"])
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\n" + EDITS["mod.txt"] + "\n", mode=0o755)
    r = repo.run(response=RESPONSE, env=dict(repo.env, GIT_AI_APPLY_FAULT="fail:commit"))
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal: cannot write the commit: injected fault")
    assert "nothing was changed" not in r.err and "left as they are: mod.txt" in r.err
    assert repo.read("mod.txt") == b"mine\n"
    assert repo.git("status", "--porcelain", "-uall").split("\n")[:2] == [" M mod.txt",
                                                                           "A  staged.txt"]


# --------------------------------------------------------------------------- in process


def test_each_cause_keeps_its_kind_and_names_the_kept_files():
    """transaction.raise_with_kept: a refusal keeps its kind (exit 1) with a problem per
    file; a fatal error and a disk error say it in their message (exit 128); Ctrl-C
    carries the names for the command to print."""
    import errno

    from git_aiapply.errors import ApplyError, ErrorKind, FatalError
    from git_aiapply.git.transaction import raise_with_kept

    before = {"a.txt": [0o100644, "8" * 40], "new.txt": None}
    hook = ApplyError("the pre-commit hook failed (exit 1)", kind=ErrorKind.HOOK)
    raise_with_kept(hook, ["a.txt", "new.txt"], before, "commit", [])
    assert hook.kind == ErrorKind.HOOK and hook.kept == ["a.txt", "new.txt"]
    assert [p.file for p in hook.problems] == [None, "a.txt", "new.txt"]
    assert "git cat-file -p 888888888888" in hook.problems[1].hint
    assert "did not exist before the run" in hook.problems[2].hint
    fatal = FatalError("signing failed", kind=ErrorKind.SIGNING)
    raise_with_kept(fatal, ["a.txt"], before, "commit", [])
    assert "left as they are: a.txt" in fatal.message and fatal.kind == ErrorKind.SIGNING
    with pytest.raises(FatalError) as e:
        raise_with_kept(OSError(errno.ENOSPC, "No space left on device"), ["a.txt"], before,
                        "commit", [])
    assert e.value.kind == ErrorKind.IO and "nothing was changed" not in e.value.message
    assert e.value.kept == ["a.txt"]
    stop = KeyboardInterrupt()
    raise_with_kept(stop, ["a.txt"], before, "commit", [])
    assert stop.kept == ["a.txt"]


def test_ctrl_c_after_a_rollback_that_kept_files_says_so(capsys):
    from git_aiapply.git import commits_made
    from git_aiapply.run.term import guarded

    commits_made.forget()  # commits earlier in-process tests made, never reported

    def interrupted():
        e = KeyboardInterrupt()
        e.kept = ["a.txt"]
        raise e

    with pytest.raises(SystemExit) as done:
        guarded(interrupted)
    assert done.value.code == 130
    err = capsys.readouterr().err
    assert "nothing was changed" not in err and "left as they are: a.txt" in err
