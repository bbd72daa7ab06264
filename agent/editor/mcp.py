"""The MCP servers an editor passes with `session/new`, as `mcpServers` entries: they are the
user's own choice (like their settings), merged with the project's under the trust rules."""

from __future__ import annotations

from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer


def editor_servers(servers: list[Any]) -> tuple[dict[str, Any], list[str]]:
    """(name -> settings entry, notes on the ones left out)."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    for server in servers:
        if isinstance(server, McpServerStdio):
            out[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {v.name: v.value for v in server.env},
            }
        elif isinstance(server, (HttpMcpServer, SseMcpServer)):
            headers = {h.name: h.value for h in server.headers}
            out[server.name] = {"type": server.type, "url": server.url, "headers": headers}
        else:
            name = getattr(server, "name", "?")
            notes.append(f"MCP server {name!r} from the editor: unsupported transport")
    return out, notes
