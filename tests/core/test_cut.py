"""Replies the output token limit cut (issue 21): the complete calls before the cut one run, the
model is told which call was dropped (each name once) and the user gets their own words, a
repetition loop is named as one, a cut compaction summary is retried shorter or rejected, and
stream-json / json say the answer was truncated."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import close_all, make_agent, of_type, run_agent

from agent.base.events import Notice
from agent.context.compaction import SHORTER, SUMMARY_PREFIX, Policy
from agent.core.cut import repeating


@pytest.fixture(autouse=True)
async def _isolated() -> AsyncIterator[None]:
    yield
    await close_all()  # the agents' clients close on this test's own event loop


async def test_the_calls_before_a_cut_one_run(fake: FakeOpenAI, tmp_path: Path) -> None:
    cut = '{"path": "b.txt", "content": "half of it'
    fake.script(
        tool_calls([("echo", {"text": "alpha"}), ("touch", cut), ("touch", cut)], finish="length"),
        text("done"),
    )
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("go")
    assert end.subtype == "success"
    second = fake.requests[1]["messages"]
    assistant = next(m for m in second if m["role"] == "assistant")
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["echo"]
    assert "alpha" in next(m for m in second if m["role"] == "tool")["content"]
    told = second[-1]["content"]
    assert told.startswith("[agent] Your reply hit the output token limit")
    assert told.count("touch") == 1 and "The calls before it ran (echo)" in told
    assert not (tmp_path / "b.txt").exists()
    [note] = [n.message for n in of_type(rec, Notice) if "output token limit" in n.message]
    assert note.startswith("the model's reply was cut at its output token limit inside touch")
    assert "echo ran" in note and "[agent]" not in note


async def test_a_repetition_loop_is_named(fake: FakeOpenAI, tmp_path: Path) -> None:
    loop = '{"path": "x.py", "content": "' + "print('again')\\n" * 200
    fake.script(tool_calls([("touch", loop)], finish="length"), text("sorry"))
    agent, rec = make_agent(fake, tmp_path)
    await agent.run_turn("write x.py")
    told = fake.requests[1]["messages"][-1]["content"]
    assert "repeated the same text" in told and "smaller arguments" not in told
    assert any("went round in circles" in n.message for n in of_type(rec, Notice))
    assert repeating("abc" * 10 + "the same line\n" * 20)
    assert not repeating("a normal reply that says different things in every sentence. " * 1)


async def test_a_cut_summary_is_retried_shorter_then_rejected(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("a1"), text("a2"))
    agent, rec = make_agent(fake, tmp_path)
    await agent.run_turn("q1")
    await agent.run_turn("q2")
    agent.compaction = Policy(100_000, keep_turns=1)
    fake.script(
        text("## Task\nq1 and", finish="length"), text("## Task\nq1 done\n## Open todos\nnone")
    )
    assert await agent.compact()
    assert agent.messages[1]["content"].startswith(SUMMARY_PREFIX)
    assert "q1 done" in agent.messages[1]["content"]  # the complete second summary
    assert SHORTER in fake.requests[-1]["messages"][1]["content"]
    fake.script(text("a3"))
    await agent.run_turn("q3")
    fake.script(text("cut", finish="length"), text("cut again", finish="length"))
    assert await agent.compact()
    assert "cut again" not in str(agent.messages)  # never kept silently
    assert any("summarising failed" in n.message for n in of_type(rec, Notice))


def test_json_and_stream_json_say_the_answer_was_truncated(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("The list: 1, 2, 3", finish="length"))
    r = run_agent(fake_env, project, "--output-format", "stream-json", "count")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    [assistant] = [e for e in lines if e["type"] == "assistant"]
    assert assistant["message"]["stop_reason"] == "max_tokens"
    first_id = assistant["message"]["id"]
    notes = [e for e in lines if e["type"] == "system" and e.get("subtype") == "notice"]
    assert any("output token limit" in n["message"] for n in notes)
    result = lines[-1]
    assert (result["truncated"], result["stop_reason"]) == (True, "max_tokens")
    fake.script(text("again", finish="length"))
    r = run_agent(fake_env, project, "--output-format", "json", "count")
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["truncated"] is True
    assert any(json.loads(line)["type"] == "notice" for line in r.stdout.splitlines())
    fake.script(text("other session"))
    r = run_agent(fake_env, project, "--output-format", "stream-json", "hi")
    ids = [
        json.loads(line)["message"]["id"] for line in r.stdout.splitlines() if '"assistant"' in line
    ]
    assert ids and first_id not in ids  # unique across sessions, not only within one
