"""`git ai-apply mcp` end to end with the MCP SDK's own stdio client (skipped only when
the optional mcp extra is not installed)."""
from __future__ import annotations

import json
import subprocess
from importlib.util import find_spec

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo

# The SDK (pydantic and all) is imported by the first test that talks to the server, not
# at collection: every test process collects this file, one or two run it.
pytestmark = pytest.mark.skipif(find_spec("mcp") is None or find_spec("anyio") is None,
                                reason="the optional mcp extra is not installed")


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("README.md", "hello\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def talk(repo: GitRepo, calls: list[tuple[str, dict]]):
    """Start the server in ``repo``, list its tools, make ``calls``; the results in order."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=AI_APPLY[0], args=[*AI_APPLY[1:], "mcp"],
                                       env=repo.env, cwd=str(repo.root))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = sorted(t.name for t in (await session.list_tools()).tools)
                out = [await session.call_tool(name, args) for name, args in calls]
                return tools, out

    return anyio.run(main)


def payload(result) -> dict | str:
    text = result.content[0].text
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_tools_apply_check_show_undo(base: GitRepo):
    before = base.head()
    refused_text = "Fix.\n\n```diff\n--- a/README.md\n+++ b/README.md\n@@\n-nothing\n+x\n```\n"
    tools, (shown, checked, applied, refused, undone, batched) = talk(base, [
        ("show_files", {"paths": ["src/b.txt"]}),
        ("check_response", {"response": LOUDER_BETA}),
        ("apply_response", {"response": LOUDER_BETA}),
        ("apply_response", {"response": refused_text}),
        ("undo_last_apply", {}),
        ("batch_apply", {"jobs": [{"id": "x", "response": LOUDER_BETA},
                                  {"id": "y", "response": refused_text}]}),
    ])
    assert tools == ["apply_response", "batch_apply", "check_response", "show_files",
                     "undo_last_apply"]
    assert payload(shown) == base.run("show", "src/b.txt").out.rstrip("\n")
    c = payload(checked)
    assert not checked.is_error and c["status"] == "would-apply" and c["files"][0]["path"] == "src/b.txt"
    a = payload(applied)
    assert not applied.is_error and a["status"] == "applied"
    r = payload(refused)
    assert not refused.is_error and r["status"] == "refused" and "nothing" in r["error_text"]
    u = payload(undone)
    assert u["status"] == "undone" and u["undone"] == a["commit"]
    # the commit was made, then taken back, with the git CLI's agreement
    assert base.head() == before and base.read("src/b.txt") == b"alpha\nbeta\n"
    assert a["commit"] in base.git("reflog", "--format=%H")
    assert base.git("status", "--porcelain").strip() == ""
    # batch_apply: each job onto its own branch, HEAD untouched; a refusal is a result
    x, y = payload(batched)["results"]
    assert (x["id"], x["status"], y["id"], y["status"]) == ("x", "applied", "y", "refused")
    assert x["diff"] == base.git("diff", before, "ai/batch/x") and y["diff"] == ""
    assert base.head() == before and base.git("branch", "--list", "ai/batch/y") == ""


def test_branch_and_bad_arguments(base: GitRepo):
    snap = base.snapshot()
    _tools, (on_branch, bad, misspelt) = talk(base, [
        ("apply_response", {"response": LOUDER_BETA, "branch": "agent/1"}),
        ("apply_response", {"response": LOUDER_BETA, "format": "nope"}),
        ("apply_response", {"response": LOUDER_BETA, "chek": True}),  # not applied
    ])
    assert payload(on_branch)["status"] == "applied"
    assert base.git("show", "agent/1:src/b.txt") == "alpha\nBETA\n"
    assert base.snapshot()["files"] == snap["files"] and base.head() == snap["head"]
    # the format is an enum in the tool's schema: refused before it runs, in the command's
    # words (tests/doors/test_mcp_server_arguments.py), without pydantic's
    assert bad.is_error and bad.content[0].text.startswith("usage error: unknown format 'nope'")
    assert "http" not in bad.content[0].text
    assert misspelt.is_error
    assert misspelt.content[0].text.startswith("usage error: unknown argument 'chek'")


def test_missing_extra_says_how_to_install(base: GitRepo, tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "mcp.py").write_text("raise ImportError('No module named mcp (shadowed)')\n")
    env = dict(base.env, PYTHONPATH=str(shadow))
    r = subprocess.run([*AI_APPLY, "mcp"], cwd=base.root, env=env, input=b"", capture_output=True)
    err = r.stderr.decode()
    assert r.returncode == 128 and err.startswith("fatal: ") and "Traceback" not in err
    assert "pip install 'mcp>=1.10'" in err and r.stdout == b""


def listing(repo: GitRepo):
    """The server's tools and prompts as a client sees them, and one prompt fetched."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=AI_APPLY[0], args=[*AI_APPLY[1:], "mcp"],
                                       env=repo.env, cwd=str(repo.root))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                prompts = (await session.list_prompts()).prompts
                got = await session.get_prompt("format-unified-diff")
                applied = await session.call_tool("apply_response", {"response": LOUDER_BETA})
                return tools, prompts, got, applied

    return anyio.run(main)


def _schema(obj, snake: str, camel: str):
    value = getattr(obj, snake, None)
    return value if value is not None else getattr(obj, camel, None)


def test_tools_describe_every_parameter_and_their_results(base: GitRepo):
    from git_aiapply.formats import FORMAT_NAMES

    tools, prompts, got, applied = listing(base)
    for t in tools:
        props = _schema(t, "input_schema", "inputSchema")["properties"]
        assert props, t.name
        for name, prop in props.items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
        if "format" in props:
            enum = next(o["enum"] for o in props["format"]["anyOf"] if "enum" in o)
            assert sorted(enum) == sorted(FORMAT_NAMES)
        if t.name == "batch_apply":  # a list of result lines, each an object as below
            out = _schema(t, "output_schema", "outputSchema")
            line = out["$defs"]["BatchLine"]["properties"]
            assert {"id", "status", "branch", "diff"} <= set(line), line
        elif t.name != "show_files":
            out = _schema(t, "output_schema", "outputSchema")
            assert out and "status" in out["properties"], t.name
    # the structured result is the --json object, the same as the text
    structured = _schema(applied, "structured_content", "structuredContent")
    assert structured["status"] == "applied" and structured == payload(applied)
    assert structured["files"][0]["path"] == "src/b.txt"
    # the format instructions as prompts, the same text as `git ai-apply prompt FORMAT`
    assert sorted(p.name for p in prompts) == sorted(f"format-{f}" for f in FORMAT_NAMES)
    text = got.messages[0].content.text
    assert text.strip() == base.run("prompt", "unified-diff").out.strip()
