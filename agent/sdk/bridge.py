"""The program's own MCP servers (`"type": "sdk"` in --mcp-config: an SDK's
`create_sdk_mcp_server`), reached through it: each JSON-RPC message of the agent's MCP client
goes out as an `mcp_message` control request, and its `mcp_response` comes back.

The MCP client runs on its own event loop (agent.mcp.manager); the channel lives on the
session's: a message crosses as a concurrent future."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import Any

from agent.sdk.channel import Channel

MESSAGE_WAIT = 600.0  # seconds one request to a program's server may take (a tool call)


class ProgramServers:
    """agent.mcp.transports.Bridge over the SDK's channel."""

    def __init__(self, channel: Channel, loop: asyncio.AbstractEventLoop) -> None:
        self.channel, self.loop = channel, loop

    def send(self, server: str, message: dict[str, Any]) -> Future[dict[str, Any] | None]:
        return asyncio.run_coroutine_threadsafe(self._send(server, message), self.loop)

    async def _send(self, server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        body = {"subtype": "mcp_message", "server_name": server, "message": message}
        answer = await self.channel.request(body, MESSAGE_WAIT)
        response = answer.get("mcp_response")
        return response if isinstance(response, dict) else None
