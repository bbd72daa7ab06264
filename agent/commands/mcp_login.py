"""`/mcp login <server>` and `/mcp logout <server>`: OAuth for HTTP and SSE MCP servers.

Login opens the browser at the server's authorization page when there is a display (otherwise
it prints the address), waits for the redirect on a loopback port, stores the tokens (see
agent.mcp.tokens) and reconnects the server, whose tools then join at the next turn. It needs
someone at a terminal: a one-shot run in CI or with JSON output, or an editor, is told how to
log in instead of waiting for a browser nobody will open. Logout deletes the stored tokens and
reconnects, so the server's status says again that it needs a login. `/mcp` (agent.commands.mcp)
routes both words here; the `mcp` SDK is imported only when a login runs.
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from urllib.parse import parse_qs, urlsplit

from agent.commands.registry import Ctx
from agent.mcp.config import ServerSpec
from agent.mcp.loopback import has_display
from agent.mcp.tokens import TokenFile, own_authorization
from agent.mcp.tools import McpTools

WORDS = ("login", "logout")
OAUTH_TRANSPORTS = ("http", "sse")


def interactive(ctx: Ctx) -> bool:
    """Someone can answer: input from a terminal, and what is said reaches one as it is said."""
    out = getattr(ctx.console, "file", None)
    return sys.stdin.isatty() and bool(getattr(out, "isatty", lambda: False)())


async def auth_command(ctx: Ctx, mcp: McpTools, words: list[str]) -> None:
    """`/mcp login <server>` or `/mcp logout <server>`."""
    verb, names = words[0], list(mcp.manager.conns)
    if len(words) < 2 or words[1] not in names:
        ctx.say(f"usage: /mcp {verb} <server> — servers: {', '.join(names)}", "yellow")
        return
    spec = mcp.manager.conns[words[1]].spec
    if spec.transport not in OAUTH_TRANSPORTS:
        ctx.say(f"{spec.name} is a {spec.transport} server: OAuth is for http and sse", "yellow")
        return
    if verb == "logout":
        await logout(ctx, mcp, spec)
    else:
        await login(ctx, mcp, spec)


async def login(ctx: Ctx, mcp: McpTools, spec: ServerSpec) -> None:
    if own_authorization(spec.headers):
        ctx.say(f"{spec.name} sends its own Authorization header (its `headers`): no login")
        return
    if not interactive(ctx):
        ctx.say(
            f"a login needs a browser and someone to use it: run `agent` in a terminal, then "
            f"/mcp login {spec.name}",
            "yellow",
        )
        return
    # deferred: ~870 ms (the mcp SDK's auth, pydantic): only for a login
    from agent.mcp.oauth import LOGIN_TIMEOUT
    from agent.mcp.oauth import login as oauth_login

    async def show(url: str) -> None:
        await present(ctx, url, LOGIN_TIMEOUT)

    ctx.say(f"logging in to {spec.name} ({spec.url}) …", "dim")
    try:
        obtained = await oauth_login(spec, show)
    except Exception as e:  # every failure is told, the session goes on
        ctx.say(f"login to {spec.name} failed: {_why(e)}", "red")
        return
    if not obtained:
        ctx.say(f"{spec.name} did not ask for authorization: nothing to log in to")
        return
    where = TokenFile(spec.name, spec.url).path
    ctx.say(f"logged in to {spec.name}; its tokens are in {where}")
    await _reconnect(ctx, mcp, spec.name)


async def present(ctx: Ctx, url: str, seconds: float) -> None:
    """Open the browser at `url` when there is a display; say the address either way."""
    opened = False
    if has_display():
        try:
            opened = await asyncio.to_thread(webbrowser.open, url)
        except Exception:  # webbrowser.Error, a broken handler: print the address instead
            opened = False
    if opened:
        ctx.say("your browser shows the login page; if it did not open, visit:")
    else:
        ctx.say("open this address in a browser to log in:")
    ctx.say(url)
    port = urlsplit(_redirect_of(url)).port
    if not opened and port:
        ctx.say(
            f"(the page sends the browser back to 127.0.0.1:{port}: on another machine, forward "
            f"it first with `ssh -L {port}:127.0.0.1:{port} <this host>`)",
            "dim",
        )
    ctx.say(f"waiting up to {seconds / 60:g} minutes for the browser …", "dim")


async def logout(ctx: Ctx, mcp: McpTools, spec: ServerSpec) -> None:
    file = TokenFile(spec.name, spec.url)
    try:
        removed = file.remove()
    except OSError as e:
        ctx.say(f"could not remove {file.path}: {e}", "red")
        return
    if not removed:
        ctx.say(f"{spec.name} has no saved login")
        return
    ctx.say(f"logged out of {spec.name}: its tokens are deleted")
    await _reconnect(ctx, mcp, spec.name)


async def _reconnect(ctx: Ctx, mcp: McpTools, name: str) -> None:
    ctx.say(f"reconnecting {name} …", "dim")
    s = await mcp.manager.reconnect(name)
    line = f"{name}: {s['status']} · {s['tools']} tools"
    ctx.say(line + (f" · {s['error']}" if s.get("error") else ""))
    ctx.say("its tools are updated at the start of the next turn", "dim")


def _redirect_of(url: str) -> str:
    values = parse_qs(urlsplit(url).query).get("redirect_uri") or [""]
    return values[0]


def _why(e: BaseException) -> str:
    if isinstance(e, TimeoutError):
        return str(e) or "the server did not answer in time"
    text = str(e) or type(e).__name__
    return text if isinstance(e, OSError) else f"{type(e).__name__}: {text}"
