"""A provider that says the context is full: the agent learns the window, compacts and retries
the step once; a conversation that still cannot fit ends the turn with a way out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, error, text
from helpers import close_all, make_agent, of_type, run_agent

from agent.base.events import Compacted, Notice
from agent.context.compaction import SUMMARY_PREFIX, Policy, is_valid
from agent.core.errors import overflow

SUMMARY = "## Task\nAnswer questions.\n## Open todos\nnone"
OPENAI_STYLE = (
    "This model's maximum context length is 1000 tokens. However, you requested 1480 tokens "
    "(1380 in the messages, 100 in the completion). Please reduce the length of the messages."
)


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


@pytest.mark.parametrize(
    ("status", "body", "limit"),
    [
        (400, {"message": OPENAI_STYLE, "code": "context_length_exceeded"}, 1000),
        (
            400,
            {
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5012,
                "n_ctx": 4096,
            },
            4096,
        ),
        (400, {"message": "Please reduce the length of the messages or completion."}, None),
        (413, {"message": "prompt is too long: 210000 tokens > 200000 maximum"}, None),
    ],
)
def test_provider_messages_are_recognised(status: int, body: dict, limit: int | None) -> None:
    found = overflow(status, body, body["message"])
    assert found is not None and found.limit == limit
    assert str(found).startswith("the conversation is too long for the model: ")


def test_other_errors_are_not_overflows() -> None:
    assert overflow(400, {"message": "invalid tool schema"}, "invalid tool schema") is None
    assert overflow(500, {}, "maximum context length is 5") is None  # retried, not compacted


async def three_turns(agent: object) -> None:
    for q in ("first question " * 20, "second question " * 20, "third question " * 20):
        end = await agent.run_turn(q)  # type: ignore[attr-defined]
        assert end.subtype == "success"


async def test_learns_the_window_compacts_and_retries(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("a1"), text("a2"), text("a3"))
    fake.script(error(400, OPENAI_STYLE), text(SUMMARY), text("a4"))
    agent, rec = make_agent(fake, tmp_path, settings={"contextLimit": 100_000})
    agent.compaction = Policy.from_config(agent.llm.cfg)
    await three_turns(agent)
    end = await agent.run_turn("fourth question")
    assert (end.subtype, end.text) == ("success", "a4")
    rejected, summary_req, retried = fake.requests[3:6]
    assert [m["role"] for m in summary_req["messages"]] == ["system", "user"]
    assert "first question" in summary_req["messages"][1]["content"]
    msgs = retried["messages"]
    assert is_valid(msgs) and msgs[1]["content"].startswith(SUMMARY_PREFIX)
    assert msgs[-1] == rejected["messages"][-1] == {"role": "user", "content": "fourth question"}
    assert len(msgs) < len(rejected["messages"])
    assert agent.compaction.context_limit == 1000
    notes = [n.message for n in of_type(rec, Notice)]
    assert "the model's context window is 1,000 tokens; using that from now on" in notes
    assert of_type(rec, Compacted)[0].trigger == "auto"
    assert [m["content"] for m in agent.messages if m["role"] == "assistant"][-1] == "a4"


async def test_an_unknown_window_is_bounded_by_the_rejected_size(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("a1"), text("a2"), text("a3"))
    fake.script(error(400, "Please reduce the length of the messages."), text(SUMMARY), text("a4"))
    agent, rec = make_agent(fake, tmp_path, settings={"contextLimit": 100_000})
    agent.compaction = Policy.from_config(agent.llm.cfg)
    await three_turns(agent)
    assert (await agent.run_turn("fourth")).text == "a4"
    assert agent.compaction.context_limit < 1000
    assert any("context window is under" in n.message for n in of_type(rec, Notice))


async def test_still_too_long_after_compacting_ends_the_turn(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("a1"), text("a2"), text("a3"))
    fake.script(error(400, OPENAI_STYLE), text(SUMMARY), error(400, OPENAI_STYLE))
    agent, _ = make_agent(fake, tmp_path, settings={"contextLimit": 100_000})
    agent.compaction = Policy.from_config(agent.llm.cfg)
    await three_turns(agent)
    end = await agent.run_turn("fourth question")
    assert end.subtype == "error_during_execution"
    assert "too long for the model" in end.error and "/clear" in end.error
    assert len(fake.requests) == 6  # no loop of compactions
    assert is_valid(agent.messages)


def test_one_shot_with_nothing_to_compact_fails_clearly(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake.script(error(400, OPENAI_STYLE))
    r = run_agent(fake_env, tmp_path, "--output-format", "json", "a very long question")
    assert r.returncode == 1
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["subtype"] == "error_during_execution"
    assert "maximum context length is 1000 tokens" in result["error"]
    assert "cannot be made to fit" in result["error"]
    assert len(fake.requests) == 1
