"""Token accounting from the API's usage (DeepSeek and OpenAI shapes), cost, /cost and /context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import close_all, make_agent, of_type

from agent.base.events import Usage
from agent.base.tokens import cost_data, cost_report, estimate_message
from agent.config.prices import Price, price_for
from agent.context.compaction import Policy
from agent.context.memory import MEMORY_HEADER, memory_report, system_prompt
from agent.core.report import KINDS, context_breakdown, context_report

DEEPSEEK_USAGE = {  # prompt_tokens = prompt_cache_hit_tokens + prompt_cache_miss_tokens
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_cache_hit_tokens": 800,
    "prompt_cache_miss_tokens": 200,
    "completion_tokens_details": {"reasoning_tokens": 150},
}
OPENAI_USAGE = {  # cached_tokens is part of prompt_tokens
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 600},
    "completion_tokens_details": {"reasoning_tokens": 50},
}


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


@pytest.mark.parametrize(
    ("model", "usage", "mode", "cached", "reasoning", "dollars"),
    [  # miss × in + hit × cached + out × out, per million
        ("deepseek-chat", DEEPSEEK_USAGE, "last", 800, 150, 200 * 0.28 + 800 * 0.028 + 200 * 0.42),
        ("gpt-4.1", OPENAI_USAGE, "separate", 600, 50, 400 * 2.0 + 600 * 0.5 + 200 * 8.0),
    ],
)
async def test_usage_shapes_and_cost(
    fake: FakeOpenAI,
    tmp_path: Path,
    model: str,
    usage: dict[str, Any],
    mode: str,
    cached: int,
    reasoning: int,
    dollars: float,
) -> None:
    fake.script(
        tool_calls([("echo", {"text": "x"})], usage=usage, usage_mode=mode),
        text("ok", usage=usage, usage_mode=mode),
    )
    agent, rec = make_agent(fake, tmp_path, env={"AGENT_MODEL": model})
    await agent.run_turn("go")
    t = agent.totals
    assert (t.requests, t.input_tokens, t.output_tokens) == (2, 2000, 400)
    assert (t.cached_tokens, t.reasoning_tokens) == (2 * cached, 2 * reasoning)
    assert t.cost_usd == pytest.approx(2 * dollars / 1e6)
    assert of_type(rec, Usage)[0] == Usage(1000, 200, cached, reasoning, dollars / 1e6)
    d = cost_data(t, agent.llm.price(), model)
    assert d["cache_hit_rate"] == pytest.approx(cached / 1000)
    report = cost_report(t, agent.llm.price(), model)
    assert "2,000" in report
    assert f"{cached / 1000:.0%} cache hits" in report
    assert f"${t.cost_usd:.4f}" in report
    assert f"{2 * reasoning:,} reasoning" in report


async def test_context_size_is_reported_usage_plus_estimate(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("ok", usage=OPENAI_USAGE))
    agent, _ = make_agent(fake, tmp_path)
    assert agent.meter.now(agent.messages, agent.schemas) > 0  # nothing sent yet: estimated
    await agent.run_turn("go")
    assert agent.meter.now(agent.messages, agent.schemas) == 1200
    agent.messages.append({"role": "user", "content": "one more question"})
    extra = estimate_message(agent.messages[-1])
    assert agent.meter.now(agent.messages, agent.schemas) == 1200 + extra


async def test_context_breakdown_and_report(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("ok", usage={"prompt_tokens": 5000, "completion_tokens": 100}))
    agent, _ = make_agent(fake, tmp_path)
    agent.messages[0]["content"] = f"You are a test.\n\n{MEMORY_HEADER}\n## AGENT.md\nuse tabs"
    agent.compaction = Policy(20_000)
    await agent.run_turn("go")
    d = context_breakdown(agent)
    assert d["total"] == 5100
    assert d["limit"] == 20_000
    assert d["compact_at"] == 16_000
    parts = d["parts"]
    assert list(parts) == ["system prompt", "tools", "memory", *KINDS]
    assert parts["memory"] > 0
    assert parts["tools"] > 0
    assert sum(parts.values()) == 5100
    assert d["free"] == 14_900
    report = context_report(agent)
    assert "5,100 / 20,000 tokens (26%)" in report
    assert "auto-compaction at 16,000" in report
    assert all(name in report for name in parts)


async def test_an_unknown_model_says_price_unknown_not_a_wrong_number(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("ok", usage=OPENAI_USAGE))
    agent, rec = make_agent(fake, tmp_path, env={"AGENT_MODEL": "my-finetune-v3"})
    await agent.run_turn("go")
    t = agent.totals
    assert (t.unpriced, t.cost) == (1, None)
    assert of_type(rec, Usage)[0].cost is None
    report = cost_report(t, agent.llm.price(), agent.llm.model)
    assert "price unknown for my-finetune-v3" in report and "$0.0000" not in report


@pytest.mark.parametrize(
    ("model", "settings", "expected"),
    [
        ("gpt-4.1-2025-04-14", {}, Price(2.0, 0.5, 8.0)),  # a dated id: its model's price
        ("deepseek/deepseek-chat", {}, Price(0.28, 0.028, 0.42)),  # a router's vendor prefix
        ("kimi-k2-0905-preview", {}, Price(0.6, 0.15, 2.5)),
        ("gpt-4.1-mini", {}, Price(0.4, 0.1, 1.6)),  # not gpt-4.1's
        ("x", {"prices": {"x": {"in": 1, "out": 2}}}, Price(1.0, 1.0, 2.0)),
        ("gpt-4.1", {"priceIn": 0.5, "priceOut": 1}, Price(0.5, 0.5, 1.0)),  # settings win
        ("qwen3", {"provider": "ollama"}, Price(0.0, 0.0, 0.0)),  # your own machine: free
        ("unknown-model", {}, None),
    ],
)
def test_prices_are_per_model(model: str, settings: dict[str, Any], expected: Any) -> None:
    assert price_for(model, str(settings.get("provider", "custom")), settings) == expected


async def test_memory_and_context_count_the_memory_alike(fake: FakeOpenAI, tmp_path: Path) -> None:
    """/memory's total and /context's memory part are one estimate of one text (issue 20)."""
    (tmp_path / "AGENT.md").write_text(
        "Use tabs.\n@docs/style.md\n" + "Prefer small functions. " * 40
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "style.md").write_text("Name things plainly.\n" * 30)
    agent, _ = make_agent(fake, tmp_path, env={"AGENT_MODEL": "deepseek-chat"})
    agent.messages[0]["content"] = system_prompt(tmp_path, tmp_path, trusted=True, language="ru")
    report = memory_report(tmp_path, tmp_path, trusted=True)
    total = int(report.rsplit("total ~", 1)[1].split(" ")[0].replace(",", ""))
    assert context_breakdown(agent)["parts"]["memory"] == total > 0
