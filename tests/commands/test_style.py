"""The seed's commands (issue 20): /recap, /lang (= /language), /creative, and the aliases
/reset, /new, /usage, /undo, /checkpoint, /proactive — each in /help and completion."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text
from prompt_toolkit.document import Document
from rich.console import Console

from agent.app import build
from agent.base.events import Recorder
from agent.commands.registry import Ctx, all_commands, dispatch
from agent.config.load import Flags
from agent.ui.completion import ReplCompleter
from agent.ui.startup import configure


@pytest.fixture
async def ctx(fake: FakeOpenAI, project: Path, home: Path) -> AsyncIterator[Ctx]:
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    cfg = configure(Flags(), env, project)
    rec = Recorder()
    run = build(cfg, rec)

    async def turn(prompt: str) -> Any:
        return await run.agent.run_turn(run.user_message(prompt))

    console = Console(file=io.StringIO(), width=120, color_system=None, soft_wrap=True)
    c = Ctx(run, console, turn, display=rec, commands=all_commands(cfg.root))
    yield c
    await c.agent.llm.aclose()


def said(ctx: Ctx) -> str:
    return str(ctx.console.file.getvalue())


async def test_recap_answers_without_tools_and_keeps_the_history(
    ctx: Ctx, fake: FakeOpenAI
) -> None:
    await dispatch(ctx, "/recap")
    assert "nothing to recap yet" in said(ctx) and fake.requests == []
    fake.script(text("Fixed the parser."), text("We fixed the parser; tests are next."))
    await ctx.turn("fix the parser")
    before = list(ctx.agent.messages)
    await dispatch(ctx, "/recap")
    sent = fake.requests[-1]
    assert sent["messages"][-1]["content"].startswith("[Recap for the user")
    assert sent["tool_choice"] == "none" and sent["tools"]  # tools listed (cache), none called
    assert ctx.agent.messages == before  # not added to the conversation
    assert ctx.agent.totals.requests == 2  # but counted


async def test_lang_saves_the_setting_and_changes_the_live_prompt(
    ctx: Ctx, fake: FakeOpenAI, home: Path
) -> None:
    await dispatch(ctx, "/lang")
    assert "reply language: not set" in said(ctx)
    await dispatch(ctx, "/lang ru")
    assert "replies in Russian" in said(ctx)
    assert json.loads((home / ".agent" / "settings.json").read_text()) == {"language": "ru"}
    fake.script(text("Привет"))
    await ctx.turn("hi")
    system = fake.requests[-1]["messages"][0]["content"]
    assert "Reply in Russian" in system
    await dispatch(ctx, "/language auto")  # the alias
    assert "the language the user writes in" in ctx.agent.messages[0]["content"]
    await dispatch(ctx, "/lang off")
    assert "Reply in" not in ctx.agent.messages[0]["content"]
    assert json.loads((home / ".agent" / "settings.json").read_text()) == {}
    await dispatch(ctx, "/clear")  # a new conversation keeps the language
    await dispatch(ctx, "/lang de")
    await dispatch(ctx, "/clear")
    assert "Reply in German" in ctx.agent.messages[0]["content"]


async def test_a_saved_language_applies_to_the_next_session(
    fake: FakeOpenAI, project: Path, home: Path
) -> None:
    (home / ".agent").mkdir()
    (home / ".agent" / "settings.json").write_text('{"language": "zh", "model": "x"}\n')
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k"}
    run = build(configure(Flags(), env, project), Recorder())
    assert "Reply in Chinese" in run.agent.messages[0]["content"]
    await run.agent.llm.aclose()


async def test_lang_keeps_a_broken_settings_file(ctx: Ctx, home: Path) -> None:
    (home / ".agent").mkdir(exist_ok=True)
    (home / ".agent" / "settings.json").write_text("{broken")
    await dispatch(ctx, "/lang fr")
    assert "not saved" in said(ctx) and "invalid JSON at line 1" in said(ctx)
    assert (home / ".agent" / "settings.json").read_text() == "{broken"
    assert "Reply in French" in ctx.agent.messages[0]["content"]  # this session still


async def test_creative_toggles_the_temperature(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("a"), text("b"))
    await dispatch(ctx, "/creative")
    assert "creative on: temperature 1" in said(ctx)
    await ctx.turn("one")
    assert fake.requests[-1]["temperature"] == 1.0
    await dispatch(ctx, "/creative")
    assert "creative off" in said(ctx)
    await ctx.turn("two")
    assert "temperature" not in fake.requests[-1]


async def test_aliases_run_their_command_and_show_in_help_and_completion(ctx: Ctx) -> None:
    ctx.agent.messages.append({"role": "user", "content": "old"})
    await dispatch(ctx, "/reset")
    assert len(ctx.agent.messages) == 1 and "new conversation" in said(ctx)
    await dispatch(ctx, "/usage")
    assert "requests" in said(ctx)
    await dispatch(ctx, "/undo")
    assert "no checkpoints yet" in said(ctx)
    await dispatch(ctx, "/help")
    help_text = said(ctx)
    for alias in ("/reset", "/new", "/usage", "/undo", "/checkpoint", "/proactive", "/language"):
        assert alias in help_text, alias
    for name in ("/recap", "/lang", "/creative"):
        assert name in help_text
    completer = ReplCompleter(lambda: ctx.commands, lambda: [])
    shown = {c.text: c.display_meta_text for c in completer.get_completions(Document("/un"), None)}
    assert shown["/undo"].startswith("= /rewind:")
    assert "/proactive" in {c.text for c in completer.get_completions(Document("/pro"), None)}
