"""Roles alternate in every request, as strict chat templates (Mistral, Gemma) require: a turn
cut short (Esc, a failed request, the step limit) still ends on an assistant message that keeps
what the user saw, and a resumed session with consecutive user messages is repaired."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from fake_openai import FakeOpenAI, error, text, tool_calls
from helpers import close_all, make_agent, of_type, run_agent
from pty_term import Term, plain_repl

from agent.base.events import TextDelta
from agent.context.compaction import is_valid
from agent.session.recorder import INTERRUPTED_RESULT, NO_REPLY, repair_history
from agent.session.store import load, messages_of, sessions_dir

READY = "shift-tab"
TICKS = "tick " * 200


def alternates(messages: list[dict[str, Any]]) -> bool:
    """system? user (assistant (tool* assistant)? user)* …: what a strict template accepts."""
    after = {
        "user": ("system", "assistant"),
        "assistant": ("user", "tool"),
        "tool": ("assistant", "tool"),
    }
    roles = [m["role"] for m in messages if m["role"] != "system"]
    if roles and roles[0] != "user":
        return False
    prev = "system"
    for role in roles:
        if prev not in after[role]:
            return False
        prev = role
    return True


def test_the_checker_rejects_what_strict_templates_reject() -> None:
    u, a, t = ({"role": r} for r in ("user", "assistant", "tool"))
    assert alternates([{"role": "system"}, u, a, u, a, t, a, u])
    assert not alternates([u, u])
    assert not alternates([u, a, t, u])
    assert not alternates([u, a, a])


@pytest.fixture
async def _closing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


# -- in-process, over real HTTP/SSE --------------------------------------------------------
@pytest.mark.usefixtures("_closing")
async def test_cancel_mid_stream_keeps_the_seen_text(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text(TICKS, pieces=200, delay=0.02), text("second"))
    agent, rec = make_agent(fake, tmp_path)
    turn = asyncio.ensure_future(agent.run_turn("slow one"))
    deadline = time.monotonic() + 20
    while len(of_type(rec, TextDelta)) < 3:  # some of the reply has reached the user
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    last = agent.messages[-1]
    assert last["role"] == "assistant"
    assert last["content"].startswith("tick tick")
    assert last["content"].endswith("\n\n[interrupted by the user]")
    await agent.run_turn("after esc")
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == last["content"]
    assert alternates(sent) and is_valid(sent)


@pytest.mark.usefixtures("_closing")
async def test_a_failed_request_leaves_a_no_reply_message(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(error(400, "bad things"), text("fine now"))
    agent, _ = make_agent(fake, tmp_path)
    end = await agent.run_turn("first")
    assert end.subtype == "error_during_execution"
    assert agent.messages[-1] == {
        "role": "assistant",
        "content": "[no reply: request rejected (400): bad things]",
    }
    await agent.run_turn("second")
    sent = fake.requests[1]["messages"]
    assert alternates(sent) and is_valid(sent)
    assert [m["content"] for m in sent[1:]][-1] == "second"


@pytest.mark.usefixtures("_closing")
async def test_the_step_limit_and_an_interrupted_tool_end_on_assistant(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(tool_calls([("echo", {"text": "a"})]), tool_calls([("slow", {"seconds": 30})]))
    fake.script(text("ok"))
    agent, _ = make_agent(fake, tmp_path, max_steps=1)
    end = await agent.run_turn("loop")
    assert end.subtype == "error_max_turns"
    assert [m["role"] for m in agent.messages[-2:]] == ["tool", "assistant"]
    assert agent.messages[-1]["content"].startswith("[stopped: reached the turn limit (1)")
    agent.max_steps = 5
    turn = asyncio.ensure_future(agent.run_turn("sleep"))
    deadline = time.monotonic() + 20
    while agent.messages[-1].get("tool_calls") is None:  # the slow tool is running
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert [m["role"] for m in agent.messages[-3:]] == ["assistant", "tool", "assistant"]
    assert agent.messages[-1]["content"] == "[interrupted by the user]"
    await agent.run_turn("and?")
    assert alternates(fake.requests[-1]["messages"]) and is_valid(fake.requests[-1]["messages"])


@pytest.mark.usefixtures("_closing")
async def test_a_retried_attempts_text_is_not_kept(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(
        text("first attempt, cut", pieces=4, cut_after=2),
        text("second attempt, cut", pieces=4, cut_after=2),
    )
    agent, _ = make_agent(fake, tmp_path, settings={"retry": {"attempts": 2, "baseDelay": 0.01}})
    end = await agent.run_turn("q")
    assert end.subtype == "error_during_execution"
    content = agent.messages[-1]["content"]
    assert "first attempt" not in content
    assert content.startswith("second att")  # what the user saw of the last attempt
    assert "\n\n[no reply: the reply was cut off: " in content  # words for people


# -- repair of stored histories --------------------------------------------------------------
def test_repair_inserts_a_reply_between_consecutive_user_messages() -> None:
    u1, u2, u3 = ({"role": "user", "content": c} for c in ("one", "two", "three"))
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    a = {"role": "assistant", "content": "", "tool_calls": [call]}
    t = {"role": "tool", "tool_call_id": "c1", "content": "r"}
    no = {"role": "assistant", "content": NO_REPLY}
    assert repair_history([u1, u2, a, t, u3]) == [u1, no, u2, a, t, no, u3, no]
    closed = {"role": "tool", "tool_call_id": "c1", "content": INTERRUPTED_RESULT}
    assert repair_history([u1, a]) == [u1, a, closed, no]
    done = [u1, {"role": "assistant", "content": "x"}]
    assert repair_history(done) == done
    blank = {**call, "function": {"name": "", "arguments": "{}"}}  # saved by an older version
    fixed = repair_history([u1, {**a, "tool_calls": [blank]}, t])[1]["tool_calls"][0]
    assert fixed["function"]["name"] == "unnamed_tool" and fixed["id"] == "c1"


# -- end to end: `python -m agent` ------------------------------------------------------------
def test_esc_mid_stream_in_the_repl_then_continue(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, state_dir: Path
) -> None:
    fake_env["AGENT_STATE_DIR"] = str(state_dir)  # where sessions_dir() looks in this process
    project = tmp_path / "proj"
    project.mkdir()
    fake.script(text(TICKS, pieces=200, delay=0.1), text("second answer"), text("third"))
    term = Term(fake_env, project)
    try:
        term.wait_for(READY, where="bottom")
        term.type("slow one")
        term.wait_for("tick tick")
        term.send("\x1b")
        term.wait_for("interrupted")
        term.wait_for(READY, where="bottom")
        term.type("after esc")
        term.wait_for("second answer")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"].endswith("slow one") and sent[3]["content"] == "after esc"
    assert sent[2]["content"].startswith("tick tick")
    assert sent[2]["content"].endswith("[interrupted by the user]")
    stored = messages_of(load(next(sessions_dir(project).glob("*.jsonl"))).records)
    assert stored[1] == sent[2]  # recorded, so -c resumes exactly this
    r = run_agent(fake_env, project, "-c", "third question")
    assert r.returncode == 0, r.stderr
    assert alternates(fake.requests[2]["messages"])
    assert fake.requests[2]["messages"][2] == sent[2]


def test_an_api_error_in_the_plain_repl_then_continue(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    fake.script(error(400, "template says no"), text("back again"))
    child = plain_repl(fake_env, project)
    try:
        child.send("first\r")
        child.expect("template says no", timeout=30)
        child.send("second\r")
        child.expect("back again", timeout=30)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == "[no reply: request rejected (400): template says no]"


def test_continue_repairs_consecutive_user_messages_of_an_old_session(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, state_dir: Path
) -> None:
    fake_env["AGENT_STATE_DIR"] = str(state_dir)
    project = tmp_path / "proj"
    project.mkdir()
    sessions_dir(project).mkdir(parents=True)
    records = [
        {"t": "meta", "cwd": str(project), "model": "m", "time": 0, "provider": "p"},
        {"t": "checkpoint", "n": 1, "time": 0, "prompt": "slow one", "msg_index": 1},
        {"t": "message", "message": {"role": "user", "content": "slow one"}},
        {"t": "checkpoint", "n": 2, "time": 0, "prompt": "after esc", "msg_index": 2},
        {"t": "message", "message": {"role": "user", "content": "after esc"}},
        {"t": "message", "message": {"role": "assistant", "content": "answer"}},
    ]
    path = sessions_dir(project) / "20240101-000000-00000000.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    fake.script(text("ok"))
    r = run_agent(fake_env, project, "-c", "next")
    assert r.returncode == 0, r.stderr
    sent = fake.requests[0]["messages"]
    assert [m["content"] for m in sent[1:]] == ["slow one", NO_REPLY, "after esc", "answer", "next"]
    assert alternates(sent)
