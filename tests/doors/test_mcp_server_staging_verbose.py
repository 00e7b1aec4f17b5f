"""The MCP tools offer verbose, no_commit and cached, as the library and serve do (issue 23,
front doors), through the same preparation (skipped without the optional mcp extra)."""
from __future__ import annotations

import json
from importlib.util import find_spec

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo

pytestmark = pytest.mark.skipif(find_spec("mcp") is None or find_spec("anyio") is None,
                                reason="the optional mcp extra is not installed")


def talk(repo: GitRepo, calls: list[tuple[str, dict]]):
    """Start the server in ``repo``, make ``calls``: the results in order."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=AI_APPLY[0], args=[*AI_APPLY[1:], "mcp"],
                                       env=repo.env, cwd=str(repo.root))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [await session.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def test_verbose_no_commit_and_cached(repo: GitRepo):
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    head = repo.head()
    checked, cached, bad = talk(repo, [
        ("check_response", {"response": LOUDER_BETA, "verbose": True}),
        ("apply_response", {"response": LOUDER_BETA, "cached": True, "verbose": True}),
        ("apply_response", {"response": LOUDER_BETA, "no_commit": True, "message": "m"}),
    ])
    c = json.loads(checked.content[0].text)
    assert c["status"] == "would-apply" and c["edits"][0]["file"] == "src/b.txt"
    s = json.loads(cached.content[0].text)
    assert s["status"] == "staged" and s["commit"] is None and s["edits"], s
    assert repo.git("show", ":src/b.txt") == "alpha\nBETA\n"
    assert repo.read("src/b.txt") == b"alpha\nbeta\n" and repo.head() == head
    # the library's usage error, as a tool error
    assert bad.is_error and "makes no commit" in bad.content[0].text
