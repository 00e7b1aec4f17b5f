"""`git ai-apply mcp` answers a message the SDK cannot read though it is JSON: a string
escaping a lone surrogate ("\\ud800", no text) made the SDK's parser drop the message,
and its caller waited forever (doors/mcp_server.readable_message)."""
from __future__ import annotations

import json
import select
import subprocess
from importlib.util import find_spec

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo
from git_aiapply.doors.mcp_server import NOT_TEXT, readable_message

_SDK = pytest.mark.skipif(find_spec("mcp") is None or find_spec("anyio") is None,
                          reason="the optional mcp extra is not installed")


def _call(arguments_json: str, req_id=1) -> bytearray:
    return bytearray(('{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": '
                      '{"name": "check_response", "arguments": %s}}\n'
                      % (json.dumps(req_id), arguments_json)).encode())


@_SDK
@pytest.mark.parametrize("line", [
    _call('{"response": "fine \\u00e9 \\ud83d\\ude00"}'),  # a pair is text: as it is
    bytearray(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'),
    bytearray(b'{"not json\\ud800\n'),  # not JSON at all: the SDK's own answer
])
def test_messages_the_sdk_reads_pass_as_they_are(line):
    assert readable_message(line) is line


@_SDK
@pytest.mark.parametrize("arguments, where", [
    ('{"response": "\\ud800"}', "argument response at character 0"),
    ('{"response": "ok", "message": "a\\udfff"}', "argument message at character 1"),
    ('{"response": "x\\ude00\\ud83d"}', "argument response at character 1"),  # reversed pair
])
def test_a_tool_call_holding_a_lone_surrogate_becomes_a_call_naming_it(arguments, where):
    got = json.loads(readable_message(_call(arguments, "c7")))
    assert got["id"] == "c7" and got["method"] == "tools/call"
    assert got["params"]["name"] == "check_response"
    [error] = got["params"]["arguments"].values()
    assert list(got["params"]["arguments"]) == [NOT_TEXT]
    assert error.startswith(f"usage error: {where} holds a lone surrogate")


@_SDK
def test_another_request_is_answered_and_a_notification_dropped():
    req = bytearray(b'{"jsonrpc": "2.0", "id": 4, "method": "prompts/get", '
                    b'"params": {"name": "\\ud800"}}\n')
    assert json.loads(readable_message(req)) == {"jsonrpc": "2.0", "id": 4,
                                                 "method": "git-ai-apply/request-not-text"}
    note = bytearray(b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": "\\udc00"}}\n')
    assert readable_message(note) == b""


_LONE = "\\ud800"  # the six characters of JSON text escaping a lone surrogate


def _request(where: str, req_id: str, method: str) -> bytes:
    """A request line (JSON text) holding a lone surrogate at ``where``."""
    name = _LONE if where == "name" else "check_response"
    value = "x" + (_LONE if where == "value" else "")
    key = ', "k%s": "v"' % _LONE if where == "key" else ""
    meta = ', "_meta": {"m": "%s"}' % _LONE if where == "_meta" else ""
    method = _LONE if where == "method" else method
    return ('{"jsonrpc": "2.0", "id": %s, "method": "%s", "params": {"name": "%s", '
            '"arguments": {"response": "%s"%s}%s}}\n'
            % (req_id, method, name, value, key, meta)).encode()


@_SDK
@pytest.mark.parametrize("method", ["tools/call", "prompts/get"])
@pytest.mark.parametrize("req_id", ["3", '"r"', '"a%sb"' % _LONE])
@pytest.mark.parametrize("where", ["name", "id", "method", "value", "key", "_meta"])
def test_every_request_holding_a_lone_surrogate_is_one_the_sdk_answers(where, req_id, method):
    """Wherever the surrogate sits, the line becomes one request the SDK reads, with the
    request's id (made text when it was none): its caller gets exactly one answer; the
    same line without an id (a notification: no one waits) is dropped."""
    from mcp.types import JSONRPCRequest

    if where == "id":
        req_id = '"%s"' % _LONE
    line = _request(where, req_id, method)
    got = readable_message(bytearray(line))
    assert got.endswith(b"\n") and got.count(b"\n") == 1
    request = JSONRPCRequest.model_validate_json(got)  # the SDK reads it
    sent = json.loads(req_id)
    assert request.id == (sent.encode("utf-8", "backslashreplace").decode()
                          if isinstance(sent, str) else sent)
    if where != "id":
        note = line.replace(b'"id": %s, ' % req_id.encode(), b"")
        assert b'"id"' not in note and readable_message(bytearray(note)) == b""


@_SDK
def test_the_server_answers_the_call_and_goes_on(repo: GitRepo):
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    p = subprocess.Popen([*AI_APPLY, "mcp"], cwd=repo.root, env=repo.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    lines = [json.dumps(init), '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
             _call('{"response": "\\ud800"}', 1).decode().strip(),
             _call(json.dumps({"response": LOUDER_BETA}), 2).decode().strip(),
             _request("name", "5", "tools/call").decode().strip(),
             _request("id", f'"{_LONE}"', "tools/list").decode().strip()]
    p.stdin.write(("\n".join(lines) + "\n").encode())
    p.stdin.flush()
    answers = []
    try:
        while len(answers) < 5 and select.select([p.stdout], [], [], 20)[0]:
            answers.append(json.loads(p.stdout.readline()))
    finally:
        p.kill()
        p.wait()
        p.stdin.close()
        p.stdout.close()
    by_id = {a["id"]: a for a in answers}  # answered as each call ends, in any order
    first, second = by_id[1], by_id[2]
    assert first["id"] == 1 and first["result"]["isError"] is True
    assert "argument response at character 0 holds a lone surrogate" in \
        first["result"]["content"][0]["text"]
    assert second["id"] == 2 and not second["result"].get("isError")
    named, listed = by_id[5], by_id["\\ud800"]  # a tool name, an id, not text: answered
    assert named["result"]["isError"] is True
    assert "params.name at character 0 holds a lone surrogate" in \
        named["result"]["content"][0]["text"]
    assert listed["error"]["data"] == "git-ai-apply/request-not-text"
