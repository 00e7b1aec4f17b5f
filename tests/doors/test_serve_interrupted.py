"""Ctrl-C to `serve` names the commit of the request it cuts (its answer not written
yet), and only that one: the answers written named theirs (issue 33 item 8)."""
from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def _new_file(name: str) -> str:
    return f'<FILE_CHANGES>\n<FILE_NEW file_path="{name}">\nn\n</FILE_NEW>\n</FILE_CHANGES>\n'


def test_ctrl_c_in_a_post_commit_hook_names_that_requests_commit(repo: GitRepo, tmp_path):
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all()
    hook = repo.root / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\n[ -e n2.txt ] && kill -INT $PPID && sleep 1\nexit 0\n")
    hook.chmod(0o755)
    requests = [{"id": 1, "response": LOUDER_BETA}, {"id": 2, "response": _new_file("n2.txt")},
                {"id": 3, "response": _new_file("n3.txt")}]
    r = subprocess.run([*AI_APPLY, "serve"], cwd=repo.root, env=repo.env, timeout=120,
                       input="".join(json.dumps(q) + "\n" for q in requests).encode(),
                       capture_output=True,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err = r.stderr.decode()
    assert r.returncode == 130, err
    [first] = [json.loads(x) for x in r.stdout.splitlines()]
    assert first["id"] == 1 and first["status"] == "applied"
    head = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("rev-parse", "HEAD~1").strip() == first["commit"]
    assert err == ("interrupted after a commit was made; it stays, nothing else was changed:\n"
                   f"  [main {head[:7]}] Add n2.txt\n")
