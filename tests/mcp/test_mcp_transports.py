"""MCP over the network transports and the session's robustness: the demo server over SSE (with
`${ENV}` headers) and streamable HTTP offering resources and prompts, a server killed
mid-session (one restart, then failed), and a server that never answers delaying neither the
first turn nor more than its own timeout."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from live_servers import DEMO, SILENT, call, command, http_server, pids, session, sse_server

from agent.config.view import Settings
from agent.mcp.config import load_specs
from agent.mcp.prompts import as_turn
from agent.mcp.tools import McpTools

__all__ = ["http_server", "pids", "sse_server"]  # fixtures

Server = tuple[subprocess.Popen[bytes], str]


def _session(tmp_path: Path, entry: dict[str, object]) -> McpTools:
    specs, warnings = load_specs(Settings({"mcpServers": {"web": entry}}), {"TOKEN": "t0ken"})
    assert not warnings
    return session(specs, tmp_path)


async def _offers(mt: McpTools) -> None:
    """Resources and prompts answer over this transport as over stdio."""
    read = await call(mt, "read_mcp_resource", server="web", uri="demo://greeting/net")
    assert read.output == "Hello, net!"
    prompt = await mt.manager.get_prompt("web", "review", {"code": "x = 1"})
    assert as_turn(prompt) == "Please review this python code:\nx = 1"


async def test_sse_transport_with_headers_and_a_dead_server(
    tmp_path: Path, sse_server: Server
) -> None:
    proc, url = sse_server
    # a 120 s connect timeout: a restart that hung on the dead server would show
    entry = {"type": "sse", "url": url, "headers": {"X-Token": "${TOKEN}"}, "timeout": 120}
    mt = _session(tmp_path, entry)
    try:
        mt.wait()
        assert mt.sync()
        assert mt.statuses()[0]["status"] == "connected"
        assert (await call(mt, "mcp__web__header", name="X-Token")).output == "t0ken"
        assert (await call(mt, "mcp__web__echo", text="over sse")).output == "echo: over sse"
        await _offers(mt)
        assert (await command(mt, "web")).startswith(f"web (sse): connected\n  {url}\n")
        proc.kill()
        proc.wait()
        t0 = time.monotonic()
        dead = await call(mt, "mcp__web__echo", text="anyone?")
        assert dead.is_error and "'web'" in dead.output
        for _ in range(600):  # the loss is seen at once (a busy machine: in a moment)
            if mt.statuses()[0]["status"] == "failed":
                break
            await asyncio.sleep(0.05)
        # the one restart is tried by the next call, and fails: the server is gone
        again = await call(mt, "mcp__web__echo", text="x")
        assert again.is_error and "not connected (failed" in again.output
        assert time.monotonic() - t0 < 45  # refused at once, not the restart's 120 s timeout
        said = await command(mt, "")
        assert said.startswith("✗ web: failed · 11 tools · 5 resources · 3 prompts · ")
    finally:
        await mt.aclose()


async def test_streamable_http_resources_and_prompts(tmp_path: Path, http_server: Server) -> None:
    _, url = http_server
    mt = _session(tmp_path, {"type": "http", "url": url})
    try:
        mt.wait()
        mt.sync()
        await _offers(mt)
    finally:
        await mt.aclose()


def _home(tmp_path: Path, pids: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose settings declare the demo server and two that never answer: "dead" (its
    connect timeout 3 s) and "mute" (120 s: still connecting for the whole test)."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".agent").mkdir(parents=True)
    proj.mkdir()
    monkeypatch.setenv("HOME", str(home))
    demo = {"command": sys.executable, "args": [DEMO], "env": {"MCP_DEMO_PIDS": str(pids)}}
    dead = {"command": sys.executable, "args": [SILENT], "timeout": 3}
    mute = {"command": sys.executable, "args": [SILENT], "timeout": 120}
    servers = {"demo": demo, "dead": dead, "mute": mute}
    settings = {"mcpServers": servers, "tools": {"images": True}}
    (home / ".agent" / "settings.json").write_text(json.dumps(settings))
    return proj


async def test_first_turn_and_mentions_with_a_silent_server(
    fake: FakeOpenAI, tmp_path: Path, pids: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags
    from agent.ui.startup import configure

    proj = _home(tmp_path, pids, monkeypatch)
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    t0 = time.monotonic()
    run = build(configure(Flags(), env, proj), Recorder())
    assert run.mcp is not None
    conns = run.mcp.manager.conns
    try:
        fake.script(text("hello"), text("noted"), text("nothing there"))
        await run.turn("hi")
        # No server was waited for: the one that never answers is still connecting, and the
        # turn took far less than its 120 s.
        assert conns["mute"].state.status == "pending"
        assert time.monotonic() - t0 < 45
        assert conns["demo"].settled.wait(20)
        await run.turn("look at @demo:demo://notes and @demo:demo://logo.png")
        sent = fake.requests[1]["messages"][-1]["content"]
        assert sent[0]["text"].endswith(
            '<resource server="demo" uri="demo://notes">\n# Notes\nthe password is swordfish\n'
            '</resource>\n\n<resource server="demo" uri="demo://logo.png">\n'
            "[image demo://logo.png: 1×1, attached]\n</resource>"
        )
        assert sent[1]["image_url"]["url"].startswith("data:image/png;base64,")
        offered = {t["function"]["name"] for t in fake.requests[1]["tools"]}
        assert {"list_mcp_resources", "read_mcp_resource", "mcp__demo__echo"} <= offered
        t1 = time.monotonic()
        await run.turn("and @dead:x://y?")  # waits for it, at most its timeout (3 s)
        assert time.monotonic() - t1 < 45  # bounded by it, not held up for ever
        said = fake.requests[2]["messages"][-1]["content"]
        # Waited for until its timeout came: not "still connecting", "timeout"
        assert "(not attached: the MCP server 'dead' is not connected (timeout: no answer" in said
        assert conns["mute"].state.status == "pending"  # a mention waits only for its server
    finally:
        await run.mcp.aclose()
        await run.agent.llm.aclose()
