"""A test MCP server built with the SDK's high-level MCPServer: stdio by default, `--http PORT`
(streamable HTTP) or `--sse PORT` (the older SSE transport).

Tools: echo (text), fail (an error result), image / audio / resource (non-text content), big (a
long text), hang (never answers in time), crash (the process exits mid-call), grow (adds a tool,
a resource and a prompt, and says each list changed), header (an HTTP request header), peek
(read-only, annotated).
Resources: demo://notes (text), demo://big (long text), demo://logo.png (an image),
demo://data.bin (binary), demo://greeting/{name} (a template). Prompts: review (a required and
an optional argument), debate (user and assistant messages), crash (the process exits).
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
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, Prompt, UserMessage
from mcp.server.mcpserver.resources.types import TextResource
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

    def prompt() -> str:
        return f"the {name} prompt"

    server.add_tool(added, name=name, description=f"A tool added at run time: {name}")
    uri = f"demo://grown/{name}"
    server.add_resource(TextResource(uri=uri, name=name, text=f"grown {name}"))  # type: ignore[arg-type]
    server.add_prompt(Prompt.from_function(prompt, name=name))
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_prompt_list_changed()
    return f"added {name}"


@server.tool(description="Return one request header (HTTP only).")
def header(name: str, ctx: Context) -> str:
    return (ctx.headers or {}).get(name.lower(), "(absent)")


@server.tool(description="Read-only lookup.", annotations=ToolAnnotations(read_only_hint=True))
def peek(key: str = "a") -> str:
    return f"value of {key}"


@server.resource("demo://notes", name="Notes", description="The team's notes.",
                 mime_type="text/markdown")  # fmt: skip
def notes() -> str:
    return "# Notes\nthe password is swordfish"


@server.resource("demo://big", mime_type="text/plain")
def big_text() -> str:
    return "y" * 80_000


@server.resource("demo://logo.png", name="Logo", mime_type="image/png")
def logo() -> bytes:
    return PNG


@server.resource("demo://data.bin", mime_type="application/octet-stream")
def data() -> bytes:
    return bytes(range(256)) * 4


@server.resource("demo://greeting/{name}", name="Greeting", description="A greeting.")
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@server.prompt(description="Review a piece of code.")
def review(code: str, language: str = "python") -> str:
    return f"Please review this {language} code:\n{code}"


@server.prompt(description="Argue both sides.")
def debate(topic: str) -> list[Message]:
    return [
        UserMessage(f"Let us debate {topic}."),
        AssistantMessage("Happy to: which side do I take?"),
        UserMessage("The side against."),
    ]


@server.prompt(description="Exit the server process while the prompt is fetched.", name="crash")
def crash_prompt() -> str:
    print("demo server: crashing in a prompt", file=sys.stderr, flush=True)
    os._exit(3)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int, metavar="PORT")
    p.add_argument("--sse", type=int, metavar="PORT")
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
    elif args.sse:
        server.run("sse", host="127.0.0.1", port=args.sse)
    else:
        server.run()


if __name__ == "__main__":
    main()
