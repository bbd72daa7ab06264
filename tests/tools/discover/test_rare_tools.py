"""The rarely used built-ins wait behind tool_search (issue 46, item 2): notebook_edit,
web_search, exit_plan_mode and task_result are not sent until a search, the mode they are for
or the tool they serve loads them; a resumed session has its loads again; `tools.search: off`,
--tools or --disallowed-tools without tool_search send every tool as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent, user_settings

from agent.app import build
from agent.base.events import Recorder
from agent.config.load import Flags
from agent.ui.startup import configure

RARE = ["notebook_edit", "web_search", "exit_plan_mode", "task_result"]


def names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def one_shot(env: dict[str, str], project: Path, *args: str) -> list[dict[str, Any]]:
    r = run_agent(env, project, "--output-format", "json", *args)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_rare_tools_wait_until_a_search_and_come_back_on_resume(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("tool_search", {"query": "notebook cell"})]), text("found it"))
    lines = one_shot(fake_env, project, "edit the notebook")
    first, second = fake.requests
    assert "tool_search" in names(first) and not set(RARE) & set(names(first))
    assert set(RARE) <= set(lines[0]["tools"])  # the init event: every tool it may call
    assert names(second) == [*names(first), "notebook_edit"]  # appended: the prefix is kept
    assert second["tools"][:-1] == first["tools"]
    assert lines[-1]["tool_search"]["loaded"] == 1 and lines[-1]["tool_search"]["deferred"] == 3
    fake.script(text("still here"))
    one_shot(fake_env, project, "-c", "and now")  # the resumed session loads it again
    assert names(fake.requests[-1]) == names(second)


def test_plan_mode_brings_exit_plan_mode(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("a plan"))
    one_shot(fake_env, project, "--permission-mode", "plan", "plan it")
    assert names(fake.requests[0])[-1] == "exit_plan_mode"
    assert "web_search" not in names(fake.requests[0])


async def test_entering_plan_mode_and_calling_task_append_their_tools(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    cfg = configure(Flags(trust_project=True), {**fake_env, "AGENT_SANDBOX": "off"}, project)
    run = build(cfg, Recorder())
    try:
        fake.script(text("hi"))
        await run.turn("hello")
        run.set_mode("plan")  # Shift-Tab
        task = tool_calls([("task", {"description": "look around"})])
        fake.script(task, text("child done"), text("ok"))  # the subagent's request between
        await run.turn("plan something")
        before, planned = names(fake.requests[0]), names(fake.requests[1])
        assert planned == [*before, "exit_plan_mode"]
        assert names(fake.requests[-1]) == [*planned, "task_result"]  # after task ran
    finally:
        await run.end()


def test_without_the_finder_every_tool_is_sent(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    user_settings(fake_env, {"tools": {"search": "off"}})
    fake.script(text("a"))
    one_shot(fake_env, project, "hi")
    off = names(fake.requests[-1])
    assert set(RARE) <= set(off) and "tool_search" not in off
    user_settings(fake_env, {})
    fake.script(text("b"))
    one_shot(fake_env, project, "--disallowed-tools", "tool_search", "hi")
    assert names(fake.requests[-1]) == off
    fake.script(text("c"))
    one_shot(fake_env, project, "--tools", "Read,WebSearch", "hi")
    assert names(fake.requests[-1]) == ["read_file", "web_search"]
