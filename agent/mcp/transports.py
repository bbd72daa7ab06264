"""Opening a server's transport: streamable HTTP, SSE (with OAuth where the server wants it)
or a stdio child process."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config.providers import model_key_names
from agent.mcp.config import ServerSpec

if TYPE_CHECKING:
    from agent.sandbox.runtime import Sandbox

SSE_IDLE = 24 * 3600.0  # seconds an SSE stream may stay quiet (an idle session is not dead)


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
    if s.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(s.url, s.headers, timeout=s.timeout, sse_read_timeout=SSE_IDLE, auth=auth)
    from mcp.client.stdio import StdioServerParameters, stdio_client

    hidden = model_key_names()  # never handed to servers
    env = {k: v for k, v in os.environ.items() if k not in hidden} | s.env
    cwd = root / s.cwd if s.cwd else None
    argv = [s.command, *s.args]
    if box is not None:
        argv = box.wrap(argv, cwd or root)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
    return stdio_client(params, errlog=log)
