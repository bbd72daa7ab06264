"""MCP resources for the model: the `list_mcp_resources` and `read_mcp_resource` tools, and a
`resources/read` result as text and images.

Both tools only read what the servers offer: kind "read", read-only (no prompt, allowed in
plan mode, run concurrently) — except that a read sends the model's URI to the server, so while
a server the user did not declare (a repository's, ServerSpec.own) offers resources, reads are
asked about like that server's tools. A read's target is its server
(`Target("server", "server")`), judged here like that server's tools: a rule naming the tool,
whole (`read_mcp_resource`) or per server (`read_mcp_resource(github)`, a glob of servers), and
the server's whole-server rules (`mcp__github`, `mcp__*`) deny or ask for it. A server whose
tools a neverAllow rule hides whole (`mcp__github`) has its resources left out of the listing.
The tools are offered only while some server has resources (agent.mcp.tools).
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.base.args import ArgError, Args, arg
from agent.base.record import Image, Target, Tool, ToolContext, ToolResult, cap, error
from agent.mcp.catalog import sanitize
from agent.mcp.results import Failed, size_text, textual
from agent.permissions.decide import register
from agent.permissions.facts import Facts
from agent.permissions.paths import Workspace
from agent.permissions.rules import RuleSet
from agent.tools.files.images import MAX_BYTES, MAX_SIDE, dimensions

if TYPE_CHECKING:
    from agent.mcp.manager import Manager

LIST, READ = "list_mcp_resources", "read_mcp_resource"
MAX_LISTED = 500  # resources in one listing
_MORE = "read it in parts if the server offers narrower resources (see list_mcp_resources)"


def contents(result: Any, room: int, images: bool, limit: int = 1) -> tuple[str, list[Image]]:
    """A `resources/read` result: its text cut to `room`, and up to `limit` images for a model
    that takes `images` (other binary content described)."""
    items = list(getattr(result, "contents", None) or [])
    parts: list[str] = []
    found: list[Image] = []
    for c in items:
        uri, mime = str(getattr(c, "uri", "")), getattr(c, "mime_type", None) or ""
        text, blob = getattr(c, "text", None), getattr(c, "blob", None) or ""
        head = f"[{uri}{f' ({mime})' if mime else ''}]\n" if len(items) > 1 else ""
        if text is None and textual(mime):
            text = _decoded(blob).decode("utf-8", errors="replace")
        if text is not None:
            parts.append(head + text)
            continue
        why = "binary content, not shown"
        if mime.startswith("image/"):
            why = "this model does not take images" if not images else "too many images"
            got = _image(_decoded(blob), mime, uri) if images and len(found) < limit else why
            if isinstance(got, Image):
                found.append(got)
                parts.append(f"[image {uri}: {got.width}×{got.height}, attached]")
                continue
            why = got
        parts.append(f"[{uri}: {mime or 'unknown type'}, {size_text(blob)}; {why}]")
    text = "\n\n".join(parts) if parts else "(the resource is empty)"
    return cap(text, room, how_to_see_more=_MORE), found


def _decoded(blob: str) -> bytes:
    try:
        return base64.b64decode(blob, validate=False)
    except (binascii.Error, ValueError):
        return b""


def _image(data: bytes, mime: str, name: str) -> Image | str:
    seen = dimensions(data)
    if seen is None:
        return f"not a readable {mime} image"
    _, w, h = seen
    if len(data) > MAX_BYTES or max(w, h) > MAX_SIDE:
        return f"too large to send ({w}×{h}, over {MAX_SIDE} px or {MAX_BYTES >> 20} MB)"
    return Image(mime, data, name, w, h)


def listing(manager: Manager, hidden: Callable[[str], bool], server: str = "") -> ToolResult:
    """What list_mcp_resources answers: one line per resource or template, by server."""
    names = [n for n in manager.conns if not hidden(n)]
    if server and server not in names:
        return _unknown(server, names)
    lines: list[str] = []
    for name in [server] if server else names:
        st = manager.conns[name].state
        if st.status != "connected" and (server or st.resources):
            lines.append(f"{name}: {st.status}{f' ({st.error})' if st.error else ''}")
        for r in st.resources:
            kind = "template " if r.template else ""
            about = ": ".join(x for x in (r.name, r.description) if x and x != r.uri)
            mime = f" ({r.mime})" if r.mime else ""
            lines.append(f"{name}: {kind}{r.uri}{mime}{f' — {about}' if about else ''}")
    if len(lines) > MAX_LISTED:
        lines = [*lines[:MAX_LISTED], f"… {len(lines) - MAX_LISTED} more (name a server)"]
    if not lines:
        return ToolResult("(no resources)")
    head = "Resources (server: uri); fill a template's {parameters} to read it:\n"
    return ToolResult(head + "\n".join(lines))


async def read(manager: Manager, server: str, uri: str, ctx: ToolContext) -> ToolResult:
    """What read_mcp_resource answers: the text, and an image for a model that takes them."""
    try:
        result = await manager.read_resource(server, uri)
    except Failed as e:
        return e.result
    text, images = contents(result, ctx.result_room, ctx.images)
    image = images[0] if images else None
    return ToolResult(text, image=image, display=f"{READ} {server}:{uri}")


def _unknown(server: str, names: list[str]) -> ToolResult:
    return error(
        f"no MCP server {server!r}",
        can_retry=True,
        hint=f"servers: {', '.join(names) or 'none'}; list_mcp_resources shows their resources",
    )


SERVER = "the MCP server's name"


class ListArgs(Args, closed=False):
    server: str = arg("", SERVER)


class ReadArgs(Args, closed=False):
    server: str = arg(doc=SERVER)
    uri: str = arg(doc="the resource's URI (a template's filled in)")


def tools(manager: Manager, hidden: Callable[[str], bool]) -> list[Tool]:
    """The two resource tools of a session whose servers offer resources."""

    async def list_run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return listing(manager, hidden, ListArgs.parse(args).server)
        except ArgError as e:
            return e.result()

    async def read_run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            a = ReadArgs.parse(args)
        except ArgError as e:
            return e.result()
        names = [n for n in manager.conns if not hidden(n)]
        if a.server not in names:
            return _unknown(a.server, names)
        return await read(manager, a.server, a.uri, ctx)

    list_params, read_params = ListArgs.schema(), ReadArgs.schema()
    # a URI the model chose goes to the server: unasked only when every server is the user's
    trusted = all(c.spec.own for c in manager.conns.values() if c.state.resources)
    return [
        Tool(LIST, LIST_TEXT, list_params, list_run, read_only=True, kind="read"),
        Tool(READ, READ_TEXT, read_params, read_run, read_only=trusted, kind="read",
             target=Target("server", "server")),
    ]  # fmt: skip


LIST_TEXT = (
    "List the resources (files, records, documents…) the connected MCP servers offer, with "
    "their URIs; templates show {parameters} to fill in. Optionally for one `server`."
)
READ_TEXT = "Read one resource of an MCP server by its URI (see list_mcp_resources)."


def _judge(rs: RuleSet, tool: Tool, args: dict[str, Any], ws: Workspace) -> Facts:
    """A resource read: the tool's own rules (a specifier names servers), then the server's
    whole-server rules, as for its tools."""
    server = str(args.get("server", ""))
    f = Facts(read_only=tool.read_only, target=f"{server}: {args.get('uri', '')}")
    f.suggest = [f"{tool.name}({server})" if server else tool.name]
    for kind in ("deny", "ask", "allow"):
        own = [
            r
            for r in rs.for_tool(kind, tool.name)
            if r.spec is None or fnmatch.fnmatchcase(server, r.spec)
        ]
        hit = next(iter(own + rs.for_tool(kind, f"mcp__{sanitize(server)}")), None)
        setattr(f, kind, hit.text if hit else "")
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    return f


register("server", _judge)  # the permission layer judges read_mcp_resource calls through this
