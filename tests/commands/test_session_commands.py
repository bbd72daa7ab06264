"""/resume and /rewind as REPL commands, on a real Run against the fake server."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from rich.console import Console

from agent.app import build
from agent.base.events import Recorder
from agent.commands.registry import Ctx
from agent.commands.session import resume, rewind
from agent.config.load import Flags
from agent.ui.startup import configure


@pytest.fixture
async def make(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Any]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / ".agent").mkdir()
    runs: list[Any] = []

    def _make() -> tuple[Any, Ctx, io.StringIO]:
        env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
        run = build(configure(Flags(permission_mode="acceptEdits"), env, tmp_path), Recorder())
        out = io.StringIO()
        console = Console(file=out, width=200, soft_wrap=True)
        ctx = Ctx(run, console, lambda text: run.agent.run_turn(text))
        runs.append(run)
        return run, ctx, out

    yield _make
    for run in runs:
        await run.agent.llm.aclose()


async def test_rewind_lists_and_restores(make: Any, fake: FakeOpenAI, tmp_path: Path) -> None:
    run, ctx, out = make()
    fake.script(
        tool_calls([("write_file", {"path": "a.txt", "content": "one\n"})]),
        text("made"),
        tool_calls([("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"})]),
        text("edited"),
    )
    await run.agent.run_turn("make a")
    await run.agent.run_turn("edit a")
    await rewind(ctx, "")
    listing = out.getvalue()
    assert "#1" in listing and "#2" in listing and "bash" in listing
    before = list(run.agent.messages)
    await rewind(ctx, "2")  # a bare number offers the three choices and changes nothing
    assert "/rewind 2 files — " in out.getvalue() and run.agent.messages == before
    await rewind(ctx, "99")
    assert "no checkpoint 99: the checkpoints are #1, #2 (/rewind lists them)" in out.getvalue()
    await rewind(ctx, "2 sideways")
    assert "usage: /rewind N conversation|files|both" in out.getvalue()
    (tmp_path / "a.txt").write_text("user changed it\n")
    await rewind(ctx, "2 files")
    assert "changed outside the agent" in out.getvalue()
    assert (tmp_path / "a.txt").read_text() == "user changed it\n"
    await rewind(ctx, "2 both --force")
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert run.agent.messages[-1]["content"] == "made"
    # With a terminal, the user is asked; "y" overwrites, "n" keeps their change.
    asked: list[Any] = []

    async def answer_with(choice: str) -> None:
        async def asker(req: Any) -> Any:
            from agent.permissions.request import Answer

            asked.append(req)
            return Answer(choice)

        run.gate.asker = asker
        (tmp_path / "a.txt").write_text("changed again\n")
        await rewind(ctx, "2 files")

    await answer_with("n")
    assert (tmp_path / "a.txt").read_text() == "changed again\n"
    await answer_with("y")
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert [r.tool for r in asked] == ["rewind", "rewind"]
    assert asked[0].target == str((tmp_path / "a.txt").resolve()) and not asked[0].for_model


async def test_resume_switches_sessions(make: Any, fake: FakeOpenAI) -> None:
    first, _, _ = make()
    fake.script(text("answer in the first session"))
    await first.agent.run_turn("first question")
    first.agent.ctx.todo.add("write the tests")
    second, ctx, out = make()
    assert len(second.agent.ctx.todo) == 0
    await resume(ctx, "")
    assert first.session_id in out.getvalue()
    await resume(ctx, "1")  # the first agent still has it open
    assert f"session {first.session_id} is in use by another agent" in out.getvalue()
    assert second.session_id != first.session_id
    first.store.close()  # the first agent exits
    await resume(ctx, "1")
    assert second.session_id == first.session_id
    assert second.hooks.transcript_path == str(first.store.path)  # hooks read the new one
    assert [i.text for i in second.agent.ctx.todo.items.values()] == ["write the tests"]
    fake.script(text("continued"))
    await second.agent.run_turn("follow-up")
    sent = [m["content"] for m in fake.requests[-1]["messages"][1:]]
    assert sent[1:] == ["answer in the first session", "follow-up"]
    assert sent[0].endswith("first question")


async def test_resume_of_a_damaged_session_says_so_and_keeps_the_file(
    make: Any, fake: FakeOpenAI
) -> None:
    first, _, _ = make()
    fake.script(text("one"), text("two"))
    await first.agent.run_turn("first question")
    await first.agent.run_turn("second question")
    first.store.close()
    path = first.store.path
    lines = path.read_bytes().splitlines(keepends=True)
    damaged = b"".join([*lines[:3], b'{"type": "mess\n', *lines[3:]])
    path.write_bytes(damaged)
    second, ctx, out = make()
    await resume(ctx, first.session_id)
    said = out.getvalue()
    assert "line 4 is unreadable and was skipped" in said
    [copy] = path.parent.glob(f"{path.name}.corrupt-*")
    assert copy.read_bytes() == damaged
    assert second.session_id == first.session_id


async def test_hooks_command_lists_hooks(make: Any, tmp_path: Path) -> None:
    from agent.commands.hooks import hooks_cmd

    home_hooks = tmp_path / "home" / ".agent"
    home_hooks.mkdir(parents=True)
    (home_hooks / "settings.json").write_text(
        '{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": '
        '[{"type": "command", "command": "./check.sh", "timeout": 5}]}]}}'
    )
    _, ctx, out = make()
    await hooks_cmd(ctx, "")
    assert "PreToolUse [bash]: ./check.sh  (timeout 5 s)" in out.getvalue()
