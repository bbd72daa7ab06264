"""`python -m bench.steps [STEPS]`: the cost of a step as a session grows. One scripted session
of STEPS tool steps (400 by default) against the zero-latency fake model, in process: the gap
between one request's arrival and the next (the agent's own time per step: the reply, the
tool, the history, the next request) for the first fifty steps and the last fifty, and what
building and serialising one request costs the client at 800 messages.

Budgets (issue 42): the last fifty steps' median gap ≤ 1.5× the first fifty's; one request's
client-side cost ≤ 5 ms at 800 messages.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table

sys.path.insert(0, str(ROOT / "tests"))


class _Stamped(list):  # type: ignore[type-arg]
    """The fake's request list, noting when each request arrived."""

    def __init__(self, times: list[float]) -> None:
        super().__init__()
        self.times = times

    def append(self, item: Any) -> None:
        self.times.append(time.perf_counter())
        super().append(item)


def _script(steps: int) -> list[Any]:
    from fake_openai import text, tool_calls

    calls = [
        tool_calls([("read_file", {"path": f"f{i % 40}.txt"})], pieces=2) for i in range(steps)
    ]
    return [*calls, text("done", pieces=2)]


async def _session(url: str, proj: Path, steps: int) -> Any:
    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags, load_config

    env = {"AGENT_BASE_URL": url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    cfg = load_config(Flags(max_turns=steps + 5), env, proj)
    run = build(cfg, Recorder())
    await run.agent.run_turn("read the files, one at a time")
    await run.agent.llm.aclose()
    return run.agent


def _request_cost(agent: Any, messages: int) -> tuple[float, float]:
    """Seconds to build and serialise one request body of `messages` messages, and to pass the
    same body through the SDK's parameter transform as `chat.completions.create` does (median)."""
    from openai._utils import maybe_transform
    from openai._utils._json import openapi_dumps
    from openai.types.chat import completion_create_params as params

    history = agent.messages[:messages]
    ours, sdk = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        body = agent.llm.request(history, agent.schemas)
        openapi_dumps(body)
        t1 = time.perf_counter()
        openapi_dumps(maybe_transform(body, params.CompletionCreateParamsStreaming))
        ours.append(t1 - t0)
        sdk.append(time.perf_counter() - t1)
    return statistics.median(ours), statistics.median(sdk)


def _serve(steps: int, conn: Any) -> None:
    """The fake model in a process of its own, as a real server is: its JSON parsing and
    streaming do not share the agent's interpreter. Sends its URL, then the arrival times."""
    from fake_openai import FakeOpenAI

    times: list[float] = []
    fake = FakeOpenAI().start()
    fake.requests = _Stamped(times)
    fake.script(*_script(steps))
    conn.send(fake.base_url)
    conn.recv()  # the session is over
    fake.stop()
    conn.send(times)


def steps_bench(table: Table, steps: int = 400) -> None:
    import multiprocessing

    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp)
        os.environ["HOME"] = str(proj / "home")
        (proj / ".agent").mkdir()
        (proj / ".agent" / "settings.json").write_text('{"repoMap": {"tokens": 0}}')
        for i in range(40):  # distinct files: the unchanged-re-read economy stays out of it
            (proj / f"f{i}.txt").write_text(f"line {i} of a file read in this session\n" * 4)
        ours, theirs = multiprocessing.Pipe()
        server = multiprocessing.get_context("fork").Process(target=_serve, args=(steps, theirs))
        server.start()
        agent = asyncio.run(_session(ours.recv(), proj, steps))
        ours.send("done")
        times = ours.recv()
        server.join()
    gaps = [b - a for a, b in itertools.pairwise(times)]
    first, last = statistics.median(gaps[:50]), statistics.median(gaps[-50:])
    ratio = last / first
    size = len(agent.messages)
    table.add(
        f"step gap, steps 0–49 → last 50 ({steps} steps, {size} messages)",
        f"{first * 1000:.1f} → {last * 1000:.1f} ms ({ratio:.2f}×)",
        "",
        "≤ 1.5×",
        ratio <= 1.5,
    )
    at = min(size, 800)
    cost, sdk = _request_cost(agent, at)
    table.add(
        f"client cost of one request at {at} messages",
        f"{cost * 1000:.2f} ms",
        f"through create()'s transform {sdk * 1000:.0f} ms",
        "5 ms",
        cost <= 0.005,
    )


if __name__ == "__main__":
    t = Table()
    steps_bench(t, int(sys.argv[1]) if len(sys.argv) > 1 else 400)
    print(t.markdown())
