"""The MCP servers an editor passes with session/new, as the settings entries they become."""

from __future__ import annotations

from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

from agent.editor.mcp import editor_servers


def test_each_transport_becomes_a_settings_entry() -> None:
    servers = [
        McpServerStdio(name="time", command="uvx", args=["mcp-server-time"],
                       env=[EnvVariable(name="TZ", value="UTC")]),
        HttpMcpServer(type="http", name="docs", url="https://docs.example/mcp",
                      headers=[HttpHeader(name="Authorization", value="Bearer x")]),
        SseMcpServer(type="sse", name="events", url="http://localhost:8931/sse", headers=[]),
    ]  # fmt: skip
    entries, notes = editor_servers(servers)
    assert notes == []
    assert entries == {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
        "docs": {
            "type": "http",
            "url": "https://docs.example/mcp",
            "headers": {"Authorization": "Bearer x"},
        },
        "events": {"type": "sse", "url": "http://localhost:8931/sse", "headers": {}},
    }
