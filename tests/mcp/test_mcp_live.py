"""MCP against real servers in-process: the SDK-built demo server over stdio and streamable HTTP,
a server that never answers, one that crashes, one that changes its tool list; no orphans."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import alive
from live_servers import DEMO, SILENT, call, demo, http_server, pids, session
from live_servers import command as _command

from agent.base.record import ToolContext
from agent.commands.mcp import detail_lines, server_lines
from agent.config.statedir import project_state
from agent.config.view import Settings
from agent.context.spill import SPILL_ROOM, Spill
from agent.mcp.config import ServerSpec, load_specs
from agent.mcp.tools import RESOURCE_TOOLS, McpTools

__all__ = ["http_server", "pids"]  # fixtures


async def test_stdio_tools_results_and_timeouts(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids, tool_timeout=1)], tmp_path, deny=("mcp__demo__audio",))
    try:
        mt.wait()
        assert mt.statuses() == [
            {"name": "demo", "status": "connected", "tools": 11, "resources": 5, "prompts": 3}
        ]
        names = list(mt.tools)
        assert names[0] == "mcp__demo__echo" and "mcp__demo__audio" not in names  # denied
        echo = mt.tools["mcp__demo__echo"]
        assert echo.description == "[MCP server demo] Echo the text back."
        assert echo.parameters["properties"]["text"]["type"] == "string"
        read_only = [n for n, t in mt.tools.items() if t.read_only]
        assert read_only == ["mcp__demo__peek", *RESOURCE_TOOLS]  # the resource tools last
        assert (await call(mt, "mcp__demo__echo", text="hi")).output == "echo: hi"
        fail = await call(mt, "mcp__demo__fail", message="no disk")
        assert fail.is_error and "no disk" in fail.output
        image = (await call(mt, "mcp__demo__image")).output
        assert image == "a 1x1 pixel\n[image: image/png, 67 bytes; not shown to the model]"
        res = (await call(mt, "mcp__demo__resource")).output
        assert res == "[resource file:///notes.md (text/markdown)]\n# Notes"
        big = (await call(mt, "mcp__demo__big")).output
        assert len(big) <= 12_000 and "characters cut" in big
        # When the loop saves long results to the session folder, all of it comes back.
        whole = await mt.tools["mcp__demo__big"].run(
            {}, ToolContext(Path.cwd(), result_room=SPILL_ROOM)
        )
        assert len(whole.output) >= 50_000 and "characters cut" not in whole.output
        spilled = Spill(lambda stem, t: tmp_path / f"out-{stem}.txt").keep("mcp__demo__big", whole)
        assert (
            len(spilled.output) < 5_000 and f"{tmp_path}/out-mcp__demo__big.txt" in spilled.output
        )
        t0 = time.monotonic()
        hang = await call(mt, "mcp__demo__hang")  # it sleeps for an hour
        assert hang.is_error and "did not answer within 1s" in hang.output
        assert time.monotonic() - t0 < 30
        assert (await call(mt, "mcp__demo__echo", text="still")).output == "echo: still"
        log = project_state(tmp_path) / "mcp-demo.log"
        assert log.read_text().count("demo server: starting")
    finally:
        await mt.aclose()


async def test_a_cancelled_call_leaves_the_session_usable(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids)], tmp_path)  # the tool timeout (600 s) never comes first
    try:
        mt.wait()
        interrupted = asyncio.ensure_future(call(mt, "mcp__demo__hang"))  # an hour
        await asyncio.sleep(0.3)  # most likely on its way to the server: cancelled either way
        interrupted.cancel()  # Ctrl-C in the agent cancels the call on the MCP loop
        with pytest.raises(asyncio.CancelledError):
            await interrupted
        assert (await call(mt, "mcp__demo__echo", text="again")).output == "echo: again"
    finally:
        await mt.aclose()


async def _crash(mt: McpTools) -> dict[str, Any]:
    crash = await call(mt, "mcp__demo__crash")
    assert crash.is_error and "closed the connection during the call" in crash.output
    for _ in range(600):  # the loss is seen at once (a busy machine: in a moment)
        if mt.statuses()[0]["status"] == "failed":
            break
        await asyncio.sleep(0.05)
    [status] = mt.statuses()
    assert status["status"] == "failed"
    return status


async def test_crash_restart_once_then_failed_then_reconnect(tmp_path: Path, pids: Path) -> None:
    told: list[str] = []
    mt = session([demo(pids)], tmp_path, told=told)
    try:
        mt.wait()
        assert mt.sync()  # the first tool list reaches the loop
        status = await _crash(mt)
        assert "crashing on purpose" in status["error"]  # the server's last stderr line
        assert not mt.sync()  # the tools stay listed: the request prefix does not change
        assert told == [f"MCP server 'demo' failed: {status['error']} (/mcp for details)"]
        # The next call restarts it (once), and is answered by the new process.
        assert (await call(mt, "mcp__demo__echo", text="x")).output == "echo: x"
        assert mt.statuses()[0]["status"] == "connected"
        assert not mt.sync()  # the same tools: no prefix change
        # It dies again: now it stays failed, and says what to do.
        await _crash(mt)
        after = await call(mt, "mcp__demo__echo", text="x")
        assert after.is_error and "not connected (failed" in after.output
        assert "/mcp reconnect demo" in after.output
        assert server_lines(mt)[0].startswith(
            "✗ demo: failed · 11 tools · 5 resources · 3 prompts · the server closed"
        )
        said = await _command(mt, "reconnect demo")
        assert "demo: connected · 11 tools" in said
        assert (await call(mt, "mcp__demo__echo", text="back")).output == "echo: back"
        details = detail_lines(mt, "demo")
        assert details[0] == "demo (stdio): connected"
        assert any("mcp__demo__peek (read-only)" in line for line in details)
    finally:
        await mt.aclose()


async def test_dead_missing_and_stubborn_servers_do_not_hold_up_start(
    tmp_path: Path, pids: Path
) -> None:
    stubborn = {"MCP_SILENT_STUBBORN": "1", "MCP_SILENT_PIDFILE": str(pids / "stubborn")}
    specs = [
        ServerSpec("dead", "stdio", command=sys.executable, args=(SILENT,), timeout=2),
        ServerSpec(
            "deaf", "stdio", command=sys.executable, args=(SILENT,), env=stubborn, timeout=2
        ),
        ServerSpec("nope", "stdio", command="no-such-mcp-server-xyz"),
        demo(pids),
    ]
    # The first connection imports the SDK on the MCP loop (0.6 s, more on a busy machine),
    # holding back every timer on it: imported here, the two timeouts start together.
    import mcp.client.stdio  # noqa: F401

    mt = session(specs, tmp_path)
    stubborn = pids / "stubborn"
    try:
        # One timeout, not the sum: when the first silent server timed out, the second had
        # started already (its timeout runs alongside, not after).
        assert mt.manager.conns["dead"].settled.wait(30)
        assert stubborn.exists(), "the servers were started one after another"
        mt.wait()
        # Nor the teardown: the stubborn one ignores SIGTERM and is still being stopped (the
        # SDK gives it 2 s to exit on EOF, then 2 s after SIGTERM) when the wait is over.
        assert alive(int(stubborn.read_text())), "the wait included a server's teardown"
        by = {s["name"]: s for s in mt.statuses()}
        assert by["dead"]["status"] == "timeout"
        assert by["deaf"]["status"] == "timeout"
        assert by["dead"]["error"].startswith("no answer to initialize within 2s")
        assert "never answering" in by["dead"]["error"]
        assert by["nope"]["status"] == "failed" and "No such file" in by["nope"]["error"]
        assert by["demo"]["status"] == "connected"
        assert [n for n in mt.tools if not n.startswith("mcp__demo__")] == [*RESOURCE_TOOLS]
        assert await call(mt, "mcp__demo__echo", text="ok")
    finally:
        t1 = time.monotonic()
        await mt.aclose()
    assert time.monotonic() - t1 < 30  # bounded (the stubborn one needs about 4 s)
    _stubborn_is_gone(stubborn)  # SIGKILL, after SIGTERM was ignored


def _stubborn_is_gone(pidfile: Path) -> None:
    assert not alive(int(pidfile.read_text()))
    pidfile.unlink()  # not a pid-named file: the `pids` check would choke on it


async def test_streamable_http_headers_and_server_death(
    tmp_path: Path, http_server: tuple[subprocess.Popen[bytes], str]
) -> None:
    proc, url = http_server
    raw = {"type": "http", "url": url, "headers": {"X-Token": "${TOKEN}"}, "toolTimeout": 2}
    specs, warnings = load_specs(Settings({"mcpServers": {"web": raw}}), {"TOKEN": "t0ken"})
    assert not warnings
    mt = session(specs, tmp_path)
    try:
        mt.wait()
        assert mt.statuses()[0]["status"] == "connected"
        assert (await call(mt, "mcp__web__header", name="X-Token")).output == "t0ken"
        assert (await call(mt, "mcp__web__echo", text="over http")).output == "echo: over http"
        # the same result kinds, timeouts and tool-list changes as over stdio
        fail = await call(mt, "mcp__web__fail", message="no disk")
        assert fail.is_error and "no disk" in fail.output
        image = (await call(mt, "mcp__web__image")).output
        assert image == "a 1x1 pixel\n[image: image/png, 67 bytes; not shown to the model]"
        t0 = time.monotonic()
        hang = await call(mt, "mcp__web__hang")  # it sleeps for an hour
        assert hang.is_error and "did not answer within 2s" in hang.output
        assert time.monotonic() - t0 < 30
        assert (await call(mt, "mcp__web__echo", text="still")).output == "echo: still"
        assert mt.sync()  # the first tool list
        assert (await call(mt, "mcp__web__grow", name="fresh")).output == "added fresh"
        for _ in range(600):  # the notification comes at once (a busy machine: in a moment)
            if mt.sync() or "mcp__web__fresh" in mt.tools:
                break
            await asyncio.sleep(0.05)
        assert "mcp__web__fresh" in mt.tools
        assert (await call(mt, "mcp__web__fresh")).output == "I am fresh"
        proc.kill()
        proc.wait()
        dead = await call(mt, "mcp__web__echo", text="anyone?")
        assert dead.is_error and "web" in dead.output
        for _ in range(600):  # the loss is seen at once (a busy machine: in a moment)
            if mt.statuses()[0]["status"] == "failed":
                break
            await asyncio.sleep(0.05)
        assert mt.statuses()[0]["status"] == "failed"
        again = await call(mt, "mcp__web__echo", text="x")
        assert again.is_error and "not connected" in again.output
    finally:
        await mt.aclose()


def _user_servers(tmp_path: Path, pids: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose settings declare the demo server and a dead one; returns the project."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".agent").mkdir(parents=True)
    proj.mkdir()
    monkeypatch.setenv("HOME", str(home))
    server = {"command": sys.executable, "args": [DEMO], "env": {"MCP_DEMO_PIDS": str(pids)}}
    dead = {"command": sys.executable, "args": [SILENT], "timeout": 60}
    settings = {
        "mcpServers": {"demo": server, "dead": dead},
        "permissions": {"alwaysAllow": ["mcp__demo"]},
    }
    (home / ".agent" / "settings.json").write_text(json.dumps(settings))
    return proj


async def test_list_changed_applies_at_the_next_turn_boundary(
    fake: FakeOpenAI, tmp_path: Path, pids: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags
    from agent.ui.startup import configure

    proj = _user_servers(tmp_path, pids, monkeypatch)
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    t0 = time.monotonic()
    run = build(configure(Flags(), env, proj), Recorder())
    assert time.monotonic() - t0 < 30  # the REPL's build never waits for a server (60 s)
    assert run.mcp is not None
    try:
        dead = run.init_event()["mcp_servers"][0]
        assert dead == {"name": "dead", "status": "pending", "tools": 0}  # not waited for
        assert run.mcp.manager.conns["demo"].settled.wait(20)  # the first turn picks it up
        fake.script(
            tool_calls([("mcp__demo__grow", {"name": "fresh"})]), text("grown"), text("seen")
        )
        await run.agent.run_turn("grow a tool")
        demo = run.mcp.manager.conns["demo"]  # the relist after list_changed, under any load
        for _ in range(200):
            if any(t.name == "fresh" for t in demo.state.tools):
                break
            await asyncio.sleep(0.1)
        await run.agent.run_turn("and now?")
        offered = [{t["function"]["name"] for t in r["tools"]} for r in fake.requests]
        assert "mcp__demo__grow" in offered[0]
        assert "mcp__demo__fresh" not in offered[0] | offered[1]  # not mid-turn
        assert "mcp__demo__fresh" in offered[2]  # at the next turn
        tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
        assert tool_msg["content"] == "added fresh"
    finally:
        await run.mcp.aclose()
        await run.agent.llm.aclose()
