"""/status, /config and /doctor on a live session against the fake server."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from helpers import command_output as said

from agent import __version__
from agent.commands import doctor
from agent.commands.registry import Ctx
from agent.config.load import Flags

MakeCtx = Callable[..., Ctx]  # the `session` fixture (tests/commands/conftest.py)


def settings(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


# -- /status --------------------------------------------------------------------------------
async def test_status_says_what_the_session_runs_with(
    session: MakeCtx, fake: FakeOpenAI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_API_KEY", "sk-very-secret-value")
    ctx = session(AGENT_API_KEY="sk-very-secret-value")
    shown = await said(ctx, "/status")
    assert f"agent {__version__}" in shown
    assert "model        fake-model" in shown
    assert "provider     custom" in shown
    assert f"endpoint     {fake.base_url}" in shown
    assert "API key      AGENT_API_KEY from the environment" in shown
    assert "sk-very-secret-value" not in shown  # never the key itself
    assert "permissions  default mode" in shown
    assert "sandbox      off" in shown
    assert "trust        not trusted (the project brings no settings" in shown
    assert "MCP          no servers" in shown
    assert f"session      {ctx.run.session_id}" in shown
    assert f"project      {project}" in shown and f"cwd          {project}" in shown
    assert "settings     no settings files (defaults)" in shown


async def test_status_names_the_key_file_the_settings_and_pending_trust(
    session: MakeCtx, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_API_KEY")
    (home / ".agent").mkdir()
    (home / ".agent" / ".env").write_text("AGENT_API_KEY=sk-from-the-file\n")
    settings(home / ".agent" / "settings.json", {"temperature": 0.2})
    settings(project / ".agent" / "settings.json", {"model": "other"})
    ctx = session(Flags(permission_mode="plan"), AGENT_API_KEY="")
    assert ctx.cfg.api_key == "sk-from-the-file"
    shown = await said(ctx, "/status")
    assert "API key      AGENT_API_KEY from ~/.agent/.env" in shown
    assert "sk-from-the-file" not in shown
    assert "permissions  plan mode" in shown
    assert "trust        not trusted; pending: .agent/settings.json not applied" in shown
    assert "settings     ~/.agent/settings.json, " in shown and ".agent/settings.json" in shown


# -- /config --------------------------------------------------------------------------------
async def test_config_lists_each_setting_with_its_file(
    session: MakeCtx, home: Path, project: Path
) -> None:
    settings(home / ".agent" / "settings.json", {"temperature": 0.2, "sandbox": {"mode": "off"}})
    settings(project / ".agent" / "settings.json", {"baseUrl": "http://elsewhere/v1"})
    ctx = session()
    shown = await said(ctx, "/config")
    line = next(ln for ln in shown.splitlines() if ln.strip().startswith("temperature"))
    assert "0.2" in line and "~/.agent/settings.json" in line
    assert any("sandbox.mode" in ln and '"off"' in ln for ln in shown.splitlines())
    # an untrusted project's endpoint is not applied, and /config says so
    assert "not applied" in shown
    assert any("baseUrl" in ln and ".agent/settings.json" in ln for ln in shown.splitlines())
    one = await said(ctx, "/config temperature")
    assert "temperature = 0.2" in one and "~/.agent/settings.json: 0.2" in one
    unset = await said(ctx, "/config maxTurns")
    assert "maxTurns is not set" in unset and "a whole number" in unset
    typo = await said(ctx, "/config temprature")
    assert "unknown setting 'temprature'" in typo and "temperature" in typo


async def test_config_set_validates_writes_and_applies_what_it_can(
    session: MakeCtx, home: Path, project: Path
) -> None:
    ctx = session()
    local = project / ".agent" / "settings.local.json"
    bad = await said(ctx, "/config set temperature warm")
    assert "not set" in bad and "'temperature'" in bad and "must be a number" in bad
    assert not local.exists()  # nothing written for a wrong value
    assert "unknown setting 'colour'" in await said(ctx, "/config set colour blue")
    mode = await said(ctx, "/config set permissions.mode bogus")
    assert "'permissions.mode' must be one of" in mode
    # a setting the session can take applies at once
    shown = await said(ctx, "/config set permissions.mode acceptEdits")
    assert "saved in" in shown and "applied at once" in shown
    assert ctx.run.gate.mode == "acceptEdits"
    assert json.loads(local.read_text()) == {"permissions": {"mode": "acceptEdits"}}
    # the file is the user's own answer: it applies in an untrusted project too
    assert ctx.cfg.trusted is False
    later = await said(ctx, "/config set repoMap.tokens 0")
    assert "applies from the next session" in later
    assert json.loads(local.read_text())["repoMap"] == {"tokens": 0}
    assert session().cfg.options.repo_map_tokens == 0  # the next session has it
    # --user writes the user's file; text values need no quotes
    user = await said(ctx, "/config set --user model some-model")
    assert "~/.agent/settings.json" in user
    assert json.loads((home / ".agent" / "settings.json").read_text()) == {"model": "some-model"}


async def test_config_set_says_when_another_file_wins(session: MakeCtx, project: Path) -> None:
    settings(project / ".agent" / "settings.local.json", {"temperature": 0.1})
    ctx = session()
    shown = await said(ctx, "/config set temperature 0.9 --user")
    assert "but 0.1 stays in effect" in shown
    assert ctx.agent.llm.temperature != 0.9


# -- /doctor --------------------------------------------------------------------------------
@pytest.fixture
def tools_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """ripgrep counts as installed (the machine may lack it; that is a finding of its own)."""
    monkeypatch.setattr(doctor, "find_rg", lambda: "/usr/bin/rg")


@pytest.mark.usefixtures("tools_found")
async def test_doctor_says_all_is_well(session: MakeCtx) -> None:
    shown = await said(session(), "/doctor")
    assert "all is well" in shown and "problem" not in shown


@pytest.mark.usefixtures("tools_found")
async def test_doctor_finds_a_model_the_server_does_not_serve(session: MakeCtx) -> None:
    shown = await said(session(AGENT_MODEL="no-such-model"), "/doctor")
    assert "model no-such-model is not among the models the server serves (fake-model)" in shown
    assert "→ /model NAME" in shown


@pytest.mark.usefixtures("tools_found")
async def test_doctor_finds_an_endpoint_that_does_not_answer(session: MakeCtx) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    shown = await said(session(AGENT_BASE_URL=f"http://127.0.0.1:{port}/v1"), "/doctor")
    assert f"✗ cannot reach http://127.0.0.1:{port}/v1" in shown
    assert "is the server running? check the base URL" in shown


async def test_doctor_lists_each_problem_with_its_fix(
    session: MakeCtx, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "find_rg", lambda: None)
    settings(home / ".agent" / "settings.json", {"mcpServers": {"nope": {"command": "no-such-x"}}})
    settings(project / ".agent" / "settings.json", {"model": "m"})
    ctx = session()
    assert ctx.run.mcp is not None
    await asyncio.to_thread(ctx.run.mcp.wait, 30)  # the server's start settles (it fails)
    (home / ".agent" / "settings.json").write_text("{ broken")  # edited since the start
    shown = await said(ctx, "/doctor")
    lines = [ln for ln in shown.splitlines() if ln.startswith("✗")]
    assert all(" → " in ln for ln in lines), lines  # each problem with what to do
    text = "\n".join(lines)
    assert "ripgrep (rg) is not installed" in text and "install ripgrep" in text
    assert "MCP server nope failed" in text and "/mcp reconnect nope" in text
    assert "trust pending: 1 project file not applied (.agent/settings.json)" in text
    assert "/trust" in text
    assert "invalid JSON at line 1" in text and "fix the file" in text
