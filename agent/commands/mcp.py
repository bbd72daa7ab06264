"""/mcp: the session's MCP servers — status, what they offer (tools, resources, prompts), last
error, log — and reconnecting one.

`server_lines`, `detail_lines` and `reconnect` are plain functions any UI can use; importing this
module registers the `/mcp` command (agent.commands loads it when present).
"""

from __future__ import annotations

from agent.commands.mcp_login import auth_command
from agent.commands.registry import Ctx, command
from agent.mcp.prompts import usage
from agent.mcp.tools import McpTools

MARKS = {"connected": "✓", "pending": "…", "failed": "✗", "timeout": "✗", "closed": "-"}
SHOWN = {"pending": "connecting"}  # a status as /mcp says it
MAX_SHOWN = 30  # resources or prompts of one server in `/mcp <server>`


def server_lines(mcp: McpTools) -> list[str]:
    """One line per server: mark, name, status, tool (resource, prompt) counts, last error."""
    lines = []
    for s in mcp.statuses():
        status = SHOWN.get(s["status"], s["status"])
        line = f"{MARKS.get(s['status'], '?')} {s['name']}: {status} · {s['tools']} tools"
        for kind in ("resources", "prompts"):
            line += f" · {s[kind]} {kind}" if s.get(kind) else ""
        if s.get("error") and s["status"] != "connected":
            line += f" · {s['error']}"
        lines.append(line)
    return lines


def detail_lines(mcp: McpTools, name: str) -> list[str]:
    """One server: how it is reached, its log file, its tools under their registry names."""
    conn = mcp.manager.conns[name]
    spec = conn.spec
    how = spec.url if spec.url else " ".join([spec.command, *spec.args])
    st = conn.state
    status = SHOWN.get(st.status, st.status)
    out = [f"{name} ({spec.transport}): {status}", f"  {how}", f"  log: {conn.log_path}"]
    if st.error:
        out.append(f"  last error: {st.error}")
    shown = {tool: reg for reg, (srv, tool) in mcp.names.items() if srv == name}
    # the server's own claim counts only for a server the user declared (agent.mcp.tools)
    claim = " (read-only)" if spec.own else " (calls itself read-only: asked about)"
    for info in st.tools:
        ro = claim if info.read_only else ""
        out.append(f"  {shown.get(info.name, '(not offered yet)')}{ro}: {info.description[:80]}")
    return out + _offered(mcp, name)


def _offered(mcp: McpTools, name: str) -> list[str]:
    """A server's resources (as `@` mentions them) and prompts (as commands)."""
    out = []
    resources = [(m, about) for m, about in mcp.mentionable() if m.startswith(f"{name}:")]
    if resources:
        out.append(f"  resources (mention as @{name}:<uri>):")
        out += [f"    @{m}{f' — {about}' if about else ''}" for m, about in resources[:MAX_SHOWN]]
    prompts = [(cmd, p) for cmd, server, p in mcp.prompts() if server == name]
    if prompts:
        out.append("  prompts (run as commands):")
        out += [f"    /{cmd} {usage(p)}".rstrip() for cmd, p in prompts[:MAX_SHOWN]]
    more = max(len(resources), len(prompts)) - MAX_SHOWN
    return out + ([f"    … and more ({more})"] if more > 0 else [])


async def reconnect(mcp: McpTools, name: str) -> str:
    """Restart one server and wait until it settles; its tools change at the next turn."""
    s = await mcp.manager.reconnect(name)
    text = f"{name}: {s['status']} · {s['tools']} tools"
    return text + (f" · {s['error']}" if s.get("error") else "")


@command("mcp", usage="[<server> | reconnect <server> | login <server> | logout <server>]")
async def mcp_cmd(ctx: Ctx, args: str) -> None:
    """List MCP servers (status, tools, last error); show one; reconnect one; log in or out of
    one (OAuth, HTTP and SSE servers)."""
    mcp = getattr(ctx.run, "mcp", None)
    if mcp is None:
        why = " (started with --no-mcp)" if getattr(ctx.cfg, "no_mcp", False) else ""
        ctx.say(f"no MCP servers{why}: declare them in mcpServers (settings or .mcp.json)")
        return
    words = args.split()
    names = list(mcp.manager.conns)
    if words[:1] in (["login"], ["logout"]):
        await auth_command(ctx, mcp, words)
        return
    if words[:1] == ["reconnect"]:
        if len(words) < 2 or words[1] not in names:
            ctx.say(f"usage: /mcp reconnect <server> — servers: {', '.join(names)}", "yellow")
            return
        ctx.say(f"reconnecting {words[1]} …", "dim")
        ctx.say(await reconnect(mcp, words[1]))
        ctx.say("its tools are updated at the start of the next turn", "dim")
    elif words:
        if words[0] not in names:
            ctx.say(f"no MCP server {words[0]!r} — servers: {', '.join(names)}", "yellow")
            return
        for line in detail_lines(mcp, words[0]):
            ctx.say(line)
    else:
        for line in server_lines(mcp):
            ctx.say(line)
