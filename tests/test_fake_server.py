"""The scripted fake, checked against the real openai client: what it sends must parse."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import openai
import pytest
from fake_openai import DIALECTS, FakeOpenAI, chunk, error, raw, split_text, text, tool_calls
from hypothesis import given
from hypothesis import strategies as st
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionChunk

HERE = Path(__file__).parent
MESSAGES: Any = [{"role": "user", "content": "hi"}]


async def stream(fake: FakeOpenAI, **client_kw: Any) -> list[ChatCompletionChunk]:
    async with AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0, **client_kw) as c:
        s = await c.chat.completions.create(
            model="fake-model",
            messages=MESSAGES,
            stream=True,
            stream_options={"include_usage": True},
        )
        return [x async for x in s]


def assemble(chunks: list[ChatCompletionChunk], *, by_index: bool = False) -> dict[str, Any]:
    """Join parsed deltas; a fragment with an id starts a call, others extend the last one."""
    out: dict[str, Any] = {"content": "", "reasoning": "", "calls": {}, "finish": None}
    last: Any = None
    for c in chunks:
        for choice in c.choices:
            delta = choice.delta
            out["content"] += delta.content or ""
            out["reasoning"] += (delta.model_extra or {}).get("reasoning_content") or ""
            for tc in delta.tool_calls or []:
                last = tc.index if by_index else (tc.id or last)
                call = out["calls"].setdefault(last, {"name": "", "args": ""})
                call["name"] += tc.function.name or "" if tc.function else ""
                call["args"] += tc.function.arguments or "" if tc.function else ""
            out["finish"] = choice.finish_reason or out["finish"]
    out["calls"] = [(v["name"], v["args"]) for v in out["calls"].values()]
    return out


async def test_text_pieces_role_finish_and_separate_usage(fake: FakeOpenAI) -> None:
    fake.script(text("hello world", pieces=3))
    chunks = await stream(fake)
    assert [c.choices[0].delta.content for c in chunks[:3]] == ["hell", "o wo", "rld"]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[3].choices[0].finish_reason == "stop"
    assert chunks[4].choices == []
    assert chunks[4].usage is not None
    assert chunks[4].usage.total_tokens == 15
    assert fake.requests[0]["stream_options"] == {"include_usage": True}
    assert fake.request_headers[0]["authorization"] == "Bearer k"
    assert fake.request_bytes[0] >= len(json.dumps(fake.requests[0], separators=(",", ":")))


async def test_reasoning_and_deepseek_usage_on_finish_chunk(fake: FakeOpenAI) -> None:
    usage = {
        "prompt_tokens": 9,
        "completion_tokens": 3,
        "total_tokens": 12,
        "prompt_cache_hit_tokens": 8,
        "completion_tokens_details": {"reasoning_tokens": 2},
    }
    fake.script(text("ok", reasoning="let me think", pieces=2, usage=usage, usage_mode="last"))
    chunks = await stream(fake)
    got = assemble(chunks)
    assert (got["reasoning"], got["content"], got["finish"]) == ("let me think", "ok", "stop")
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.usage is not None
    assert last.usage.model_extra == {"prompt_cache_hit_tokens": 8}
    assert last.usage.completion_tokens_details.reasoning_tokens == 2  # type: ignore[union-attr]


async def test_no_finish_no_usage_no_done_ends_silently(fake: FakeOpenAI) -> None:
    fake.script(text("partial", pieces=2, finish=None, usage=None, done=False))
    chunks = await stream(fake)
    assert assemble(chunks)["content"] == "partial"
    assert all(c.choices[0].finish_reason is None for c in chunks)


CASES = [(d, i) for d in DIALECTS for i in (False, True) if not (i and d in ("no_index", "index0"))]


@pytest.mark.parametrize(("dialect", "interleave"), CASES)
async def test_tool_call_dialects(fake: FakeOpenAI, dialect: str, interleave: bool) -> None:
    calls = [("read_file", {"path": "a.py"}), ("grep", {"pattern": "x", "glob": "*.py"})]
    fake.script(tool_calls(calls, text="Let me look.", dialect=dialect, interleave=interleave))
    chunks = await stream(fake)
    got = assemble(chunks, by_index=interleave)
    assert got["calls"] == [(name, json.dumps(args)) for name, args in calls]
    assert (got["content"], got["finish"]) == ("Let me look.", "tool_calls")
    frags = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    heads = [f for f in frags if f.id]
    assert [h.id for h in heads] == ["call_1", "call_2"]
    assert [f.index for f in heads] == {"no_index": [None, None], "index0": [0, 0]}.get(
        dialect, [0, 1]
    )
    head_args = [h.function.arguments for h in heads]  # type: ignore[union-attr]
    if dialect == "one_chunk":
        assert len(frags) == 2
    elif dialect == "args_in_first":
        assert all(a and a.startswith("{") for a in head_args)
    else:
        assert head_args == ["", ""]
    if interleave and dialect != "one_chunk":
        assert [f.index for f in frags[:4]] == [0, 1, 0, 1]


async def test_raw_string_arguments_and_explicit_ids(fake: FakeOpenAI) -> None:
    fake.script(tool_calls([("edit", '{"path": "x",,}```')], ids=["abc"], pieces=4))
    got = assemble(await stream(fake))
    assert got["calls"] == [("edit", '{"path": "x",,}```')]


async def test_keepalive_comments_and_delay(fake: FakeOpenAI) -> None:
    fake.script(text("hi", pieces=2, keepalive=3, delay=0.05))
    start = time.perf_counter()
    chunks = await stream(fake)
    assert len(chunks) == 4  # 2 content + finish + usage: comments never surface
    assert time.perf_counter() - start >= 0.05 * 6 * 0.9


async def test_http_error_with_retry_after(fake: FakeOpenAI) -> None:
    fake.script(error(429, "slow down", headers={"Retry-After": "2"}, code="rate_limit_exceeded"))
    with pytest.raises(openai.RateLimitError) as info:
        await stream(fake)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.code == "rate_limit_exceeded"
    assert info.value.body == {
        "message": "slow down",
        "type": "rate_limit_error",
        "param": None,
        "code": "rate_limit_exceeded",
    }


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (402, openai.APIStatusError),
        (503, openai.InternalServerError),
    ],
)
async def test_http_error_classes(fake: FakeOpenAI, status: int, exc: type[Exception]) -> None:
    fake.script(error(status))
    with pytest.raises(exc, match=f"fake error {status}"):
        await stream(fake)


async def collect_into(s: Any, out: list[ChatCompletionChunk]) -> None:
    async for x in s:
        out.append(x)


async def test_cut_stream_raises_connection_error(fake: FakeOpenAI) -> None:
    fake.script(text("hello world", pieces=4, cut_after=2))
    received: list[ChatCompletionChunk] = []
    async with AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as c:
        s = await c.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        with pytest.raises(openai.APIConnectionError) as info:
            await collect_into(s, received)
    assert len(received) == 2
    assert "incomplete chunked read" in str(info.value.__cause__)


async def test_error_event_after_200(fake: FakeOpenAI) -> None:
    fake.script(
        raw(
            [
                chunk({"role": "assistant", "content": "x"}),
                {"error": {"message": "upstream died", "code": 502}},
            ]
        )
    )
    with pytest.raises(openai.APIError, match="upstream died"):
        await stream(fake)


async def test_stall_trips_client_timeout_and_stop_is_prompt(fake: FakeOpenAI) -> None:
    fake.script(text("abc", pieces=3, stall_after=1, stall_seconds=60))
    with pytest.raises(openai.APITimeoutError):
        await stream(fake, timeout=0.3)
    start = time.perf_counter()
    fake.stop()  # the handler is still inside its 60 s stall: it joins every handler thread
    assert time.perf_counter() - start < 20  # the stall was cut short, not waited out
    assert fake.problems() == []


async def test_short_stall_completes(fake: FakeOpenAI) -> None:
    fake.script(text("abc", pieces=3, stall_after=2, stall_seconds=0.2))
    assert assemble(await stream(fake, timeout=2))["content"] == "abc"


async def test_client_disconnect_mid_stream(fake: FakeOpenAI) -> None:
    fake.script(text("x" * 200, pieces=200, delay=0.01), text("again"))
    async with AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as c:
        s = await c.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        async for _ in s:
            break
        await s.close()
        for _ in range(200):
            if fake.disconnects:
                break
            await asyncio.sleep(0.01)
        assert fake.disconnects == 1
        assert assemble(await stream(fake))["content"] == "again"


async def test_non_streaming_completion(fake: FakeOpenAI) -> None:
    fake.script(tool_calls([("ls", {"dir": "."})], text="hm", reasoning="think"), text("plain"))
    async with AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as c:
        first = await c.chat.completions.create(model="m", messages=MESSAGES)
        second = await c.chat.completions.create(model="m", messages=MESSAGES)
    message = first.choices[0].message
    assert (message.content, first.choices[0].finish_reason) == ("hm", "tool_calls")
    assert (message.model_extra or {})["reasoning_content"] == "think"
    call = message.tool_calls[0]  # type: ignore[index]
    assert (call.id, call.function.name, call.function.arguments) == (  # type: ignore[union-attr]
        "call_1",
        "ls",
        '{"dir": "."}',
    )
    assert first.usage is not None
    assert first.usage.total_tokens == 15
    assert second.choices[0].message.content == "plain"
    assert second.choices[0].message.tool_calls is None


async def test_unexpected_request_gets_500(fake: FakeOpenAI) -> None:
    with pytest.raises(openai.InternalServerError, match="fake: no scripted turn left"):
        await stream(fake)
    assert fake.unexpected == 1
    assert "unexpected request" in fake.problems()[0]
    fake.allow_unused()


def test_expect_failure_is_recorded() -> None:
    def expect(body: dict[str, Any]) -> None:
        assert body["model"] == "other"

    with FakeOpenAI() as f:
        f.script(text("x", expect=expect), text("unused"))
        asyncio.run(stream(f))
    assert isinstance(f.errors[0], AssertionError)
    assert len(f.problems()) == 2


FIXTURE_TESTS = """
import json, urllib.request
from fake_openai import text

def post(fake):
    req = urllib.request.Request(fake.base_url + "/chat/completions", data=b'{"model": "m"}')
    with urllib.request.urlopen(req) as response:
        return json.load(response)

def test_unused(fake):
    fake.script(text("x"))

def test_allowed(fake):
    fake.script(text("x"))
    fake.allow_unused()

def test_expect(fake):
    def expect(body):
        assert body["model"] == "other", "wrong model"
    fake.script(text("x", expect=expect))
    post(fake)

def test_ok(fake, fake_env):
    fake.script(text("hi"))
    assert post(fake)["choices"][0]["message"]["content"] == "hi"
    assert fake_env["AGENT_BASE_URL"] == fake.base_url
"""


def test_fixture_teardown_checks(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "test_inner.py").write_text(FIXTURE_TESTS)
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(HERE)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "4 passed, 2 errors" in run.stdout, run.stdout + run.stderr
    assert "1 scripted turn(s) left unused" in run.stdout
    assert "AssertionError: wrong model" in run.stdout


@pytest.fixture
def dirty_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DEEPSEEK_API_KEY", "GROQ_API_KEY", "AGENT_MODE", "OPENAI_BASE_URL"):
        monkeypatch.setenv(name, "leak")


def test_fake_env(dirty_env: None, fake_env: dict[str, str], fake: FakeOpenAI) -> None:
    assert not {"DEEPSEEK_API_KEY", "GROQ_API_KEY", "AGENT_MODE", "OPENAI_BASE_URL"} & set(fake_env)
    assert fake_env["AGENT_API_KEY"] == "test-key"
    assert fake_env["AGENT_MODEL"] == "fake-model"
    assert fake_env["NO_COLOR"] == "1"
    assert Path(fake_env["HOME"]).is_dir()


def test_cli_script_then_echo(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"text": "one", "pieces": 3}, {"tool_calls": [["read_file", {"path": "x"}]]}])
    )
    args = f"--port 0 --script {script} --echo --fragments 50".split()
    cmd = [sys.executable, str(HERE / "fake_openai.py"), *args]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            base_url = proc.stdout.readline().strip()

            def post() -> Any:
                req = urllib.request.Request(base_url + "/chat/completions", data=b"{}")
                with urllib.request.urlopen(req, timeout=10) as response:
                    return json.load(response)["choices"][0]["message"]

            assert post()["content"] == "one"
            assert post()["tool_calls"][0]["function"]["name"] == "read_file"
            assert [post()["content"] for _ in range(3)] == ["hello " * 50] * 3
        finally:
            proc.terminate()
        assert proc.wait(timeout=10) == 0


@given(st.text(max_size=40), st.integers(min_value=0, max_value=50))
def test_split_text(s: str, pieces: int) -> None:
    parts = split_text(s, pieces)
    assert "".join(parts) == s
    assert len(parts) == (min(max(pieces, 1), len(s)) if s else 0)
    assert all(parts)
    assert max(map(len, parts), default=0) - min(map(len, parts), default=0) <= 1
