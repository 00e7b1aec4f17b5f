"""cli/commands/mcp.py: `git ai-apply mcp` serves the MCP protocol on its standard input
and output in the repository of the current folder (one raw JSON-RPC exchange, no SDK
client), ends cleanly at the end of its input, and its command line (help, usage errors)
never starts a server."""
from __future__ import annotations

import json
import subprocess
import threading
from importlib.util import find_spec

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    return repo


def test_help_and_usage_errors_start_no_server(base: GitRepo):
    r = base.run("mcp", "-h", stdin=b"not read\n")
    assert r.returncode == 0 and "MCP tools over stdio" in r.out
    r = base.run("mcp", "extra", stdin=b"not read\n")
    assert r.returncode == 2 and "Got unexpected extra argument (extra)" in r.err
    assert r.out == ""


def _send(p: subprocess.Popen, message: dict) -> None:
    p.stdin.write((json.dumps(message) + "\n").encode())
    p.stdin.flush()


def _answer(p: subprocess.Popen, id_: int) -> dict:
    while True:
        line = p.stdout.readline()
        assert line, "the server ended before answering"
        message = json.loads(line)  # the protocol owns standard output: JSON lines only
        if message.get("id") == id_:
            return message


@pytest.mark.skipif(find_spec("mcp") is None, reason="the optional mcp extra is not installed")
def test_speaks_json_rpc_on_stdio_in_the_current_repository(base: GitRepo):
    before = base.snapshot()
    p = subprocess.Popen([*AI_APPLY, "mcp"], cwd=base.root / "src", env=base.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watchdog = threading.Timer(60, p.kill)  # a server that stops answering fails the test
    watchdog.start()
    try:
        _send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test", "version": "1"}}})
        hello = _answer(p, 1)["result"]
        assert hello["serverInfo"]["name"] == "git-ai-apply"
        _send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(p, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "check_response", "arguments": {"response": LOUDER_BETA}}})
        result = _answer(p, 2)["result"]
        p.stdin.close()  # the end of input ends the server
        rest = p.stdout.read()
        code = p.wait(timeout=20)
        err = p.stderr.read().decode()
    finally:
        watchdog.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
    assert not result.get("isError"), result
    outcome = json.loads(result["content"][0]["text"])
    # started in src/, the server works on the repository around it
    assert outcome["status"] == "would-apply" and outcome["files"][0]["path"] == "src/b.txt"
    assert code == 0, err
    assert "Traceback" not in err
    assert all(json.loads(line) for line in rest.splitlines())
    assert base.snapshot() == before  # a check writes nothing
