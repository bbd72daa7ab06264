"""The context window comes from the server (llama.cpp /props, vLLM/llama.cpp /v1/models,
Ollama /api/show), asked once and kept per base URL and model; a window learned from an
overflow error is kept across -c; a turn too large to ever fit is not kept and re-sent
(issue 21)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, error, text
from helpers import run_agent
from web_server import QuietHandler, serve

from agent.core import window

REPLIES: dict[str, Any] = {}


class Server(QuietHandler):
    def _answer(self) -> None:
        found = REPLIES.get(f"{self.command} {self.path.split('?')[0]}")
        if found is None:
            self.reply(404, b"{}", "application/json")
        else:
            self.reply(200, json.dumps(found).encode(), "application/json")

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()


@pytest.mark.parametrize(
    ("replies", "n_ctx"),
    [
        ({"GET /props": {"default_generation_settings": {"n_ctx": 4096}}}, 4096),  # llama.cpp
        ({"GET /v1/models": {"data": [{"id": "m", "max_model_len": 32768}]}}, 32768),  # vLLM
        ({"GET /v1/models": {"data": [{"id": "m", "meta": {"n_ctx": 8192}}]}}, 8192),
        ({"POST /api/show": {"parameters": "num_ctx 6144\nstop x"}}, 6144),  # Ollama, set
        ({"POST /api/show": {"model_info": {"qwen3.context_length": 40960}}}, 40960),
        ({}, None),  # a server that does not say
    ],
)
async def test_each_server_says_its_window(replies: dict[str, Any], n_ctx: int | None) -> None:
    REPLIES.clear()
    REPLIES.update(replies)
    with serve(Server) as address:
        assert await window.probe(f"http://{address}/v1", "m", "") == n_ctx


def test_the_window_is_asked_once_and_used(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, state_dir: Path
) -> None:
    fake.n_ctx = 4096
    env = {**fake_env, "AGENT_STATE_DIR": str(state_dir)}
    fake.script(text("one"))
    assert run_agent(env, project, "--output-format", "json", "hi").returncode == 0
    table = json.loads((state_dir / "windows.json").read_text())
    [entry] = table.values()
    assert (entry["n_ctx"], entry["source"]) == (4096, "server")
    fake.n_ctx = 999_999  # a second run asks nothing: the kept window stands
    r = run_agent(env, project, "/context")
    assert "/ 4,096 tokens" in r.stdout and "auto-compaction at 3,276" in r.stdout


def test_a_user_context_limit_wins(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, state_dir: Path
) -> None:
    fake.n_ctx = 4096
    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text('{"contextLimit": 20000}')
    env = {**fake_env, "AGENT_STATE_DIR": str(state_dir)}
    r = run_agent(env, project, "--trust-project", "/context")
    assert "/ 20,000 tokens" in r.stdout
    assert not (state_dir / "windows.json").exists()  # not even asked


def test_an_overflow_teaches_the_window_and_an_oversized_turn_is_not_kept(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, state_dir: Path
) -> None:
    env = {**fake_env, "AGENT_STATE_DIR": str(state_dir)}
    big = "word " * 3000
    overflow = "the request exceeds the available context size (n_ctx: 2048)"
    fake.script(text("ok"))
    assert run_agent(env, project, "first").returncode == 0
    summary = text("## Task\nfirst\n## Open todos\nnone")  # compaction is tried first
    fake.script(error(400, overflow), summary, error(400, overflow))
    r = run_agent(env, project, "-c", big)
    assert r.returncode == 1 and "cannot be made to fit" in r.stderr
    entry = next(iter(json.loads((state_dir / "windows.json").read_text()).values()))
    assert (entry["n_ctx"], entry["source"]) == (2048, "overflow")
    fake.script(text("fine"))
    r = run_agent(env, project, "-c", "a short one")
    assert r.returncode == 0, r.stderr
    sent = fake.requests[-1]["messages"]
    assert all(big.strip() not in str(m.get("content")) for m in sent)  # not re-sent
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    r = run_agent(env, project, "-c", "/context")
    assert "/ 2,048 tokens" in r.stdout  # kept across -c
