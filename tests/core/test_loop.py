"""The loop end to end over real HTTP/SSE: tools, dialects, errors as values, turn limits."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import TOOLS, Clock, close_all, make_agent, of_type

from agent.base.events import AssistantMessage, Notice, TextDelta, ToolEnd, ToolStart, TurnEnd
from agent.base.record import ToolResult
from agent.context.compaction import is_valid


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


async def test_text_streams_as_deltas(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("The answer is 42.", pieces=6))
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("question")
    assert end.subtype == "success"
    assert end.text == "The answer is 42."
    assert len(of_type(rec, TextDelta)) == 6
    body = fake.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert [t["function"]["name"] for t in body["tools"]] == ["echo", "slow", "touch"]
    assert agent.totals.input_tokens > 0


@pytest.mark.parametrize("dialect", ["openai", "no_index", "index0", "one_chunk", "args_in_first"])
async def test_tool_call_dialects_run_and_reply(
    fake: FakeOpenAI, tmp_path: Path, dialect: str
) -> None:
    calls = [("echo", {"text": "a"}), ("echo", {"text": "b", "n": 2})]
    fake.script(tool_calls(calls, pieces=5, dialect=dialect), text("done"))
    agent, _ = make_agent(fake, tmp_path)
    end = await agent.run_turn("go")
    assert end.subtype == "success"
    assert end.num_turns == 2
    second = fake.requests[1]["messages"]
    assistant = second[-3]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["echo", "echo"]
    results = [m["content"] for m in tool_results(fake.requests[1])]
    assert results == ['echo:{"text": "a"}', 'echo:{"n": 2, "text": "b"}']
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert [m["tool_call_id"] for m in tool_results(fake.requests[1])] == ids


async def test_repeated_call_ids_still_pair_each_result(fake: FakeOpenAI, tmp_path: Path) -> None:
    calls = [("echo", {"text": "one"}), ("echo", {"text": "two"}), ("echo", {"text": "three"})]
    fake.script(tool_calls(calls, ids=["dup", "dup", ""]), text("ok"))
    agent, _ = make_agent(fake, tmp_path)
    await agent.run_turn("go")
    sent = fake.requests[1]["messages"]
    ids = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert ids[0] == "dup" and len(set(ids)) == 3
    results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert [results[i] for i in ids] == [
        'echo:{"text": "one"}',
        'echo:{"text": "two"}',
        'echo:{"text": "three"}',
    ]


async def test_interleaved_parallel_calls(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only calls of one reply run concurrently: each of the two waits until the other
    has started too, which one after the other never happens (each would wait alone)."""
    running: list[str] = []
    both = asyncio.Event()

    async def meet(args: dict[str, Any], ctx: Any) -> ToolResult:
        running.append(str(args["seconds"]))
        if len(running) == 2:
            both.set()
        try:
            await asyncio.wait_for(both.wait(), 30)
        except asyncio.TimeoutError:
            return ToolResult("waited alone")
        return ToolResult(f"slept {args['seconds']}")

    monkeypatch.setitem(TOOLS, "slow", replace(TOOLS["slow"], run=meet))
    calls = [("slow", {"seconds": 0.5}), ("slow", {"seconds": 0.5})]
    fake.script(tool_calls(calls, pieces=4, interleave=True), text("ok"))
    agent, rec = make_agent(fake, tmp_path)
    await agent.run_turn("go")
    assert [e.output for e in of_type(rec, ToolEnd)] == ["slept 0.5", "slept 0.5"]


@pytest.mark.parametrize(
    ("name", "args", "expect"),
    [
        ("echo", '{"text": "a",', "not valid JSON"),
        ("nope", '{"text": "a"}', "unknown tool 'nope'"),
        ("", "{}", "unknown tool ''"),  # kept in the history as a name providers accept
        ("read file.py", "{}", "unknown tool 'read file.py'"),
        ("echo", '{"n": 1}', "missing required parameter 'text'"),
        ("echo", '{"text": "a", "n": "many"}', "parameter 'n' must be integer"),
        ("echo", "[1, 2]", "must be a JSON object"),
    ],
)
async def test_bad_calls_become_error_results(
    fake: FakeOpenAI, tmp_path: Path, name: str, args: str, expect: str
) -> None:
    fake.script(tool_calls([(name, args)]), text("sorry"))
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("go")
    assert end.subtype == "success"
    [result] = tool_results(fake.requests[1])
    assert expect in result["content"]
    assert "can_retry: true" in result["content"]
    assert of_type(rec, ToolEnd)[0].is_error
    assistant = fake.requests[1]["messages"][-2]
    json.loads(assistant["tool_calls"][0]["function"]["arguments"])  # history stays valid JSON
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", assistant["tool_calls"][0]["function"]["name"])


async def test_model_mistakes_are_repaired(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(tool_calls([("echo", '{"text": "a", "n": "3"}')]), text("ok"))
    agent, _ = make_agent(fake, tmp_path)
    await agent.run_turn("go")
    assert tool_results(fake.requests[1])[0]["content"] == 'echo:{"n": 3, "text": "a"}'


async def test_length_cut_inside_arguments_never_executes(fake: FakeOpenAI, tmp_path: Path) -> None:
    cut = tool_calls([("touch", '{"path": "x.txt", "conte')], finish="length")
    fake.script(cut, text("I will write it in parts."))
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("write a big file")
    assert not (tmp_path / "x.txt").exists()
    assert end.subtype == "success"
    msgs = fake.requests[1]["messages"]
    assert "tool_calls" not in msgs[-2]
    assert msgs[-1]["role"] == "user"
    assert "output token limit" in msgs[-1]["content"]
    assert of_type(rec, Notice)


async def test_turn_limit(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(*(tool_calls([("echo", {"text": str(i)})]) for i in range(3)))
    agent, _ = make_agent(fake, tmp_path, max_steps=3)
    end = await agent.run_turn("loop forever")
    assert end.subtype == "error_max_turns"
    assert "--max-turns" in (end.error or "")


async def test_identical_calls_are_capped(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(*(tool_calls([("echo", {"text": "same"})]) for _ in range(4)), text("ok"))
    agent, _ = make_agent(fake, tmp_path)
    await agent.run_turn("go")
    last = tool_results(fake.requests[4])[-1]["content"]
    assert "already made 3 times" in last


async def test_a_model_in_a_loop_is_stopped_before_the_step_limit(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    """The step limit is high (200): a model that keeps making calls it already made three
    times is stopped after three such steps in a row; one new call in between resets that."""
    same = [tool_calls([("echo", {"text": "same"})]) for _ in range(5)]
    fake.script(*same, tool_calls([("echo", {"text": "new"})]), *same[:3])
    agent, _ = make_agent(fake, tmp_path, max_steps=50)
    end = await agent.run_turn("go")
    assert end.subtype == "error_max_turns"
    assert "3 steps in a row: stopped (a loop)" in (end.error or "")
    assert len(fake.requests) == 9  # 3 ran, 2 refused, 1 new, 3 refused: stopped there
    assert is_valid(agent.messages)  # every call answered: the session goes on from here


async def test_interrupt_leaves_a_valid_history(fake: FakeOpenAI, tmp_path: Path) -> None:
    calls = [("echo", {"text": "fast"}), ("slow", {"seconds": 30})]
    fake.script(tool_calls(calls), text("after"))
    agent, rec = make_agent(fake, tmp_path)
    task = asyncio.ensure_future(agent.run_turn("go"))
    for _ in range(400):  # until echo has ended and slow runs (a busy machine: a moment)
        if of_type(rec, ToolEnd) and [s.name for s in of_type(rec, ToolStart)][-1:] == ["slow"]:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert of_type(rec, TurnEnd)[-1].subtype == "error_interrupted"
    results = [m for m in agent.messages if m["role"] == "tool"]
    assert len(results) == 2
    assert "interrupted" in results[1]["content"]
    ended = of_type(rec, ToolEnd)
    assert [e.name for e in ended] == ["echo", "slow"]  # the stopped call is shown as ended
    assert ended[1].is_error
    end = await agent.run_turn("continue")
    assert end.text == "after"
    sent = fake.requests[1]["messages"]
    ids = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert ids == [m["tool_call_id"] for m in sent if m["role"] == "tool"]


async def test_dsml_leak_runs_through_the_normal_path(fake: FakeOpenAI, tmp_path: Path) -> None:
    leak = (
        '<｜DSML｜tool_calls><｜DSML｜invoke name="echo"><｜DSML｜parameter name="text" '
        'string="true">hi</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>'
    )
    fake.script(text(leak, pieces=9), text("done"))
    agent, rec = make_agent(fake, tmp_path)
    await agent.run_turn("go")
    assert "".join(e.text for e in of_type(rec, TextDelta)) == "done"
    assert tool_results(fake.requests[1])[0]["content"] == 'echo:{"text": "hi"}'
    assert of_type(rec, AssistantMessage)[0].tool_calls[0]["name"] == "echo"


async def test_permission_denied_without_terminal(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(tool_calls([("touch", {"path": "x"})]), text("could not"))
    agent, _rec = make_agent(fake, tmp_path, mode="default")
    await agent.run_turn("touch x")
    assert not (tmp_path / "x").exists()
    assert "permission denied" in tool_results(fake.requests[1])[0]["content"]


async def test_a_failing_layer_becomes_a_tool_error_and_the_turn_goes_on(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    from agent.context.compaction import is_valid
    from agent.core.dispatch import Dispatcher

    async def boom(call: Any, ctx: Any, nxt: Any) -> Any:
        if call.args.get("text") == "bad":
            raise OSError(36, "File name too long")
        return await nxt(call, ctx)

    fake.script(tool_calls([("echo", {"text": "bad"}), ("echo", {"text": "ok"})]), text("fine"))
    agent, _ = make_agent(fake, tmp_path)
    agent.dispatcher = Dispatcher(agent.tools, (boom,))
    end = await agent.run_turn("go")
    assert (end.subtype, end.text) == ("success", "fine")
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert results[0].startswith("Error: echo could not run: OSError: [Errno 36] File name")
    assert results[1] == 'echo:{"text": "ok"}'
    assert is_valid(agent.messages)


async def test_an_internal_error_mid_turn_still_answers_every_call(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    from agent.context.compaction import is_valid

    fake.script(tool_calls([("echo", {"text": "a"})]))
    agent, rec = make_agent(fake, tmp_path)

    async def broken(*args: Any, **kw: Any) -> None:
        raise RuntimeError("a bug")

    agent.dispatcher.run_all = broken  # type: ignore[method-assign]
    end = await agent.run_turn("go")
    assert end.subtype == "error_during_execution"
    assert end.error == "internal error: RuntimeError: a bug"
    assert of_type(rec, TurnEnd)[-1] is end
    assert is_valid(agent.messages)
    assert "the agent failed" in agent.messages[-1]["content"]


async def test_a_tools_duration_leaves_out_the_permission_prompt(
    tmp_path: Path, clock: Clock
) -> None:
    from helpers import TOOLS, Recorder

    from agent.base.record import Call, ToolContext
    from agent.core.dispatch import Dispatcher
    from agent.permissions.gate import Gate
    from agent.permissions.request import Answer

    async def slow_user(req: Any) -> Answer:
        await clock.advance(1.0)  # reading the diff, thinking it over
        return Answer("y")

    rec = Recorder()
    gate = Gate(TOOLS, {}, "default", rec, slow_user, workspace=tmp_path)
    dispatcher = Dispatcher(TOOLS, (gate,))
    call = Call("c1", "touch", {"path": "t.txt"})
    await dispatcher.run_one(call, ToolContext(cwd=tmp_path), rec)
    (end,) = of_type(rec, ToolEnd)
    assert not end.is_error, end.output
    assert end.duration_ms == 0  # the tool's own time (none on this clock), not the second asking


async def test_a_request_failing_after_tool_results_ends_on_an_assistant_message(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    from fake_openai import error

    from agent.context.compaction import is_valid

    fake.script(tool_calls([("echo", {"text": "a"})]), error(400, "nope"), text("back"))
    agent, _ = make_agent(fake, tmp_path)
    end = await agent.run_turn("go")
    assert end.subtype == "error_during_execution"
    roles = [m["role"] for m in agent.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert agent.messages[-1]["content"] == "[no reply: request rejected (400): nope]"
    await agent.run_turn("again")
    sent = [m["role"] for m in fake.requests[-1]["messages"]]
    assert sent == [*roles, "user"]  # never a user message right after tool results
    assert is_valid(agent.messages)
