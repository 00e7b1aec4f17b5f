"""A `git ai-apply serve` process driven line by line, for the tests that talk to it
(doors/test_serve.py, test_front_doors.py)."""
from __future__ import annotations

import json
import os
import select
import subprocess

from conftest import AI_APPLY, GitRepo

# A guard against a hang, not a speed assertion: an answer that never comes fails the test.
DEADLOCK_GUARD = 120


class Server:
    def __init__(self, repo: GitRepo):
        self.p = subprocess.Popen([*AI_APPLY, "serve"], cwd=repo.root, env=repo.env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.pending = b""

    def send(self, line: str | bytes) -> None:
        self.p.stdin.write(line.encode() if isinstance(line, str) else line)
        self.p.stdin.flush()

    def read(self) -> dict:
        # Lines are split here, from the pipe's raw bytes: a buffered readline() may take
        # several answers at once, and select() would then wait for bytes already read.
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.p.stdout], [], [], DEADLOCK_GUARD)
            assert ready, "serve did not answer"
            chunk = os.read(self.p.stdout.fileno(), 65536)
            assert chunk, ("serve closed its output", self.pending)
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def ask(self, request) -> dict:
        self.send(json.dumps(request) + "\n")
        return self.read()

    def close(self) -> tuple[int, str]:
        self.p.stdin.close()
        rest = self.pending + self.p.stdout.read()
        err = self.p.stderr.read().decode()
        code = self.p.wait(DEADLOCK_GUARD)
        assert rest == b"", rest
        assert "Traceback" not in err, err
        return code, err

