"""`git ai-apply mcp`: the library as an MCP server over stdio (mcp_server.py; docs/API.md)."""
from ..mcp_server import mcp_cmd as command  # noqa: F401
