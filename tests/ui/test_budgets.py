"""`--max-budget-usd` and `--max-tokens-total` end to end: the run stops before the request that
would pass the cap — that request never reaches the server — with its own subtype and exit
code, and the `result` event reports the caps and the spend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.ui.process import EXIT_MAX_BUDGET, EXIT_MAX_TOKENS

PRICE = {"in": 1.0, "cached": 0.1, "out": 1.0}  # USD per million tokens: $1 = 1M tokens


def priced(env: dict[str, str]) -> dict[str, str]:
    """The user's settings give fake-model a price."""
    user = Path(env["HOME"]) / ".agent"
    user.mkdir(parents=True, exist_ok=True)
    (user / "settings.json").write_text(json.dumps({"prices": {"fake-model": PRICE}}))
    return env


def result_of(stdout: str) -> dict[str, Any]:
    return json.loads(stdout.splitlines()[-1])


def test_the_dollar_budget_stops_before_the_request_that_would_pass_it(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    # the first request costs $0.019 as reported; the next one's estimate (at least the 1,000
    # output tokens of the longest reply) would take the run past $0.02: it is not sent
    usage = {"prompt_tokens": 18_000, "completion_tokens": 1_000, "total_tokens": 19_000}
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})], usage=usage))
    r = run_agent(
        priced(fake_env), project, "--output-format", "json", "--max-budget-usd", "0.02", "q"
    )
    assert r.returncode == EXIT_MAX_BUDGET == 54, r.stderr
    assert len(fake.requests) == 1
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["type"] for x in lines[1:]] == ["tool_call", "tool_result", "result"]
    result = lines[-1]
    assert result["subtype"] == "error_max_budget_usd"
    assert result["is_error"] is True
    assert "--max-budget-usd" in result["error"] and "$0.0190" in result["error"]
    assert result["total_cost_usd"] == 0.019
    assert result["budget"] == {
        "max_budget_usd": 0.02,
        "max_tokens_total": None,
        "spent_usd": 0.019,
        "spent_tokens": 19_000,
    }


def test_the_token_cap_stops_before_an_expensive_request(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    # the first request is small (~5,000 tokens with the output allowance); the file read makes
    # the next one ~10,000: past the 9,000 allowed, so it is never sent
    (project / "data.csv").write_text("".join(f"{i},1,2,3,4,5,6,7\n" for i in range(600)))
    fake.script(tool_calls([("read_file", {"path": "data.csv"})]))
    r = run_agent(fake_env, project, "--output-format", "json", "--max-tokens-total", "9000", "q")
    assert r.returncode == EXIT_MAX_TOKENS == 55, r.stderr
    assert len(fake.requests) == 1
    result = result_of(r.stdout)
    assert result["subtype"] == "error_max_tokens_total"
    assert "--max-tokens-total" in result["error"]
    assert result["budget"]["max_tokens_total"] == 9_000
    assert result["budget"]["spent_tokens"] == 15  # the fake's default usage: 10 in, 5 out


def test_a_run_within_its_budget_reports_it(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("mango"))
    r = run_agent(
        priced(fake_env),
        project,
        *("--output-format", "json", "--max-budget-usd", "1", "--max-tokens-total", "50000"),
        "q",
    )
    assert r.returncode == 0, r.stderr
    result = result_of(r.stdout)
    assert result["subtype"] == "success"
    assert result["budget"] == {
        "max_budget_usd": 1.0,
        "max_tokens_total": 50_000,
        "spent_usd": 0.00003,
        "spent_tokens": 30,
    }


def test_text_mode_says_why_it_stopped(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    usage = {"prompt_tokens": 18_000, "completion_tokens": 1_000, "total_tokens": 19_000}
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})], text="Reading.", usage=usage))
    r = run_agent(priced(fake_env), project, "--max-budget-usd", "0.02", "q")
    assert r.returncode == 54
    assert r.stdout == ""  # no answer: what the model said before it was stopped is progress
    said = r.stderr.index("Reading.\n")
    assert said < r.stderr.index("error: stopped before the next request: it would cost about $")


def test_an_unknown_price_warns_and_counts_tokens_only(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(text("done"))
    r = run_agent(fake_env, project, "--output-format", "json", "--max-budget-usd", "0.01", "q")
    assert r.returncode == 0, r.stderr
    assert "no price is known for model fake-model" in r.stderr
    assert "only token counts are reported" in r.stderr
    budget = result_of(r.stdout)["budget"]
    assert budget["spent_usd"] is None
    assert budget["spent_tokens"] == 15


def test_caps_must_be_positive(fake_env: dict, project: Path) -> None:
    r = run_agent(fake_env, project, "--max-budget-usd", "0", "q")
    assert r.returncode == 2 and "--max-budget-usd must be a positive number" in r.stderr
    r = run_agent(fake_env, project, "--output-format", "json", "--max-tokens-total", "-5", "q")
    assert r.returncode == 2
    assert "--max-tokens-total must be a whole number" in result_of(r.stdout)["error"]
    r = run_agent(fake_env, project, "--max-budget-usd", "lots", "q")
    assert r.returncode == 2 and "invalid float value" in r.stderr


CUT = "partial answer that gets cut off somewhere"


def test_retries_are_checked_against_the_cap_and_failed_attempts_count(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    # a cut attempt is billed by the provider: its input (by estimate) and what it streamed count
    fake.script(text(CUT, pieces=8, cut_after=4), text("mango"))
    r = run_agent(
        fake_env, project, "--output-format", "json", "--max-tokens-total", "10000000", "q"
    )
    assert r.returncode == 0, r.stderr
    failed = result_of(r.stdout)["budget"]["spent_tokens"] - 15  # the fake's usage: 10 + 5
    assert failed > 1_000
    # room for two attempts (each estimated at its input and 1,000 output tokens) but not three:
    # the third, a retry, is never sent
    cap = 2 * failed + 1_000 + failed // 2
    fake.script(*[text(CUT, pieces=8, cut_after=4) for _ in range(2)])
    before = len(fake.requests)
    r = run_agent(fake_env, project, "--output-format", "json", "--max-tokens-total", str(cap), "q")
    assert r.returncode == EXIT_MAX_TOKENS, r.stderr
    assert len(fake.requests) - before == 2
    result = result_of(r.stdout)
    assert result["subtype"] == "error_max_tokens_total"
    assert result["budget"]["spent_tokens"] == 2 * failed
