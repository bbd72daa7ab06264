"""An MCP server with many generated tools, for tool search (issue 46): `many.py N [TOPIC]`
serves N tools `<topic>_<verb>_<i>`, each with a description and two parameters; a call answers
with the tool's name and its arguments. stdio only."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer

VERBS = ("list", "get", "create", "update", "delete", "search", "sync", "archive")


def make(name: str) -> Callable[..., str]:
    def tool(target: str, note: str = "") -> str:
        return f"{name} ran: " + json.dumps({"target": target, "note": note})

    return tool


def build(count: int, topic: str) -> MCPServer:
    server = MCPServer(f"many-{topic}")
    for i in range(count):
        verb = VERBS[i % len(VERBS)]
        name = f"{topic}_{verb}_{i}"
        about = (
            f"{verb.capitalize()} {topic} record number {i}: reads the target by its identifier "
            f"and returns what the {topic} service says about it, with an optional note."
        )
        server.add_tool(make(name), name=name, description=about)
    return server


if __name__ == "__main__":
    args: list[Any] = sys.argv[1:]
    build(int(args[0]) if args else 40, args[1] if len(args) > 1 else "item").run()
