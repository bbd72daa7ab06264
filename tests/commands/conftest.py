"""A live session's command context against the fake server, for the command tests: `session`
makes one (closed at the end of the test)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from rich.console import Console

from agent.app import build
from agent.base.events import Recorder
from agent.commands.registry import Ctx, all_commands
from agent.config.load import Flags
from agent.ui.startup import configure

MakeCtx = Callable[..., Ctx]


@pytest.fixture
async def session(
    fake: FakeOpenAI, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[MakeCtx]:
    """`session(flags=None, **env)`: a Run in `project` (HOME is the test's own) and its Ctx;
    a variable given as "" is left out. The key is in the process environment too, where
    /status looks for it."""
    monkeypatch.setenv("AGENT_API_KEY", "k")
    made: list[Ctx] = []

    def make(flags: Flags | None = None, **env: str) -> Ctx:
        base = {
            "AGENT_BASE_URL": fake.base_url,
            "AGENT_API_KEY": "k",
            "AGENT_MODEL": "fake-model",
            "AGENT_SANDBOX": "off",
        }
        given = {k: v for k, v in {**base, **env}.items() if v}  # "": not set
        cfg = configure(flags or Flags(), given, project)
        run = build(cfg, Recorder())

        async def turn(prompt: str) -> Any:
            return await run.agent.run_turn(run.user_message(prompt))

        console = Console(file=io.StringIO(), width=200, color_system=None, soft_wrap=True)
        commands = all_commands(cfg.root, trusted=cfg.trust)
        ctx = Ctx(run, console, turn, display=run.agent.sink, commands=commands)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        await ctx.agent.llm.aclose()
        await ctx.run.end()
        if ctx.run.mcp is not None:
            await ctx.run.mcp.aclose()
