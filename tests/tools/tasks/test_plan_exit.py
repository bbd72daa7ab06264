"""exit_plan_mode: in plan mode the model hands in its plan; the user approves it into default
or acceptEdits, or sends it back with feedback; without a terminal the plan is the result."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from rich.console import Console
from routed_fake import close_runs, make_run

from agent.permissions.request import Answer, AskRequest
from agent.ui.ask import show_request

PLAN = "1. Add `x` to a.py\n2. Run the tests"


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def answering(choice: str, reason: str = "") -> tuple[list[AskRequest], object]:
    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer(choice, reason)

    return asked, asker


def results(fake: FakeOpenAI) -> list[str]:
    return [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]


async def test_an_approved_plan_leaves_plan_mode(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    asked, asker = answering("e")
    fake.script(
        tool_calls([("exit_plan_mode", {"plan": PLAN})]),
        tool_calls([("write_file", {"path": "b.py", "content": "x = 1\n"})]),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path, mode="plan", asker=asker)
    await run.turn("plan, then do it")
    [req] = asked
    assert req.tool == "exit_plan_mode" and req.body == PLAN and req.choices == ("y", "e", "n")
    assert req.key("e", "") == "[e] approve, accept edits"
    out = results(fake)
    assert (
        out[0]
        == "The user approved the plan; the permission mode is now acceptEdits. Carry it out."
    )
    assert out[1].startswith("Created b.py")  # acceptEdits allows it
    assert run.gate.mode == "acceptEdits" and run.hooks.mode == "acceptEdits"


async def test_a_plan_sent_back_keeps_plan_mode(fake: FakeOpenAI, tmp_path: Path) -> None:
    _, asker = answering("n", "also update the docs")
    fake.script(tool_calls([("exit_plan_mode", {"plan": PLAN})]), text("revising"))
    run, _ = make_run(fake, tmp_path, mode="plan", asker=asker)
    await run.turn("plan")
    assert "keep planning: also update the docs" in results(fake)[0]
    assert run.gate.mode == "plan"


async def test_outside_plan_mode_it_is_refused(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(tool_calls([("exit_plan_mode", {"plan": PLAN})]), text("ok"))
    run, _ = make_run(fake, tmp_path, mode="default")
    await run.turn("go")
    assert results(fake)[0].startswith("Error: not in plan mode")


def test_without_a_terminal_the_plan_is_the_result(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake.script(tool_calls([("exit_plan_mode", {"plan": PLAN})]))  # no request after it
    r = run_agent(fake_env, tmp_path, "--output-format", "json", "--permission-mode", "plan",
                  "plan the change")  # fmt: skip
    result = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 0 and result["subtype"] == "success"
    assert result["result"] == PLAN


def test_the_prompt_shows_the_plan_and_its_choices() -> None:
    out = io.StringIO()
    req = AskRequest("exit_plan_mode", {}, "approve?", "the plan", body=PLAN)
    show_request(Console(file=out, width=120), req)
    assert "1. Add `x` to a.py" in out.getvalue() and "2. Run the tests" in out.getvalue()
