"""/mcp: the session's MCP servers — status, tool counts, last error, log — and reconnecting one.

`server_lines`, `detail_lines` and `reconnect` are plain functions any UI can use; importing this
module registers the `/mcp` command (agent.commands loads it when present).
"""

from __future__ import annotations

from agent.commands.registry import Ctx, command
from agent.mcp.tools import McpTools

MARKS = {"connected": "✓", "pending": "…", "failed": "✗", "timeout": "✗", "closed": "-"}


def server_lines(mcp: McpTools) -> list[str]:
    """One line per server: mark, name, status, tool count, last error."""
    lines = []
    for s in mcp.statuses():
        line = f"{MARKS.get(s['status'], '?')} {s['name']}: {s['status']} · {s['tools']} tools"
        if s.get("error") and s["status"] != "connected":
            line += f" · {s['error']}"
        lines.append(line)
    return lines


def detail_lines(mcp: McpTools, name: str) -> list[str]:
    """One server: how it is reached, its log file, its tools under their registry names."""
    conn = mcp.manager.conns[name]
    spec = conn.spec
    how = spec.url if spec.transport == "http" else " ".join([spec.command, *spec.args])
    st = conn.state
    out = [f"{name} ({spec.transport}): {st.status}", f"  {how}", f"  log: {conn.log_path}"]
    if st.error:
        out.append(f"  last error: {st.error}")
    shown = {tool: reg for reg, (srv, tool) in mcp.names.items() if srv == name}
    for info in st.tools:
        ro = " (read-only)" if info.read_only else ""
        out.append(f"  {shown.get(info.name, '(not offered yet)')}{ro}: {info.description[:80]}")
    return out


async def reconnect(mcp: McpTools, name: str) -> str:
    """Restart one server and wait until it settles; its tools change at the next turn."""
    s = await mcp.manager.reconnect(name)
    text = f"{name}: {s['status']} · {s['tools']} tools"
    return text + (f" · {s['error']}" if s.get("error") else "")


@command("mcp", usage="[<server> | reconnect <server>]")
async def mcp_cmd(ctx: Ctx, args: str) -> None:
    """List MCP servers (status, tools, last error); show one; or reconnect one."""
    mcp = getattr(ctx.run, "mcp", None)
    if mcp is None:
        why = " (started with --no-mcp)" if getattr(ctx.cfg, "no_mcp", False) else ""
        ctx.say(f"no MCP servers{why}: declare them in mcpServers (settings or .mcp.json)")
        return
    words = args.split()
    names = list(mcp.manager.conns)
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
