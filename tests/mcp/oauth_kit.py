"""What the OAuth tests share: the OAuth demo server (tests/mcp_servers/oauth_demo.py) in a
subprocess, a scripted browser, a manager on one server spec, `/mcp …` as the REPL runs it."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from helpers import MCP_SERVERS

from agent.commands.mcp import mcp_cmd
from agent.commands.registry import Ctx
from agent.mcp.config import ServerSpec
from agent.mcp.manager import Manager
from agent.mcp.tokens import TokenFile
from agent.mcp.tools import McpTools, denied_by

OAUTH_DEMO = str(MCP_SERVERS / "oauth_demo.py")
LOGIN_NEEDED = "authorization required: run /mcp login web in an interactive session (agent)"
REFUSED = (
    "the saved login was refused or has expired: run /mcp login web in an interactive session "
    "(agent)"
)


@contextmanager
def oauth_server(tmp: Path, *flags: str) -> Iterator[str]:
    """The demo server running (`--sse`: SSE at /sse, else streamable HTTP at /mcp): its base."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    log = (tmp / f"oauth-{port}.log").open("wb")
    proc = subprocess.Popen([sys.executable, OAUTH_DEMO, str(port), *flags], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{base}/stats", timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.kill()
        proc.wait()
        log.close()


def post(url: str) -> None:
    urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5).close()


def grants(base: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{base}/stats", timeout=5) as r:
        return dict(json.load(r)["grants"])


def browse(url: str) -> bool:
    """What the browser does for a user who approves at once: load the authorization page,
    follow its redirect to the agent's loopback listener. Returns True like webbrowser.open."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.netloc, timeout=5)
    conn.request("GET", f"{parts.path}?{parts.query}")
    answer = conn.getresponse()
    assert answer.status == 302, answer.status
    back = answer.getheader("Location") or ""
    conn.close()
    assert back.startswith("http://127.0.0.1:") and "/callback?" in back
    with urllib.request.urlopen(back, timeout=5) as page:
        assert b"Logged in" in page.read()
    return True


async def browse_async(url: str) -> None:
    await asyncio.to_thread(browse, url)


def spec(base: str, **kw: Any) -> ServerSpec:
    kw.setdefault("url", f"{base}/mcp")
    return ServerSpec("web", kw.pop("transport", "http"), timeout=15, **kw)


def session(s: ServerSpec, root: Path) -> McpTools:
    manager = Manager([s], root)
    manager.start()
    return McpTools(manager, {}, denied_by([]))


async def slash(mt: McpTools, args: str, say: Any = None) -> list[str]:
    """`/mcp args` on this session: what it printed (`say`: also called with each line)."""
    printed: list[str] = []

    def out(text: Any = "", **kw: Any) -> None:
        printed.append(str(text))
        if say is not None:
            say(str(text))

    ctx = Ctx(run=NS(mcp=mt, cfg=NS(no_mcp=False)), console=NS(print=out), turn=None)  # type: ignore[arg-type]
    await mcp_cmd(ctx, args)
    return printed


def stored(s: ServerSpec) -> dict[str, Any]:
    return TokenFile(s.name, s.url).load()
