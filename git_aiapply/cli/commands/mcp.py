"""`git ai-apply mcp`: the library as an MCP server over stdio (mcp_server.py; docs/API.md)."""
import sys

import click


@click.command("mcp")
def command():
    """Serve apply, check, show and undo as MCP tools over stdio (needs the mcp extra)."""
    from ...errors import FatalError
    from ...doors.mcp_server import INSTALL_HINT, bound_standard_input, build_server, sdk

    try:
        sdk()
    except ImportError as e:
        click.echo(f"fatal: git ai-apply mcp needs the MCP Python SDK ({e}); install it with: "
                   f"{INSTALL_HINT}", err=True)
        sys.exit(128)
    from ...doors.api import Session

    try:
        session = Session(".")
    except FatalError as e:
        click.echo(f"fatal: {e.message}", err=True)
        sys.exit(128)
    bound_standard_input(session)
    try:
        build_server(session).run("stdio")
    except* BrokenPipeError:
        pass  # the client went away: nothing left to answer (as serve)
    except* OSError as group:  # the SDK's stdio transport (a full disk, an I/O error)
        error = _first_leaf(group)
        click.echo(f"fatal: the MCP connection on standard input and output failed: "
                   f"{error.strerror or error}", err=True)
        sys.exit(128)


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group
