"""Helpers for subagent tests: a fake that routes concurrent conversations, and a real Run.

`RoutedFake.route(marker, *turns)` serves a request whose system prompt or first user message
contains `marker` from that route's own queue (in order); other requests take the main script.
Subagents that run in parallel can so be scripted without relying on request order.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Turn
from helpers import run_agent

from agent.app import Run, build
from agent.base.events import Recorder
from agent.config.load import Flags
from agent.ui.startup import configure
from agent.workflows.setup import stop_background

OPEN: list[Run] = []


class RoutedFake(FakeOpenAI):
    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, collections.deque[Turn]] = {}

    def route(self, marker: str, *turns: Turn) -> None:
        with self._lock:
            self.routes.setdefault(marker, collections.deque()).extend(turns)

    @property
    def unused(self) -> list[Turn]:
        with self._lock:
            return [*self._turns, *(t for q in self.routes.values() for t in q)]

    def _take(self, body: dict[str, Any], headers: dict[str, str], size: int) -> Turn | None:
        head = json.dumps(body.get("messages", [])[:2])
        with self._lock:
            marker = next((m for m in self.routes if m in head), None)
            if marker is None:
                turn = None
            else:
                self.requests.append(body)
                self.request_headers.append(headers)
                self.request_bytes.append(size)
                queue = self.routes[marker]
                turn = queue.popleft() if queue else None
                if turn is None:
                    self.unexpected += 1
                    return None
        if marker is None:
            return super()._take(body, headers, size)
        if turn.expect is not None:
            try:
                turn.expect(body)
            except Exception as exc:
                self.errors.append(exc)
        return turn


def serve(request: pytest.FixtureRequest) -> Iterator[RoutedFake]:
    """Fixture body: start a RoutedFake; fail the test on leftovers or surprises."""
    server = RoutedFake().start()
    yield server
    server.stop()
    if server.errors:
        raise server.errors[0]
    problems = server.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def make_run(
    fake: FakeOpenAI,
    root: Path,
    *,
    settings: dict[str, Any] | None = None,
    mode: str = "bypassPermissions",
    resume_id: str | None = None,
    asker: Any = None,
) -> tuple[Run, Recorder]:
    """A real session (app.build: gate, hooks, audit, snapshots, recorder) against `fake`."""
    (root / ".agent").mkdir(parents=True, exist_ok=True)
    merged = {"retry": {"baseDelay": 0.01, "maxDelay": 0.05}, **(settings or {})}
    (root / ".agent" / "settings.json").write_text(json.dumps(merged))
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    if "sandbox" not in merged:  # the same on every machine, unless the test sets one
        env["AGENT_SANDBOX"] = "off"
    cfg = configure(Flags(trust_project=True, permission_mode=mode, no_mcp=True), env, root)
    rec = Recorder()
    run = build(cfg, rec, asker=asker, resume_id=resume_id)
    OPEN.append(run)
    return run, rec


async def close_runs() -> None:
    while OPEN:
        run = OPEN.pop()
        await stop_background(run.agent)
        await run.agent.llm.aclose()
        if run.agent.ctx.lsp is not None:  # language servers a test's edits started
            await run.agent.ctx.lsp.aclose()
        run.store.close()


def is_child(request: dict[str, Any]) -> bool:
    """A subagent's request: its system prompt says so."""
    return "You are a subagent" in request["messages"][0]["content"]


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def agent_env(fake: FakeOpenAI, home: Path) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_", "OPENAI_", "DEEPSEEK_"))
    }
    return {
        **keep,
        "AGENT_BASE_URL": fake.base_url,
        "AGENT_API_KEY": "k",
        "AGENT_MODEL": "fake-model",
        "HOME": str(home),
        "NO_COLOR": "1",
    }


def oneshot(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent(env, cwd, *args)
