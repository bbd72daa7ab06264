"""Opening a server's transport: streamable HTTP, SSE (with OAuth where the server wants it)
or a stdio child process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.config.envfiles import process_env
from agent.config.providers import model_key_names
from agent.mcp.config import ServerSpec

if TYPE_CHECKING:
    from agent.sandbox.runtime import Sandbox

SSE_IDLE = 24 * 3600.0  # seconds an SSE stream may stay quiet (an idle session is not dead)


class Bridge(Protocol):
    """The program that hosts `"type": "sdk"` servers in its own process (agent.sdk): one
    JSON-RPC message to a server of it, its response (None for a notification) as a future of
    the bridge's own event loop."""

    def send(self, server: str, message: dict[str, Any]) -> Future[dict[str, Any] | None]: ...


BRIDGES: list[Bridge] = []  # set by agent.sdk for its session: at most one per process


async def open_transport(
    s: ServerSpec, root: Path, box: Sandbox | None, log: Any, stack: contextlib.AsyncExitStack
) -> Any:
    """The transport context of one connection attempt (entered by the caller): streamable HTTP
    or SSE with the server's headers and OAuth, or a stdio child (in `box` when given) whose
    stderr goes to `log` and whose environment lacks the model API keys."""
    if s.transport in ("http", "sse"):
        # deferred: ~870 ms (the mcp SDK's auth, pydantic): only for a server over HTTP
        from agent.mcp.oauth import auth_for  # stored OAuth tokens, refreshed; or a 401 probe

        auth = auth_for(s)
    if s.transport == "http":
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=s.headers, auth=auth)
        http = await stack.enter_async_context(client)
        return streamable_http_client(s.url, http_client=http)
    if s.transport == "sdk":
        if not BRIDGES:
            raise ConnectionError(
                '"type": "sdk" servers live in the program that runs the agent through the '
                "Claude Agent SDK (agent --input-format stream-json)"
            )
        return sdk_transport(s.name, BRIDGES[-1])
    if s.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(s.url, s.headers, timeout=s.timeout, sse_read_timeout=SSE_IDLE, auth=auth)
    from mcp.client.stdio import StdioServerParameters, stdio_client

    hidden = model_key_names()  # never handed to servers
    env = {k: v for k, v in process_env().items() if k not in hidden} | s.env
    cwd = root / s.cwd if s.cwd else None
    argv = [s.command, *s.args]
    if box is not None:
        argv = box.wrap(argv, cwd or root)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
    return stdio_client(params, errlog=log)


@contextlib.asynccontextmanager
async def sdk_transport(name: str, bridge: Bridge) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of an MCP session whose server is `name` in the program at
    the other end of `bridge`: each message the session writes is sent there (concurrently),
    and each response comes back as a message read."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    to_session, read = anyio.create_memory_object_stream[Any](16)
    write, from_session = anyio.create_memory_object_stream[Any](16)

    async def one(message: Any) -> None:
        data = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        try:
            answer = await asyncio.wrap_future(bridge.send(name, data))
        except Exception as e:  # the program failed it: the request fails, the server lives
            if "id" not in data:
                return
            answer = {
                "jsonrpc": "2.0",
                "id": data["id"],
                "error": {"code": -32603, "message": str(e)},
            }
        if answer and "id" in data and ("result" in answer or "error" in answer):
            await to_session.send(SessionMessage(jsonrpc_message_adapter.validate_python(answer)))

    async def pump() -> None:
        async with anyio.create_task_group() as group:
            async for message in from_session:
                group.start_soon(one, message)

    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield read, write
        finally:
            group.cancel_scope.cancel()
