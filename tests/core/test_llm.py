"""Provider behaviour over real HTTP: retries, errors, timeouts, usage options, reasoning rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, chunk, error, raw, text, tool_calls
from helpers import close_all, make_agent, of_type

from agent.base.events import ErrorEvent, ReasoningDelta, TextDelta
from agent.config.load import Flags
from agent.core import llm
from agent.core.llm import wire_messages


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


@pytest.mark.parametrize("status", [429, 500, 502, 503])
async def test_transient_errors_are_retried(fake: FakeOpenAI, tmp_path: Path, status: int) -> None:
    fake.script(error(status, "busy"), error(status, "busy"), text("finally"))
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("q")
    assert end.subtype == "success"
    assert end.text == "finally"
    assert [e.retrying for e in of_type(rec, ErrorEvent)] == [True, True]
    assert fake.requests[0]["messages"] == fake.requests[2]["messages"]


async def test_retry_after_is_honoured(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the wait the retry asks for, not taken
        waits.append(seconds)

    monkeypatch.setattr(llm, "sleep", sleep)
    fake.script(error(429, "slow down", headers={"Retry-After": "7"}), text("ok"))
    agent, _ = make_agent(fake, tmp_path)
    end = await agent.run_turn("q")
    assert end.text == "ok"
    assert waits == [7.0]  # the server's word, not the backoff (at most 1 s for a first retry)


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "request rejected (400)"),
        (401, "AGENT_API_KEY"),
        (402, "insufficient balance"),
        (422, "request rejected (422)"),
    ],
)
async def test_client_errors_are_never_retried(
    fake: FakeOpenAI, tmp_path: Path, status: int, words: str
) -> None:
    fake.script(error(status, "nope"))
    agent, _ = make_agent(fake, tmp_path)
    end = await agent.run_turn("q")
    assert end.subtype == "error_during_execution"
    assert words in (end.error or "")
    assert len(fake.requests) == 1


async def test_retries_give_up(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(*(error(503, "down") for _ in range(3)))
    agent, _ = make_agent(fake, tmp_path, settings={"retry": {"attempts": 3, "baseDelay": 0.01}})
    end = await agent.run_turn("q")
    assert end.subtype == "error_during_execution"
    assert "gave up after 3" in (end.error or "")


async def test_cut_stream_is_retried_without_duplicates(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("partial answ", pieces=4, cut_after=2), text("full answer"))
    agent, rec = make_agent(fake, tmp_path)
    end = await agent.run_turn("q")
    assert end.text == "full answer"
    assert fake.requests[0]["messages"] == fake.requests[1]["messages"]
    assert [m["role"] for m in agent.messages] == ["system", "user", "assistant"]
    assert of_type(rec, ErrorEvent)[0].message.startswith("the reply was cut off: ")


async def test_a_retry_after_shown_deltas_says_to_discard_them(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(
        error(503, "busy", headers={"Retry-After": "0"}),  # nothing shown yet
        text("cut short", reasoning="hm", pieces=4, cut_after=2),  # reasoning shown, then cut
        text("answer", reasoning="hm"),
    )
    agent, rec = make_agent(fake, tmp_path)
    assert (await agent.run_turn("q")).text == "answer"
    assert [(e.retrying, e.discard) for e in of_type(rec, ErrorEvent)] == [
        (True, False),
        (True, True),
    ]
    kinds = [type(e).__name__ for e in rec.events if type(e) in (ErrorEvent, ReasoningDelta)]
    cut = kinds.index("ErrorEvent", 1)
    assert "ReasoningDelta" in kinds[1:cut]  # the deltas the discard refers to came before it


async def test_stream_ending_without_finish_reason_is_retried(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(raw([chunk({"content": "half"})]), text("whole"))
    agent, _ = make_agent(fake, tmp_path)
    assert (await agent.run_turn("q")).text == "whole"


async def test_idle_timeout_retries(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("abcdef", pieces=3, stall_after=1, stall_seconds=5), text("fresh"))
    agent, rec = make_agent(fake, tmp_path, settings={"timeouts": {"idle": 0.4}})
    end = await agent.run_turn("q")
    assert end.text == "fresh"
    assert "idle" in of_type(rec, ErrorEvent)[0].message


async def test_first_token_timeout(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("late", stall_after=0, stall_seconds=5), text("on time"))
    agent, rec = make_agent(fake, tmp_path, settings={"timeouts": {"firstToken": 0.4}})
    assert (await agent.run_turn("q")).text == "on time"
    assert "first token" in of_type(rec, ErrorEvent)[0].message


async def test_keepalive_comments_are_ignored(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("fine", keepalive=3))
    agent, _ = make_agent(fake, tmp_path)
    assert (await agent.run_turn("q")).text == "fine"


async def test_rejected_stream_options_are_dropped_and_remembered(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(error(400, "Unrecognized request argument: stream_options"), text("a"), text("b"))
    agent, _ = make_agent(fake, tmp_path)
    await agent.run_turn("q1")
    await agent.run_turn("q2")
    assert "stream_options" in fake.requests[0]
    assert "stream_options" not in fake.requests[1]
    assert "stream_options" not in fake.requests[2]


async def test_midstream_error_event_is_retried(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(raw([chunk({"content": "x"}), {"error": {"message": "upstream died"}}]), text("ok"))
    agent, rec = make_agent(fake, tmp_path)
    assert (await agent.run_turn("q")).text == "ok"
    assert "upstream died" in of_type(rec, ErrorEvent)[0].message


async def test_malformed_stream_is_retried_then_fails_cleanly(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    from helpers import run_agent, user_settings

    fake.script(raw([chunk({"content": "x"}), "{not json"]), text("ok"))  # type: ignore[list-item]
    agent, rec = make_agent(fake, tmp_path)
    assert (await agent.run_turn("q")).text == "ok"
    assert "malformed stream" in of_type(rec, ErrorEvent)[0].message
    fake.script(*[raw(["{not json"]) for _ in range(5)])  # type: ignore[list-item]
    user_settings(fake_env, {"retry": {"baseDelay": 0.01, "maxDelay": 0.05}})  # not 15 s
    r = run_agent(fake_env, tmp_path, "--output-format", "json", "hi")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    last = r.stdout.splitlines()[-1]
    assert '"type":"result"' in last and "malformed stream" in last


def _assistants(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


async def test_reasoning_streams_and_is_sent_back_for_tool_turns(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(
        tool_calls([("echo", {"text": "x"})], reasoning="I should echo."),
        text("done", reasoning="Now answer."),
        text("second"),
    )
    agent, rec = make_agent(fake, tmp_path, settings={"reasoningInput": "tool_calls"})
    await agent.run_turn("q")
    await agent.run_turn("q2")
    assert "".join(e.text for e in of_type(rec, ReasoningDelta)) == "I should echo.Now answer."
    first, second = _assistants(fake.requests[2])
    assert first["reasoning_content"] == "I should echo."
    assert "reasoning_content" not in second
    assert agent.messages[4]["reasoning_content"] == "Now answer."  # stored either way


async def test_old_reasoner_rule_strips_reasoning(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(tool_calls([("echo", {"text": "x"})], reasoning="hmm"), text("done"))
    agent, _ = make_agent(fake, tmp_path, settings={"reasoningInput": "none"})
    await agent.run_turn("q")
    assert "reasoning_content" not in _assistants(fake.requests[1])[0]


async def test_reasoning_rule_adapts_to_a_400(fake: FakeOpenAI, tmp_path: Path) -> None:
    msg = "The `reasoning_content` in the thinking mode must be passed back to the API."
    fake.script(tool_calls([("echo", {"text": "x"})], reasoning="hmm"), error(400, msg), text("ok"))
    agent, _ = make_agent(fake, tmp_path, settings={"reasoningInput": "none"})
    assert (await agent.run_turn("q")).text == "ok"
    assert "reasoning_content" not in _assistants(fake.requests[1])[0]
    assert _assistants(fake.requests[2])[0]["reasoning_content"] == "hmm"


def test_wire_messages_rules() -> None:
    msgs = [
        {"role": "assistant", "content": "", "reasoning_content": "r1", "tool_calls": [{}]},
        {"role": "assistant", "content": "a", "reasoning_content": "r2"},
    ]
    assert [("reasoning_content" in m) for m in wire_messages(msgs, "all")] == [True, True]
    assert [("reasoning_content" in m) for m in wire_messages(msgs, "tool_calls")] == [True, False]
    assert [("reasoning_content" in m) for m in wire_messages(msgs, "none")] == [False, False]
    assert msgs[1]["reasoning_content"] == "r2"  # the stored history is untouched


async def test_think_uses_the_reasoning_model(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("42", reasoning="thinking hard"))
    agent, rec = make_agent(
        fake,
        tmp_path,
        flags=Flags(provider="deepseek", think=True, trust_project=True),
        env={"AGENT_MODEL": ""},
    )
    await agent.run_turn("q")
    assert fake.requests[0]["model"] == "deepseek-reasoner"
    assert of_type(rec, ReasoningDelta)
    assert of_type(rec, TextDelta)


async def test_think_with_explicit_model_sends_thinking_body(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.script(text("42"))
    flags = Flags(provider="deepseek", model="deepseek-v4-pro", think=True, trust_project=True)
    agent, _ = make_agent(fake, tmp_path, flags=flags, settings={})
    await agent.run_turn("q")
    assert fake.requests[0]["model"] == "deepseek-v4-pro"
    assert fake.requests[0]["thinking"] == {"type": "enabled"}


async def test_the_body_goes_out_as_built_without_the_sdks_parameter_transform(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's per-field transform walks the whole history on every request (O(n²) over a
    session): the body is sent as it is, through the client's request path (auth, headers,
    streaming), with the session's extra body fields on top."""
    import openai._utils._transform as transform

    def refuse(*args: Any, **kw: Any) -> Any:
        raise AssertionError("the parameter transform ran")

    monkeypatch.setattr(transform, "_async_transform_recursive", refuse)
    monkeypatch.setattr(transform, "_transform_recursive", refuse)
    fake.script(tool_calls([("todo", {"action": "list"})]), text("done"))
    agent, _ = make_agent(fake, tmp_path)
    agent.llm.extra_body = {"think": True, "stream": True}
    end = await agent.run_turn("q")
    assert end.subtype == "success" and end.text == "done"
    first, second = fake.requests
    assert first["think"] is True and first["stream"] is True and first["model"]
    assert first["tools"] == second["tools"] == agent.schemas  # byte-stable prefix
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert fake.request_headers[0]["authorization"] == f"Bearer {agent.llm.cfg.api_key}"
    assert fake.request_headers[0]["content-type"] == "application/json"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once it is closed


async def test_a_refused_connection_says_the_attempt_and_what_to_check(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    agent, rec = make_agent(fake, tmp_path, env={"AGENT_BASE_URL": url})
    end = await agent.run_turn("q")
    said = [e.message for e in of_type(rec, ErrorEvent) if e.retrying]
    assert said[0].startswith(f"{url} refused the connection; retrying, attempt 2/5 in ")
    assert all("is the server running? check --base-url" in m for m in said)
    assert len(said) == 4 and "gave up after 5 attempts" in (end.error or "")


async def test_tls_spoken_to_plain_http_fails_at_once_with_the_fix(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    """The fake answers plain HTTP: an https:// base URL gets one clear error, no retries."""
    url = fake.base_url.replace("http://", "https://")
    agent, rec = make_agent(fake, tmp_path, env={"AGENT_BASE_URL": url})
    end = await agent.run_turn("q")
    assert end.subtype == "error_during_execution"
    assert f"use {fake.base_url} as --base-url" in (end.error or "")
    assert not [e for e in of_type(rec, ErrorEvent) if e.retrying]


def test_a_host_that_does_not_exist_is_said_at_once() -> None:
    """getaddrinfo's "no such name" ends the run with the host named; a temporary DNS failure
    is retried (the chain is built here: a test must not depend on the machine's resolver)."""
    import socket

    import httpx2
    import openai

    from agent.core.errors import LLMError, RetryLater, connection_failure

    def wrapped(cause: BaseException) -> BaseException:
        request = httpx2.Request("POST", "http://nowhere.invalid/v1/chat/completions")
        connect = httpx2.ConnectError(str(cause), request=request)
        connect.__cause__ = cause
        err = openai.APIConnectionError(request=request)
        err.__cause__ = connect
        return err

    url = "http://nowhere.invalid/v1"
    gone = connection_failure(wrapped(socket.gaierror(socket.EAI_NONAME, "no name")), url)
    assert isinstance(gone, LLMError)
    assert "'nowhere.invalid'" in str(gone) and "does not exist" in str(gone)
    busy = connection_failure(wrapped(socket.gaierror(socket.EAI_AGAIN, "try again")), url)
    assert busy is None  # retried as any connection failure
    refused = connection_failure(wrapped(ConnectionRefusedError(111, "refused")), url)
    assert isinstance(refused, RetryLater) and "is the server running?" in refused.hint
