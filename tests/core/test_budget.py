"""agent.core.budget: the estimate before a request, what is counted after it, requests in
flight (concurrent subagents) and a model without a price."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from helpers import close_all, make_agent

from agent.base.messages import Message, ToolCall
from agent.base.tokens import estimate_messages
from agent.config.automation import Automation
from agent.config.load import Flags
from agent.config.prices import Price
from agent.core.budget import OUTPUT_FLOOR, Budget, BudgetStop
from agent.core.stream import Reply

DOLLAR_PER_M = Price(1.0, 0.1, 1.0)  # $1 per million tokens, in and out
MESSAGES: list[Message] = [{"role": "user", "content": "word " * 100}]


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


def reply(prompt: int = 100, out: int = 10) -> Reply:
    usage = {"input_tokens": prompt, "output_tokens": out, "cached_tokens": 0}
    return Reply("ok", usage={**usage, "reasoning_tokens": 0})


async def test_a_request_within_the_caps_is_sent_and_counted() -> None:
    budget = Budget(max_usd=1.0, max_tokens=100_000)
    sent: list[int] = []

    async def request() -> Reply:
        sent.append(1)
        return reply(5_000, 2_000)

    await budget.guard(MESSAGES, [], DOLLAR_PER_M, request)
    assert sent == [1]
    assert budget.tokens == 7_000
    assert budget.spent.cost_usd == pytest.approx(0.007)
    assert budget.longest == 2_000  # the next estimate's output allowance
    assert budget.held_tokens == 0 and budget.held_usd == 0


async def test_the_request_that_would_pass_is_never_sent() -> None:
    size = estimate_messages(MESSAGES) + OUTPUT_FLOOR
    budget = Budget(max_tokens=size + 50)
    budget.spent.add(reply(40, 20).usage, None)  # 60 spent: 10 too many

    async def request() -> Reply:
        raise AssertionError("sent")

    with pytest.raises(BudgetStop) as e:
        await budget.guard(MESSAGES, [], None, request)
    assert e.value.subtype == "error_max_tokens_total"
    assert f"about {size:,} tokens" in str(e.value)
    budget = Budget(max_usd=0.001)  # $0.001 = 1,000 tokens: less than the floor alone
    with pytest.raises(BudgetStop) as e:
        await budget.guard(MESSAGES, [], DOLLAR_PER_M, request)
    assert e.value.subtype == "error_max_budget_usd"
    assert "--max-budget-usd" in str(e.value)


async def test_input_is_priced_as_cache_misses_and_output_by_the_longest_reply() -> None:
    budget = Budget(max_usd=10.0)
    budget.longest = 4_000
    prompt = estimate_messages(MESSAGES)
    seen: list[float] = []

    async def request() -> Reply:
        seen.append(budget.held_usd)
        return reply()

    await budget.guard(MESSAGES, [], DOLLAR_PER_M, request)
    assert seen == [pytest.approx((prompt + 4_000) / 1e6)]


async def test_requests_in_flight_count_against_the_cap() -> None:
    size = estimate_messages(MESSAGES) + OUTPUT_FLOOR
    budget = Budget(max_tokens=size * 2 - 1)  # room for one estimate, not two at once
    release = asyncio.Event()

    async def slow() -> Reply:
        await release.wait()
        return reply(10, 5)

    first = asyncio.ensure_future(budget.guard(MESSAGES, [], None, slow))
    await asyncio.sleep(0)
    assert budget.held_tokens == size
    with pytest.raises(BudgetStop):
        await budget.guard(MESSAGES, [], None, slow)
    release.set()
    await first
    assert budget.held_tokens == 0
    await budget.guard(MESSAGES, [], None, slow)  # the first one cost little: room again


async def test_a_failed_request_releases_its_hold_and_counts_what_it_was_billed() -> None:
    budget = Budget(max_tokens=1_000_000)

    async def fails() -> Reply:
        raise RuntimeError("down")

    with pytest.raises(RuntimeError):
        await budget.guard(MESSAGES, [], None, fails, lambda: "word " * 40)
    assert budget.held_tokens == 0
    assert budget.spent.input_tokens == estimate_messages(MESSAGES)  # its input, by estimate
    assert budget.spent.output_tokens >= 40  # and the text it streamed before it failed


async def test_without_a_price_only_tokens_are_kept() -> None:
    budget = Budget(max_usd=0.000001)

    async def request() -> Reply:
        return reply()

    await budget.guard(MESSAGES, [], None, request)  # the dollar cap cannot be checked
    assert budget.report() == {
        "max_budget_usd": 0.000001,
        "max_tokens_total": None,
        "spent_usd": None,
        "spent_tokens": 110,
    }


async def test_a_reply_without_usage_is_counted_by_estimate() -> None:
    budget = Budget(max_tokens=1_000_000)

    async def request() -> Reply:
        return Reply("word " * 50, calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')])

    await budget.guard(MESSAGES, [], None, request)
    assert budget.spent.input_tokens == estimate_messages(MESSAGES)
    assert budget.spent.output_tokens > 50


def test_no_cap_no_budget_and_copies_share_one(fake: FakeOpenAI, tmp_path: Path) -> None:
    assert Budget.of(Automation()) is None
    capped = Flags(trust_project=True, automation=Automation(max_tokens_total=5_000))
    agent, _ = make_agent(fake, tmp_path, flags=capped)
    assert agent.llm.budget is not None and agent.llm.budget.max_tokens == 5_000
    child = copy.copy(agent.llm)  # what a subagent's client is (agent.subagents.runner)
    assert child.budget is agent.llm.budget


async def test_the_loop_ends_the_turn_with_the_caps_subtype(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    capped = Flags(trust_project=True, automation=Automation(max_tokens_total=100))
    agent, _ = make_agent(fake, tmp_path, flags=capped)
    end = await agent.run_turn("hello")
    assert end.subtype == "error_max_tokens_total"
    assert fake.requests == []
    assert agent.messages[-1]["role"] == "assistant"  # the history stays a valid request
    fake.script(text("fine"))
    agent.llm.budget = None
    assert (await agent.run_turn("again")).subtype == "success"
