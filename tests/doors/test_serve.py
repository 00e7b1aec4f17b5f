"""`git ai-apply serve` driven as a subprocess, and streaming batch --json (docs/API.md,
docs/JSON.md)."""
from __future__ import annotations

import json
import os
import select
import subprocess

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo
from serve_client import DEADLOCK_GUARD, Server


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("README.md", "hello\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def diff(path: str, old: str, new: str, why: str = "Change it.") -> str:
    return f"{why}\n\n```diff\n--- a/{path}\n+++ b/{path}\n@@\n-{old}\n+{new}\n```\n"


def test_requests_answered_in_order_while_git_works_in_between(base: GitRepo, tmp_path):
    s = Server(base)
    a = s.ask({"response": LOUDER_BETA, "id": 1})
    assert (a["id"], a["status"], a["commit"]) == (1, "applied", base.head())
    # another git process commits between two requests
    base.write("README.md", "theirs\n")
    base.git("commit", "-q", "-am", "theirs")
    theirs = base.head()
    b = s.ask({"response": diff("src/b.txt", "BETA", "B2"), "id": 2})
    assert b["status"] == "applied" and b["base"] == theirs
    assert base.git("log", "--format=%s", "-3").splitlines() == ["Change it", "theirs", "Make beta louder"]
    # ... and stages a file without committing: it stays staged, out of our commit
    base.write("new.txt", "new\n")
    base.git("add", "new.txt")
    c = s.ask({"response": diff("src/b.txt", "B2", "B3", "Third."), "id": 3})
    assert c["status"] == "applied"
    assert base.git("status", "--porcelain").splitlines() == ["A  new.txt"]
    assert "new.txt" not in base.git("ls-tree", "-r", "--name-only", "HEAD")
    # a file request, a check, a refusal: each one line
    f = tmp_path / "r.md"
    f.write_text(diff("README.md", "theirs", "mine"))
    assert s.ask({"path": str(f), "options": {"check": True}})["status"] == "would-apply"
    d = s.ask({"path": str(f)})
    assert d["status"] == "applied" and d["response"] == "r" and base.read("README.md") == b"mine\n"
    e = s.ask({"response": diff("README.md", "nothing", "x")})
    assert e["status"] == "refused" and e["exit_code"] == 1 and e["errors"][0]["file"] == "README.md"
    # several requests written at once come back in order
    s.send("".join(json.dumps({"response": diff("README.md", "mine", f"v{i}"), "id": i,
                                "options": {"check": True}}) + "\n" for i in range(5)))
    assert [s.read()["id"] for _ in range(5)] == [0, 1, 2, 3, 4]
    code, _err = s.close()
    assert code == 0
    assert base.git("status", "--porcelain").splitlines() == ["A  new.txt"]
    base.git("fsck", "--no-progress")


@pytest.mark.parametrize("line, words", [
    (b"{not json\n", "not JSON"),
    (b"[1, 2]\n", "a request is a JSON object"),
    (b'{"response": "x", "path": "y"}\n', "exactly one of"),
    (b'{"response": "x", "optionz": {}}\n', "unknown request field 'optionz'"),
    (b'{"response": "x", "options": {"bogus": 1}}\n', "unknown option 'bogus'"),
    (b'{"response": "x", "options": []}\n', "options is an object"),
    (b'{"path": "/no/such/file.md"}\n', "cannot read"),
    (b'\xff\xfe\n', "not JSON"),
])
def test_bad_request_gets_an_error_and_the_server_goes_on(base: GitRepo, line, words):
    s = Server(base)
    snap = base.snapshot()
    s.send(line)
    bad = s.read()
    assert bad["status"] == "error" and bad["exit_code"] == 2 and bad["error_kind"] == "usage"
    assert words in bad["error_text"]
    assert base.snapshot() == snap
    assert s.ask({"response": LOUDER_BETA})["status"] == "applied"
    assert s.close()[0] == 0


def test_hook_output_stays_off_the_protocol(base: GitRepo):
    hook = base.root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho 'post-commit says hi'\necho '{\"fake\": 1}'\n")
    hook.chmod(0o755)
    s = Server(base)
    a = s.ask({"response": LOUDER_BETA})
    b = s.ask({"response": diff("README.md", "hello", "HELLO")})
    assert a["status"] == b["status"] == "applied"
    code, err = s.close()
    assert code == 0
    assert "post-commit says hi" in (a["hook_output"] or "") + err


def test_not_a_repository_is_fatal(tmp_path, git_env):
    plain = tmp_path / "plain"
    plain.mkdir()
    env = dict(git_env, GIT_CEILING_DIRECTORIES=str(tmp_path))
    r = subprocess.run([*AI_APPLY, "serve"], cwd=plain, env=env, input=b"", capture_output=True)
    assert r.returncode == 128 and r.stderr.decode().startswith("fatal: ") and r.stdout == b""


def test_batch_json_streams_one_line_per_response(base: GitRepo, tmp_path):
    """The first response's line arrives while the second is still being applied: the
    second's pre-commit hook waits for the test to have read the first line."""
    fifo = tmp_path / "go"
    os.mkfifo(fifo)
    mark = tmp_path / "seen"
    hook = base.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nif [ -e '{mark}' ]; then read go < '{fifo}'; fi\ntouch '{mark}'\n")
    hook.chmod(0o755)
    r1 = tmp_path / "one.md"
    r1.write_text(LOUDER_BETA)
    r2 = tmp_path / "two.md"
    r2.write_text(diff("README.md", "hello", "HELLO"))
    p = subprocess.Popen([*AI_APPLY, "--json", str(r1), str(r2)], cwd=base.root, env=base.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready, _, _ = select.select([p.stdout], [], [], DEADLOCK_GUARD)
    assert ready, "no line before the second response finished"
    first = json.loads(p.stdout.readline())
    assert first["response"] == "one" and first["status"] == "applied"
    with open(fifo, "w") as f:
        f.write("go\n")
    second = json.loads(p.stdout.readline())
    assert second["response"] == "two" and second["status"] == "applied"
    assert p.stdout.read() == b"" and p.wait(DEADLOCK_GUARD) == 0
    # one response: still one pretty-printed object
    r3 = tmp_path / "three.md"
    r3.write_text(diff("README.md", "HELLO", "third"))
    hook.unlink()
    out = base.run("--json", str(r3))
    assert out.returncode == 0 and json.loads(out.out)["status"] == "applied"


def test_a_request_holding_an_mbox_makes_one_commit_per_mail(base: GitRepo):
    """serve answers through the library's session: a format-patch series in one request
    is one commit per mail, as git am, and one answer line."""
    from git_aiapply.doors.api import Session
    from git_aiapply.doors.serve import answer

    start = base.head()
    for text, who in (("one\n", "Ann"), ("two\n", "Bob")):
        base.write("README.md", text)
        base.git("-c", f"user.name={who}", "commit", "-qam", f"Say {text.strip()}")
    mbox = base.git("format-patch", "-2", "--stdout")
    base.git("reset", "-q", "--hard", start)
    with Session(base.root) as session:
        out = answer(session, json.dumps({"response": mbox, "id": 7}).encode())
    assert (out["id"], out["status"]) == (7, "applied")
    assert base.git("log", "--format=%s", f"{start}..").splitlines() == ["Say two", "Say one"]
    assert base.read("README.md") == b"two\n"
