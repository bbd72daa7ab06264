"""Cache discipline (§7): system prompt and tools byte-identical on every request of a session,
history append-only, volatile facts only in the first user message, tool changes at turn starts.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import ECHO, close_all, make_agent

from agent.app import build
from agent.base.events import Recorder
from agent.base.record import Tool, ToolContext, ToolResult
from agent.config.load import Flags
from agent.core.dispatch import Dispatcher
from agent.permissions.gate import Gate
from agent.ui.startup import configure


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


def assert_prefix_stable(requests: list[dict[str, Any]]) -> None:
    """Each request extends the previous one; system message and tools never change a byte."""
    first = requests[0]
    for prev, cur in itertools.pairwise(requests):
        before, after = prev["messages"], cur["messages"]
        assert len(after) > len(before)
        assert after[: len(before)] == before, "history must be append-only"
        assert json.dumps(after[0]) == json.dumps(first["messages"][0])
        assert json.dumps(cur.get("tools")) == json.dumps(first.get("tools"))


async def test_real_session_prefix_is_byte_stable(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    return 42\n")
    (tmp_path / "AGENT.md").write_text("Run tests with `pytest -q`.\n")
    fake.script(
        tool_calls([("glob", {"pattern": "**/*.py"})]),
        tool_calls([("read_file", {"path": "src/app.py"}), ("grep", {"pattern": "main"})]),
        text("main() returns 42."),
        tool_calls([("bash", {"command": "echo hi"})]),
        tool_calls([("edit_file", {"path": "src/app.py", "old_string": "42", "new_string": "43"})]),
        tool_calls([("read_file", {"path": "src/app.py"})]),
        text("Changed it to 43 and checked."),
        text("You're welcome."),
    )
    flags = Flags(trust_project=True, permission_mode="bypassPermissions")
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    run = build(configure(flags, env, tmp_path), Recorder())
    try:
        for prompt in ("what does main return?", "make it 43", "thanks"):
            end = await run.agent.run_turn(run.user_message(prompt))
            assert end.subtype == "success"
    finally:
        await run.agent.llm.aclose()
    assert len(fake.requests) == 8
    assert (tmp_path / "src" / "app.py").read_text() == "def main():\n    return 43\n"
    assert_prefix_stable(fake.requests)
    system = fake.requests[0]["messages"][0]["content"]
    assert "pytest -q" in system  # memory is part of the stable prefix
    assert str(tmp_path) not in system
    assert "date:" not in system
    users = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "user"]
    assert users[0].startswith("<env>")
    assert "date:" in users[0]
    assert users[1:] == ["make it 43", "thanks"]


async def test_tool_refresh_waits_for_the_next_turn(fake: FakeOpenAI, tmp_path: Path) -> None:
    """A tool list change (as MCP makes it) mid-turn reaches the model only at the next turn."""
    agent, rec = make_agent(fake, tmp_path)
    agent.tools = dict(agent.tools)  # one dict shared by the dispatcher and the gate, as in app
    agent.dispatcher = Dispatcher(agent.tools, (Gate(agent.tools, {}, "bypassPermissions", rec),))
    late = Tool("mcp__srv__ping", "Ping.", {"type": "object"}, ECHO.run, read_only=True)

    async def connect(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        agent.tools[late.name] = late
        agent.refresh_tools()
        return ToolResult("connected")

    agent.tools["connect"] = Tool("connect", "Connect.", {"type": "object"}, connect)
    fake.script(tool_calls([("connect", {})]), text("one"), text("two"))
    await agent.run_turn("first")
    await agent.run_turn("second")

    def names(i: int) -> list[str]:
        return [t["function"]["name"] for t in fake.requests[i]["tools"]]

    assert names(0) == names(1) == ["echo", "slow", "touch"]
    assert names(2) == ["echo", "slow", "touch", "connect", "mcp__srv__ping"]
    assert_prefix_stable(fake.requests[:2])
