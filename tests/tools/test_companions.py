"""A tool whose only use is another tool's output goes with it (issue 20): `--disallowed-tools
bash` also removes bash_output, `task` removes task_result, and the init event says so."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI, text
from helpers import run_agent

RARE = {"notebook_edit", "web_search", "exit_plan_mode", "task_result"}


def init_tools(fake: FakeOpenAI, env: dict[str, str], project: Path, *flags: str) -> list[str]:
    fake.script(text("ok"))
    r = run_agent(env, project, "--output-format", "json", *flags, "hi")
    assert r.returncode == 0, r.stderr
    init = json.loads(r.stdout.splitlines()[0])
    sent = [t["function"]["name"] for t in fake.requests[-1]["tools"]]
    waiting = set(init["tools"]) - set(sent)  # the rare ones wait behind tool_search
    assert [n for n in init["tools"] if n not in waiting] == sent  # what the model really gets
    assert all(n in RARE for n in waiting) and ("tool_search" in sent) == bool(waiting)
    return init["tools"]


def test_disallowing_a_tool_takes_its_companion_along(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    everything = init_tools(fake, fake_env, project)
    assert {"bash", "bash_output", "task", "task_result"} <= set(everything)
    no_bash = init_tools(fake, fake_env, project, "--disallowed-tools", "bash")
    assert "bash" not in no_bash and "bash_output" not in no_bash and "task" in no_bash
    no_task = init_tools(fake, fake_env, project, "--disallowed-tools", "task")
    assert "task" not in no_task and "task_result" not in no_task and "bash_output" in no_task
    only_output = init_tools(fake, fake_env, project, "--disallowed-tools", "bash_output")
    assert "bash" in only_output and "bash_output" not in only_output  # not the other way
