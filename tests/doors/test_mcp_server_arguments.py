"""doors/mcp_server.py's tools, in process (no stdio): an unknown argument or a value
outside an enum is a usage error worded as the command words it, with the tool's usage,
never pydantic's text or a URL, and the call never reaches the repository; the tools'
annotations, titles and the server's version."""
from __future__ import annotations

from importlib.metadata import version
from importlib.util import find_spec

import pytest

pytestmark = pytest.mark.skipif(find_spec("mcp") is None or find_spec("anyio") is None,
                                reason="the optional mcp extra is not installed")

TOOLS = ["apply_response", "check_response", "show_files", "undo_last_apply", "batch_apply"]


class _Session:
    """Stands for api.Session; records every call that reached it."""

    def __init__(self):
        self.calls: list = []

    def apply_json(self, response, **options):
        self.calls.append(("apply", options))
        return {"status": "would-apply" if options.get("check") else "applied",
                "exit_code": 0}

    def show(self, *paths, rev=None):
        self.calls.append(("show", paths))
        return "1#ZZ:x"

    def undo(self, **options):
        self.calls.append(("undo", options))
        return {"status": "undone", "exit_code": 0}


@pytest.fixture(scope="module")
def server():
    from git_aiapply.doors.mcp_server import build_server

    session = _Session()
    return build_server(session), session


def call(server, name, arguments):
    """(is_error, text) of a tool call, as a client sees it."""
    import anyio

    from mcp.server.mcpserver.exceptions import ToolError

    async def go():
        try:
            r = await server.call_tool(name, arguments)
        except ToolError as e:
            return True, str(e)
        return bool(r.is_error), r.content[0].text

    return anyio.run(go)


def tools(server):
    import anyio

    return {t.name: t for t in anyio.run(server.list_tools)}


def _minimal(name):
    return {"apply_response": {"response": "x"}, "check_response": {"response": "x"},
            "show_files": {"paths": ["a"]}, "undo_last_apply": {},
            "batch_apply": {"jobs": []}}[name]


@pytest.mark.parametrize("name", TOOLS)
def test_a_misspelt_argument_of_every_tool_is_refused_with_its_usage(server, name):
    srv, session = server
    params = tools(srv)[name].input_schema["properties"]
    misspelt = [p[:-1] for p in params if len(p) > 2] + ["chek", "Response", "extra"]
    for wrong in misspelt:
        if wrong in params:
            continue
        session.calls.clear()
        is_error, text = call(srv, name, {**_minimal(name), wrong: True})
        assert is_error and session.calls == [], (wrong, text)
        assert text.startswith(f"usage error: unknown argument '{wrong}'; known arguments: ")
        assert text.splitlines()[-1].startswith(f"usage: {name} ")
        assert "pydantic" not in text and "http" not in text


def test_chek_true_is_refused_not_applied(server):
    srv, session = server
    session.calls.clear()
    is_error, text = call(srv, "apply_response", {"response": "x", "chek": True})
    assert is_error and session.calls == []
    assert text.splitlines() == [
        "usage error: unknown argument 'chek'; known arguments: " + ", ".join(
            tools(srv)["apply_response"].input_schema["properties"]),
        "usage: apply_response response [branch] [base] [format] [message] [include_dirty] "
        "[allow_empty] [no_verify] [force] [three_way] [diff] [verbose] [syntax_check] "
        "[no_commit] [cached]"]


@pytest.mark.parametrize("name", ["apply_response", "check_response"])
@pytest.mark.parametrize("arguments, first", [
    ({"format": "nope"}, "usage error: unknown format 'nope'; known formats: "),
    ({"syntax_check": "loud"}, "usage error: unknown syntax_check value 'loud'; known "
                               "syntax_check values: refuse, warn, off"),
    ({"diff": "maybe"}, "usage error: diff: Input should be a valid boolean"),
    ({"response": 3}, "usage error: response: Input should be a valid string"),
])
def test_a_bad_value_is_a_usage_error_without_pydantics_text(server, name, arguments, first):
    from git_aiapply.formats import FORMAT_NAMES

    srv, session = server
    session.calls.clear()
    is_error, text = call(srv, name, {"response": "x", **arguments})
    assert is_error and session.calls == []
    assert text.startswith(first), text
    if "format" in arguments:
        assert text.splitlines()[0].endswith(", ".join(FORMAT_NAMES))
    assert "pydantic" not in text and "http" not in text and "validation error" not in text
    assert text.splitlines()[-1].startswith(f"usage: {name} response [branch]")


def test_good_calls_still_reach_the_session(server):
    srv, session = server
    session.calls.clear()
    assert call(srv, "check_response", {"response": "x", "format": "whole", "branch": None})[0] \
        is False
    assert call(srv, "show_files", {"paths": ["a"]}) == (False, "1#ZZ:x")
    assert [c[0] for c in session.calls] == ["apply", "show"]
    assert session.calls[0][1]["format"] == "whole" and session.calls[0][1]["check"] is True


def test_annotations_titles_and_version(server):
    srv, _ = server
    listed = tools(srv)
    hints = {n: (t.annotations.read_only_hint, t.annotations.destructive_hint,
                 t.annotations.open_world_hint) for n, t in listed.items()}
    assert hints == {"apply_response": (False, False, False),
                     "check_response": (True, None, False),
                     "show_files": (True, None, False),
                     "undo_last_apply": (False, True, False),
                     "batch_apply": (False, False, False)}
    assert all(t.title for t in listed.values())
    assert listed["apply_response"].annotations.idempotent_hint is True
    assert listed["batch_apply"].annotations.idempotent_hint is True
    assert (srv.title, srv.version) == ("git ai-apply", version("git-ai-apply"))
