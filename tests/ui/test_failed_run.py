"""A failed one-shot run reports the turns it made and what they cost (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI, error, text, tool_calls
from helpers import run_agent


def test_a_run_that_fails_later_reports_its_turns(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), error(401, "bad key"))
    r = run_agent(
        {**fake_env, "AGENT_MODEL": "deepseek-chat"}, project, "--output-format", "json", "go"
    )
    assert r.returncode == 1
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["subtype"] == "error_during_execution" and "401" in result["error"]
    assert result["num_turns"] == 1  # the request that answered; the refused one made no turn
    assert result["usage"]["input_tokens"] > 0
    assert result["total_cost_usd"] > 0  # deepseek-chat has a known price


def test_a_denial_is_printed_once(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("bash", {"command": "rm -rf build"})]), text("ok"))
    r = run_agent(fake_env, project, "go")
    assert r.returncode == 0
    assert r.stderr.count("rm is not read-only") == 1, r.stderr  # no rule exists
    assert "✗ bash" in r.stderr and "denied:" not in r.stderr
