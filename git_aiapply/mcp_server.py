"""`git ai-apply mcp`: the library as a Model Context Protocol server over stdio.

Built on the official ``mcp`` SDK, an optional extra (the ``mcp`` extra of pyproject.toml);
without it the command says so and exits 128, as git does when its environment stops it.
The repository is the one git would use from the folder the server starts in, kept warm
between calls (git_aiapply.api.Session).  Tools (docs/API.md):

- ``apply_response``: apply a response and commit (or onto ``branch``); the ``--json`` object;
- ``check_response``: would it apply?  Nothing is written;
- ``show_files``: files with hashline ids (``LINE#ID:text``) for the prompt;
- ``undo_last_apply``: take back the last commit this tool made.

A refused response is a normal result (``status`` ``"refused"``, ``error_text`` to send
back to the model); a bad call or a repository that stops the run is a tool error.
"""
from __future__ import annotations

import sys

import click

from .errors import AiApplyError, FatalError, UsageError

INSTALL_HINT = "pip install 'mcp>=1.2'"
SERVER_NAME = "git-ai-apply"
INSTRUCTIONS = (
    "Apply a language model's response (edits in unified-diff, apply-patch, SEARCH/REPLACE, "
    "file-changes or hashline format) to the repository as one git commit, all or nothing. "
    "Use show_files to see files with LINE#ID ids for hashline edits, check_response to try a "
    "response without writing, apply_response to commit it, undo_last_apply to take it back. "
    "A refused response changes nothing; its error_text says what to correct.")


def _sdk():
    """The SDK's high-level server class and its ToolError: ``MCPServer`` (mcp 2) or
    ``FastMCP`` (mcp 1)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError
        return FastMCP, ToolError


def _tool_errors(fn, tool_error):
    """A bad call or a repository that stops the run becomes a tool error whose text is
    the command's (``usage error: ...``, ``fatal: ...``), never a traceback."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UsageError as e:
            raise tool_error(f"usage error: {e}") from None
        except FatalError as e:
            raise tool_error(f"fatal: {e.message}") from None
        except AiApplyError as e:
            raise tool_error(f"error: {e}") from None

    return wrapper


def build_server(session):
    """The MCP server with its tools, answering from ``session`` (an api.Session)."""
    server_class, tool_error = _sdk()
    server = server_class(SERVER_NAME, instructions=INSTRUCTIONS)

    def tool(fn):
        return server.tool()(_tool_errors(fn, tool_error))

    def run(response: str, **options) -> dict:
        options = {k: v for k, v in options.items() if v is not None}
        return session.apply(response, name="response", **options).to_json()

    @tool
    def apply_response(response: str, branch: str | None = None, base: str | None = None,
                       format: str | None = None, message: str | None = None,
                       include_dirty: bool | None = None, allow_empty: bool = False,
                       no_verify: bool = False, diff: bool = False) -> dict:
        """Apply a model's response to the repository and commit it (one commit, all or
        nothing).  With branch, commit onto that branch (created at base, default HEAD)
        without touching the worktree.  Returns the outcome: status is applied,
        already-applied, no-change or refused (then error_text says what to fix; nothing
        was changed)."""
        return run(response, branch=branch, base=base, format=format, message=message,
                   include_dirty=include_dirty, allow_empty=allow_empty, no_verify=no_verify,
                   diff=diff)

    @tool
    def check_response(response: str, branch: str | None = None, format: str | None = None,
                       include_dirty: bool | None = None, diff: bool = False) -> dict:
        """Check whether a response would apply, writing nothing: status would-apply (with
        the files and, with diff, the resulting diff) or refused with error_text."""
        return run(response, check=True, branch=branch, format=format,
                   include_dirty=include_dirty, diff=diff)

    @tool
    def show_files(paths: list[str], rev: str | None = None) -> str:
        """Show files (paths relative to the repository root) with a LINE#ID prefix on
        every line, the ids hashline edits refer to; rev shows them as in that commit."""
        return session.show(*paths, rev=rev)

    @tool
    def undo_last_apply(force: bool = False) -> dict:
        """Take back the last commit git ai-apply made, if it is still HEAD as made and its
        files are unchanged since; otherwise refused and nothing changes."""
        return session.undo(force=force)

    return server


@click.command("mcp")
def mcp_cmd():
    """Serve apply, check, show and undo as MCP tools over stdio (needs the mcp extra)."""
    try:
        _sdk()
    except ImportError as e:
        click.echo(f"fatal: git ai-apply mcp needs the MCP Python SDK ({e}); install it with: "
                   f"{INSTALL_HINT}", err=True)
        sys.exit(128)
    from .api import Session

    try:
        session = Session(".")
    except FatalError as e:
        click.echo(f"fatal: {e.message}", err=True)
        sys.exit(128)
    build_server(session).run("stdio")
