"""Compaction: where to cut, what the summary request looks like, and a valid history after it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, error, text, tool_calls
from helpers import close_all, make_agent, of_type

from agent.base.events import Compacted, Notice, Recorder
from agent.context.compaction import (
    ACK,
    DROPPED_PREFIX,
    IN_TURN_NOTE,
    REQUEST_HEADER,
    SUMMARY_PREFIX,
    Policy,
    closed,
    is_valid,
    open_request,
    rebuild,
    should_compact,
    split_point,
)
from agent.hooks.hooks import Hooks, Outcome
from agent.ui.render import JsonRenderer

Msg = dict[str, Any]
SUMMARY = "## Task\nRename foo to bar.\n## Open todos\nnone"


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


def call(i: str, name: str = "echo") -> Msg:
    return {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}


def turn(n: int, steps: int = 1, size: int = 10) -> list[Msg]:
    """One user turn: `steps` tool-call steps with results of `size` words, then an answer."""
    out: list[Msg] = [{"role": "user", "content": f"question {n}"}]
    for s in range(steps):
        cid = f"c{n}_{s}"
        out.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call(cid)],
                "reasoning_content": f"thinking {n}.{s}",
            }
        )
        out.append({"role": "tool", "tool_call_id": cid, "content": "word " * size})
    out.append({"role": "assistant", "content": f"answer {n}"})
    return out


def history(*turns: list[Msg]) -> list[Msg]:
    return [{"role": "system", "content": "sys"}] + [m for t in turns for m in t]


def test_should_compact_at_threshold() -> None:
    p = Policy(1000, 0.8)
    assert not should_compact(800, p)
    assert should_compact(801, p)
    assert p.keep_budget == 400


def test_split_keeps_last_turns_at_user_boundaries() -> None:
    msgs = history(turn(1), turn(2), turn(3), turn(4))
    cut = split_point(msgs, 2)
    assert msgs[cut] == {"role": "user", "content": "question 3"}
    assert closed(msgs[:cut])
    assert closed(msgs[cut:])
    assert split_point(history(turn(1), turn(2)), 2) == 0  # nothing older to summarise


def test_split_keeps_fewer_turns_when_they_exceed_the_budget() -> None:
    msgs = history(turn(1), turn(2, size=50), turn(3, size=300))
    cut = split_point(msgs, 2, budget=400)
    assert msgs[cut]["content"] == "question 3"


def test_split_inside_a_huge_turn_only_before_an_assistant() -> None:
    msgs = history(turn(1), turn(2, steps=6, size=100))
    cut = split_point(msgs, 2, budget=250)
    assert msgs[cut]["role"] == "assistant"
    assert "tool_calls" in msgs[cut]
    assert closed(msgs[:cut])
    assert closed(msgs[cut:])
    new = rebuild(msgs, cut, "state")
    assert is_valid(new)
    assert new[2] is msgs[cut]
    assert new[2]["reasoning_content"]  # kept verbatim for DeepSeek's thinking mode


def test_split_ignores_earlier_summaries() -> None:
    msgs = rebuild(history(turn(1), turn(2), turn(3)), 5, "old state")
    assert split_point(msgs, 2) == 0  # only the summary and its ack before the kept turns


def test_rebuild_adds_ack_and_carries_the_env_block() -> None:
    first = turn(1)
    first[0]["content"] = "<env>\ndate: 2026-01-01\n</env>\n\nquestion 1"
    msgs = history(first, turn(2), turn(3))
    cut = split_point(msgs, 2)
    new = rebuild(msgs, cut, "state")
    assert new[1]["content"].startswith(SUMMARY_PREFIX)
    assert "date: 2026-01-01" in new[1]["content"]
    assert new[2] == {"role": "assistant", "content": ACK}
    assert new[3:] == msgs[cut:]
    assert is_valid(new)
    dropped = rebuild(msgs, cut, None)
    assert dropped[1]["content"].startswith(DROPPED_PREFIX)
    assert is_valid(dropped)


def test_rebuild_carries_the_skills_list_too() -> None:
    first = turn(1)
    skills = "<skills>\nSkills available here: ...\n- csv-report: Report on CSV files.\n</skills>"
    first[0]["content"] = (
        f"<env>\ndate: 2026-01-01\n</env>\n\n<repo-map>\nbig\n</repo-map>\n\n{skills}\n\nq"
    )
    msgs = history(first, turn(2), turn(3))
    new = rebuild(msgs, split_point(msgs, 2), "state")
    assert "date: 2026-01-01" in new[1]["content"] and skills in new[1]["content"]
    assert "<repo-map>" not in new[1]["content"]  # the map is rebuilt from files, not carried


def test_validity_checks_catch_orphans() -> None:
    msgs = history(turn(1, steps=2))
    assert is_valid(msgs)
    assert not is_valid(msgs[:2] + msgs[3:])  # a tool call without its result
    assert not is_valid([msgs[0], *msgs[3:]])  # a result without its call


def session(big_usage: dict[str, int], summary_turn: Any) -> list[Any]:
    """Two turns (the second with reasoning), the second answer reports a nearly full context."""
    return [
        tool_calls([("echo", {"text": "read foo.py"})]),
        text("foo is defined in foo.py"),
        tool_calls([("echo", {"text": "rename"})], reasoning="I should rename it"),
        text("renamed", usage=big_usage),
        summary_turn,
        text("done with turn three"),
    ]


BIG = {"prompt_tokens": 850, "completion_tokens": 20, "total_tokens": 870}


async def test_auto_compaction_over_a_small_context(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(*session(BIG, text(SUMMARY, usage={"prompt_tokens": 300, "completion_tokens": 40})))
    agent, rec = make_agent(fake, tmp_path, settings={"contextLimit": 1000})
    agent.compaction = Policy.from_config(agent.llm.cfg)
    for q in ("Task: rename foo to bar", "now do it", "and check"):
        await agent.run_turn(q)
    summary_req, after = fake.requests[4], fake.requests[5]
    assert "tools" not in summary_req
    assert [m["role"] for m in summary_req["messages"]] == ["system", "user"]
    transcript = summary_req["messages"][1]["content"]
    assert "Task: rename foo to bar" in transcript
    assert "foo is defined in foo.py" in transcript
    assert "now do it" not in transcript  # the kept turns are not summarised
    msgs = after["messages"]
    assert is_valid(msgs)
    assert msgs[0] == fake.requests[0]["messages"][0]
    assert msgs[1]["content"].startswith(SUMMARY_PREFIX)
    assert SUMMARY in msgs[1]["content"]
    assert msgs[2] == {"role": "assistant", "content": ACK}
    before = fake.requests[3]["messages"]
    kept = before[before.index({"role": "user", "content": "now do it"}) :]
    assert msgs[3 : 3 + len(kept)] == kept  # turn two verbatim, reasoning included
    assert kept[1]["reasoning_content"] == "I should rename it"
    assert msgs[-1] == {"role": "user", "content": "and check"}
    [event] = of_type(rec, Compacted)
    assert event.trigger == "auto"
    assert event.pre_tokens > 800 > event.post_tokens
    assert event.messages == agent.messages[: len(event.messages)]
    assert agent.totals.requests == 6
    assert agent.totals.input_tokens >= 850 + 300


@pytest.mark.parametrize("failure", [error(400, "context too long"), text("   ")])
async def test_failed_summary_drops_whole_turns(
    fake: FakeOpenAI, tmp_path: Path, failure: Any
) -> None:
    fake.script(*session(BIG, failure))
    agent, rec = make_agent(fake, tmp_path, settings={"contextLimit": 1000})
    agent.compaction = Policy(1000)
    for q in ("Task: rename foo to bar", "now do it", "and check"):
        end = await agent.run_turn(q)
    assert end.subtype == "success"
    msgs = fake.requests[-1]["messages"]
    assert is_valid(msgs)
    assert msgs[1]["content"].startswith(DROPPED_PREFIX)
    assert "Task: rename" not in json.dumps(msgs)
    assert [m["content"] for m in msgs if m["role"] == "user"][1:] == ["now do it", "and check"]
    assert any("summarising failed" in n.message for n in of_type(rec, Notice))
    assert of_type(rec, Compacted)[0].messages is not None


class FakeHooks(Hooks):
    """The real hooks layer with every event recorded instead of running commands."""

    def __init__(self) -> None:
        super().__init__({}, session_id="s", cwd=Path("."), sink=Recorder())
        self.fired: list[tuple[str, dict[str, Any]]] = []

    async def fire(
        self, event: str, payload: dict[str, Any] | None = None, tool: str | None = None
    ) -> Outcome:
        self.fired.append((event, payload or {}))
        return Outcome(context=["Keep the public API names."] if event == "PreCompact" else [])


async def test_manual_compact_with_focus_and_hook(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("a1"), text("a2"), text("a3"), text(SUMMARY))
    agent, rec = make_agent(fake, tmp_path)
    assert not await agent.compact("anything")  # nothing to compact yet
    assert "nothing to compact" in of_type(rec, Notice)[-1].message
    for q in ("q1", "q2", "q3"):
        await agent.run_turn(q)
    agent.hooks = FakeHooks()
    assert await agent.compact(focus="the parser changes")
    assert agent.hooks.fired == [
        ("PreCompact", {"trigger": "manual", "custom_instructions": "the parser changes"})
    ]
    ask = fake.requests[-1]["messages"][1]["content"]
    assert "Focus especially on: the parser changes" in ask
    assert "Keep the public API names." in ask
    assert [m["role"] for m in agent.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert of_type(rec, Compacted)[-1].trigger == "manual"


def test_json_renderer_prints_compact_without_messages() -> None:
    out = io.StringIO()
    JsonRenderer(out).emit(Compacted("auto", 900, 300, messages=[{"role": "system"}]))
    assert json.loads(out.getvalue()) == {
        "type": "compact",
        "trigger": "auto",
        "pre_tokens": 900,
        "post_tokens": 300,
    }


def test_one_shot_long_turn_compacts_inside_the_turn(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """The real app wiring: contextLimit from settings, a `compact` JSON line, a valid request."""
    proj = tmp_path / "proj"
    (proj / ".agent").mkdir(parents=True)
    hook = 'cat > precompact.json; echo \'{"additionalContext": "keep the API names"}\''
    settings = {"contextLimit": 6000, "hooks": {"PreCompact": [{"command": hook}]}}
    (proj / ".agent" / "settings.json").write_text(json.dumps(settings))
    for name in ("a.txt", "b.txt"):
        (proj / name).write_text(f"{name} line\n" * 250)
    full = {"prompt_tokens": 5000, "completion_tokens": 10}
    fake.script(
        tool_calls([("read_file", {"path": "a.txt"})]),
        tool_calls([("read_file", {"path": "b.txt"})], usage=full),
        text(SUMMARY),
        text("both files read"),
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent",
            "--output-format",
            "json",
            "--trust-project",
            "read a.txt then b.txt",
        ],
        env=fake_env,
        cwd=proj,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 0, r.stderr
    [event] = [o for o in out if o["type"] == "compact"]
    assert event["trigger"] == "auto"
    assert event["pre_tokens"] > 4800 and event["post_tokens"] < event["pre_tokens"] - 100
    assert "tools" not in fake.requests[2]
    assert "keep the API names" in fake.requests[2]["messages"][1]["content"]
    payload = json.loads((proj / "precompact.json").read_text())
    assert payload["hook_event_name"] == "PreCompact"
    assert payload["trigger"] == "auto"
    msgs = fake.requests[3]["messages"]
    assert is_valid(msgs)
    assert [m["role"] for m in msgs[1:]] == ["user", "assistant", "tool"]
    assert "b.txt" in msgs[2]["tool_calls"][0]["function"]["arguments"]
    assert msgs[1]["content"].startswith(SUMMARY_PREFIX)
    assert "<env>" in msgs[1]["content"]
    # the request that started the turn survives word for word, and the summariser was told
    assert msgs[1]["content"].endswith(f"{REQUEST_HEADER}\nread a.txt then b.txt")
    assert IN_TURN_NOTE in fake.requests[2]["messages"][1]["content"]
    assert out[-1]["type"] == "result"
    assert out[-1]["num_turns"] == 4


def test_a_cut_inside_a_turn_keeps_its_request_verbatim() -> None:
    """Issue 20: the request is not summarised away when the split falls inside its turn."""
    long_ask = "Rename `foo` to `bar` in every module, keep the old name as an alias, " * 20
    first = turn(1)
    first[0]["content"] = "<env>\ndate: today\n</env>\n\n" + "question 1"
    big = turn(2, steps=6, size=60)
    big[0]["content"] = long_ask
    msgs = history(first, big)
    cut = split_point(msgs, 1, budget=250)
    assert msgs[cut]["role"] == "assistant"  # inside the second turn
    assert open_request(msgs, cut) == long_ask.strip()
    for summary in (SUMMARY, None):  # summarised, or dropped when summarising failed
        new = rebuild(msgs, cut, summary)
        assert is_valid(new)
        assert new[1]["content"].endswith(f"{REQUEST_HEADER}\n{long_ask.strip()}")
        assert "<env>" in new[1]["content"]  # carried once, from the first turn
    assert open_request(history(turn(1), turn(2)), 5) == ""  # a cut at a user turn: none
