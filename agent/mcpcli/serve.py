"""`agent mcp serve`: the agent's workspace tools (agent.mcpcli.toolbox) as an MCP server on
stdin/stdout, for Claude Code, Claude Desktop, Cursor and any other MCP client.

Built on the SDK's low-level `Server` (`tools/list`, `tools/call`): the tools keep their own
names, descriptions and JSON Schemas; a result is one text content (and an image content when
read_file read an image), an error an `isError` result with the usual message — an unknown
tool, bad arguments or a denied call never ends the server, and neither does a malformed
line: it gets a JSON-RPC error (agent.mcpcli.stdin). While it serves, the protocol has stdout
to itself: the SDK points fd 1 at stderr, where notices (denials, a missing sandbox) go too,
and fd 0 at /dev/null, so commands read an empty stdin.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import sys
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from agent import __version__
from agent.base.events import Event, Notice, PermissionDenied, ToolEnd, ToolStart
from agent.base.record import Tool, ToolResult
from agent.config.load import Config
from agent.mcpcli.stdin import GuardedStdin, claimed
from agent.mcpcli.toolbox import Toolbox, build

log = logging.getLogger("agent.mcpcli")


class StderrSink:
    """The events of served calls, as lines on stderr (a client shows or logs them)."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose

    def emit(self, event: Event) -> None:
        if isinstance(event, PermissionDenied):
            line = f"denied {event.name}: {event.reason}"
        elif isinstance(event, Notice):
            line = event.message
        elif self.verbose and isinstance(event, ToolStart):
            line = f"→ {event.name} {event.args}"
        elif self.verbose and isinstance(event, ToolEnd):
            line = f"← {event.name}{' (error)' if event.is_error else ''} {event.duration_ms} ms"
        else:
            return
        print(f"agent mcp serve: {line}", file=sys.stderr, flush=True)


def listing(tool: Tool) -> types.Tool:
    """A tool as `tools/list` shows it, with hints a client uses to decide what to confirm."""
    changes = tool.kind in ("edit", "exec")
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.parameters,
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=changes,
            idempotent_hint=not changes,
            open_world_hint=False,
        ),
    )


def content(result: ToolResult) -> types.CallToolResult:
    """A tool's result as MCP content: its text (the error text for a failed call)."""
    parts: list[types.TextContent | types.ImageContent] = [
        types.TextContent(type="text", text=result.output)
    ]
    if result.image is not None:
        data = base64.b64encode(result.image.data).decode("ascii")
        parts.append(types.ImageContent(type="image", data=data, mime_type=result.image.mime))
    return types.CallToolResult(content=list(parts), is_error=result.is_error)


def instructions(box: Toolbox, cfg: Config) -> str:
    sandbox = box.sandbox.shown_mode
    return (
        f"Coding tools of `agent` working in {cfg.cwd} (permission mode {cfg.permission_mode}, "
        f"sandbox {sandbox}). Calls the agent's permission rules do not allow are denied with "
        "the reason and the rule that would allow them. edit_file and write_file over an "
        "existing file need a read_file of that file through this server first."
    )


def server(box: Toolbox, cfg: Config) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[listing(t) for t in box.tools.values()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await box.call(params.name, params.arguments)
        except Exception as e:  # a bug must answer this call, not end the server
            log.exception("tool call failed")
            result = ToolResult(f"Error: {params.name} failed: {type(e).__name__}: {e}", True)
        return content(result)

    return Server(
        "agent",
        version=__version__,
        instructions=instructions(box, cfg),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(cfg: Config, verbose: bool) -> None:
    box = build(cfg, StderrSink(verbose))
    app = server(box, cfg)
    try:
        with claimed() as wire:
            stdin = GuardedStdin(wire)
            async with (
                stdio_server(stdin=cast(Any, stdin)) as (read, write),
                anyio.create_task_group() as group,
            ):
                group.start_soon(stdin.answer, write)
                await app.run(read, write, app.create_initialization_options())
                group.cancel_scope.cancel()  # the client closed stdin
    finally:
        box.close()


def serve(cfg: Config, verbose: bool = False) -> int:
    """Serve until the client closes stdin (or a signal ends the process); the exit code."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if verbose else logging.WARNING,
        format="agent mcp serve: %(message)s",
    )
    for warning in cfg.warnings:
        print(f"agent mcp serve: {warning}", file=sys.stderr)
    try:
        asyncio.run(_serve(cfg, verbose))
    except KeyboardInterrupt:
        return 130
    return 0
