"""`consolidator mcp`: the Model Context Protocol server (an optional extra, `consolidator[mcp]`).

Layers: `access` (which scopes a server may touch, and the five tools as plain functions over
the planner's API; no SDK), `resources` (the snapshot files as read-only resources; no SDK),
`server` (the only module that imports the `mcp` SDK: tools and resources registered on its
MCPServer, stdio and streamable HTTP, the bearer check). The package is named `mcpserver` so
that it never shadows the SDK's top-level `mcp`.
"""

from __future__ import annotations

import importlib.util

__all__ = ["sdk_missing"]


def sdk_missing() -> str | None:
    """None when the `mcp` SDK can be imported, else the one line that says how to install it."""
    try:
        found = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("mcp.server.mcpserver") is not None
    except (ImportError, ValueError):
        found = False
    return None if found else "the MCP server needs the mcp SDK: pip install 'consolidator[mcp]'"
