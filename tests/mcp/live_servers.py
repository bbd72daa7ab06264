"""What the live MCP tests share: the demo server as a spec or as a process serving HTTP or SSE,
a session of servers, a tool call, a /mcp command, and the no-orphans check (`pids`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest
from helpers import MCP_SERVERS, alive

from agent.base.record import ToolContext
from agent.commands.mcp import mcp_cmd
from agent.commands.registry import Ctx
from agent.mcp.config import ServerSpec
from agent.mcp.manager import Manager
from agent.mcp.tools import McpTools, denied_by

DEMO, SILENT = str(MCP_SERVERS / "demo.py"), str(MCP_SERVERS / "silent.py")


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    """Servers record their pids here; after the test none of them may still run."""
    d = tmp_path / "pids"
    d.mkdir()
    yield d
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(int(p.name)) for p in d.iterdir()):
        time.sleep(0.1)
    assert not [p.name for p in d.iterdir() if alive(int(p.name))], "orphan MCP server"


def demo(pids: Path, name: str = "demo", **kw: Any) -> ServerSpec:
    """The demo server as one the user declared (`own`: its readOnlyHint is believed)."""
    env = {"MCP_DEMO_PIDS": str(pids), **kw.pop("env", {})}
    kw.setdefault("own", True)
    return ServerSpec(name, "stdio", command=sys.executable, args=(DEMO,), env=env, **kw)


def session(
    specs: list[ServerSpec], root: Path, deny: tuple[str, ...] = (), told: list[str] | None = None
) -> McpTools:
    manager = Manager(specs, root)
    manager.start()
    return McpTools(manager, {}, denied_by(list(deny)), None if told is None else told.append)


async def call(mt: McpTools, tool: str, /, ctx: ToolContext | None = None, **args: Any) -> Any:
    return await mt.tools[tool].run(args, ctx or ToolContext(cwd=Path.cwd()))


async def command(mt: McpTools, args: str) -> str:
    """What `/mcp args` prints."""
    printed: list[str] = []
    console = NS(print=lambda text="", **kw: printed.append(str(text)))
    ctx = Ctx(run=NS(mcp=mt, cfg=NS(no_mcp=False)), console=console, turn=None)  # type: ignore[arg-type]
    await mcp_cmd(ctx, args)
    return "\n".join(printed)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(tmp_path: Path, flag: str, path: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The demo server as its own process (`--http` or `--sse`); yields it and its URL."""
    port = free_port()
    log = (tmp_path / f"{flag.strip('-')}.log").open("wb")
    proc = subprocess.Popen([sys.executable, DEMO, flag, str(port)], stderr=log, stdout=log)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield proc, f"http://127.0.0.1:{port}{path}"
    proc.kill()
    proc.wait()
    log.close()


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    yield from serve(tmp_path, "--http", "/mcp")


@pytest.fixture
def sse_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    yield from serve(tmp_path, "--sse", "/sse")
