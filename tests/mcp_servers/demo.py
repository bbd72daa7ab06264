"""A test MCP server built with the SDK's high-level MCPServer: stdio by default, `--http PORT`.

Tools: echo (text), fail (an error result), image / audio / resource (non-text content), big (a
long text), hang (never answers in time), crash (the process exits mid-call), grow (adds a tool
and sends tools/list_changed), header (an HTTP request header), peek (read-only, annotated).
`MCP_DEMO_MARKER=path` makes the server create that file on start, so a test can tell whether it
was ever started; `MCP_DEMO_PIDS=dir` records its pid there (orphan checks).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Audio, Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import EmbeddedResource, TextContent, TextResourceContents, ToolAnnotations

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)

server = MCPServer("demo")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Always fails with the given message.")
def fail(message: str = "it broke") -> str:
    raise ToolError(message)


@server.tool(description="Return a tiny PNG image and a caption.", structured_output=False)
def image() -> list[TextContent | Image]:
    return [TextContent(type="text", text="a 1x1 pixel"), Image(data=PNG, format="png")]


@server.tool(description="Return a short WAV clip.")
def audio() -> Audio:
    return Audio(data=b"RIFF" + bytes(60), format="wav")


@server.tool(description="Return an embedded text resource.")
def resource() -> EmbeddedResource:
    contents = TextResourceContents(
        uri="file:///notes.md", mime_type="text/markdown", text="# Notes"
    )
    return EmbeddedResource(type="resource", resource=contents)


@server.tool(description="Return a long text.")
def big(size: int = 50_000) -> str:
    return "x" * size


@server.tool(description="Sleep for a long time.")
async def hang(seconds: float = 3600) -> str:
    await anyio.sleep(seconds)
    return "woke up"


@server.tool(description="Exit the server process in the middle of the call.")
def crash() -> str:
    print("demo server: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(description="Add a tool named `name` and tell the client the list changed.")
async def grow(name: str, ctx: Context) -> str:
    def added() -> str:
        return f"I am {name}"

    server.add_tool(added, name=name, description=f"A tool added at run time: {name}")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool(description="Return one request header (HTTP only).")
def header(name: str, ctx: Context) -> str:
    return (ctx.headers or {}).get(name.lower(), "(absent)")


@server.tool(description="Read-only lookup.", annotations=ToolAnnotations(read_only_hint=True))
def peek(key: str = "a") -> str:
    return f"value of {key}"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int, metavar="PORT")
    args = p.parse_args()
    marker = os.environ.get("MCP_DEMO_MARKER")
    if marker:
        Path(marker).write_text("started")
    pids = os.environ.get("MCP_DEMO_PIDS")  # a directory: one file per running server
    if pids:
        (Path(pids) / str(os.getpid())).write_text("")
    print("demo server: starting", file=sys.stderr, flush=True)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
