"""Ctrl-C during a run of attempts names the branches committed so far (issue 33 item 8:
it said "nothing was changed" after two commits); with --json each committed attempt has
its line.  The real executable: the signal is the process's own."""
from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from conftest import AI_APPLY, GitRepo

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def test_ctrl_c_in_the_third_attempt_names_the_two_committed(repo: GitRepo, tmp_path):
    repo.write("a.txt", "a\n")
    repo.commit_all("base")
    files = []
    for n in (1, 2, 3):
        f = tmp_path / f"r{n}.md"
        f.write_text(f'<FILE_CHANGES>\n<FILE_NEW file_path="n{n}.txt">\nn\n</FILE_NEW>\n'
                     "</FILE_CHANGES>\n")
        files.append(str(f))
    count = tmp_path / "count"
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    # --verify runs it for each attempt: the third is cut by a Ctrl-C, as from a terminal
    hook.write_text(f"#!/bin/sh\necho x >> '{count}'\n"
                    f"if [ $(wc -l < '{count}') -eq 3 ]; then kill -INT $PPID; sleep 1; fi\n")
    hook.chmod(0o755)
    r = subprocess.run([*AI_APPLY, "--json", "--verify", "--branch", "try/{n}", *files],
                       cwd=repo.root, env=repo.env, capture_output=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err = r.stderr.decode()
    assert r.returncode == 130, err
    tips = {b: repo.git("rev-parse", b).strip() for b in ("try/1", "try/2")}
    assert repo.git("branch", "--list", "try/3") == ""
    assert "nothing was changed" not in err
    assert err.startswith("interrupted after 2 commits were made; they stay")
    assert f"[try/1 {tips['try/1'][:7]}] Add n1.txt" in err
    assert f"[try/2 {tips['try/2'][:7]}] Add n2.txt" in err
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(o["branch"], o["commit"]) for o in lines] == list(tips.items())
