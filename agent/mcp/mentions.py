"""`@server:uri` in a message: the MCP resource attached to it, the way `@path` attaches a file.

`@demo:file:///notes.md` names the resource `file:///notes.md` of the server `demo` (a
template's URI with its parameters filled in reads that resource). The resource's text is
capped like an attached file's; an image goes with the message for a model that takes images;
other binary content is described. A mention of a server that is not configured, or a read
that fails, gets a note in the block instead, never an error. A server still connecting is
waited for (at most its connect timeout): the user asked for it. Mentions are the user's own
action: no permission rule is consulted (as for `@path`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from agent.base.record import Image, ToolContext
from agent.context.mentions import FILE_CHARS, MAX_FILES, mention_words, without_attachments
from agent.mcp.resources import contents
from agent.mcp.results import Failed, reason

if TYPE_CHECKING:
    from agent.mcp.tools import McpTools

MAX_IMAGES = 5  # of the resources of one message
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # what a URI starts with
_WEB = ("http:", "https:", "mailto:")  # `@name:https://…` of no server is someone's link


def named(text: str, servers: list[str], cwd: Path) -> list[tuple[str, str]]:
    """(server, uri) for each `@server:uri` of `text` (not of what is attached to it), in
    order, no repeats; a server that is not configured is kept when the rest is a URI (not a
    web link), to be told so."""
    out: list[tuple[str, str]] = []
    for raw in mention_words(without_attachments(text)):
        server, colon, uri = raw.partition(":")
        if not colon or not uri or _is_file(cwd / raw):
            continue
        unknown = server and _SCHEME.match(uri) and not uri.startswith(_WEB)  # not a link
        if (server in servers or unknown) and (server, uri) not in out:
            out.append((server, uri))
    return out[:MAX_FILES]


def _is_file(path: Path) -> bool:
    """Whether `@word` names a file here rather than a resource: a word too long to be a
    path (ENAMETOOLONG), or otherwise unusable as one, is not a file."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


async def attach_resources(
    text: str, mcp: McpTools | None, ctx: ToolContext
) -> tuple[str, list[Image]]:
    """`text` with a block for each resource it mentions, and their images (for a model
    that takes images)."""
    servers = list(mcp.manager.conns) if mcp is not None else []
    found = named(text, servers, Path(ctx.cwd))
    if not found:
        return text, []
    blocks: list[str] = []
    images: list[Image] = []
    for server, uri in found:
        body, got = await _read(mcp, servers, server, uri, ctx, MAX_IMAGES - len(images))
        images += got
        attrs = f'server="{_attr(server)}" uri="{_attr(uri)}"'
        blocks.append(f"<resource {attrs}>\n{body.rstrip()}\n</resource>")
    return text + "\n\n" + "\n\n".join(blocks), images


async def _read(
    mcp: McpTools | None, servers: list[str], server: str, uri: str, ctx: ToolContext, room: int
) -> tuple[str, list[Image]]:
    if mcp is None or server not in servers:
        known = f"servers: {', '.join(servers)}" if servers else "no MCP servers are configured"
        return f"(not attached: no MCP server {server!r}; {known})", []
    try:
        result = await mcp.manager.read_resource(server, uri, wait=True)
    except Failed as e:
        return f"(not attached: {reason(e.result)})", []
    return contents(result, FILE_CHARS, ctx.images, max(room, 0))


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;")
