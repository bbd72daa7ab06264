"""The harness in a scripted multi-step session: overhead per tool round trip, prefix stability,
requests and request bytes (the fake model in-process; the same requests replayed raw as floor).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table, stat

sys.path.insert(0, str(ROOT / "tests"))


def _script(steps: int) -> list[Any]:
    from fake_openai import text, tool_calls

    turns = [tool_calls([("read_file", {"path": f"f{i % 5}.txt"})], pieces=4) for i in range(steps)]
    return [*turns, text("done", pieces=4)]


async def _agent_run(url: str, proj: Path) -> tuple[float, float]:
    from agent.app import build
    from agent.base.events import Recorder, ToolEnd
    from agent.config.load import Flags, load_config

    env = {"AGENT_BASE_URL": url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    cfg = load_config(Flags(max_turns=100), env, proj)
    rec = Recorder()
    run = build(cfg, rec)
    t0 = time.perf_counter()
    await run.agent.run_turn("read the files")
    wall = time.perf_counter() - t0
    await run.agent.llm.aclose()
    tools = sum(e.duration_ms for e in rec.events if isinstance(e, ToolEnd)) / 1000
    return wall, tools


async def _raw_replay(url: str, bodies: list[dict[str, Any]]) -> float:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    t0 = time.perf_counter()
    for body in bodies:
        kw = {k: v for k, v in body.items() if k in ("model", "messages", "tools", "stream")}
        stream = await client.chat.completions.create(**kw)
        async for _ in stream:
            pass
    wall = time.perf_counter() - t0
    await client.close()
    return wall


def _prefix_stable(bodies: list[dict[str, Any]]) -> float:
    ok = 0
    for prev, cur in itertools.pairwise(bodies):
        same_head = (
            prev.get("tools") == cur.get("tools") and prev["messages"][0] == cur["messages"][0]
        )
        extends = cur["messages"][: len(prev["messages"])] == prev["messages"]
        ok += same_head and extends
    return ok / max(len(bodies) - 1, 1)


def _one(steps: int) -> tuple[float, float, float, list[dict[str, Any]], list[int]]:
    from fake_openai import FakeOpenAI

    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp)
        os.environ["HOME"] = str(proj / "home")
        for i in range(5):
            (proj / f"f{i}.txt").write_text(f"file {i}\n" * 50)
        fake = FakeOpenAI().start()
        fake.script(*_script(steps))
        wall, tools = asyncio.run(_agent_run(fake.base_url, proj))
        bodies, sizes = list(fake.requests), list(fake.request_bytes)
        fake.script(*_script(steps))
        raw = asyncio.run(_raw_replay(fake.base_url, bodies))
        fake.stop()
    return wall, tools, raw, bodies, sizes


def loop_bench(table: Table, n: int, steps: int = 20) -> None:
    per_step = []
    bodies: list[dict[str, Any]] = []
    sizes: list[int] = []
    _one(steps)  # warm-up: first imports and compiled regexes are not per-step costs
    for _ in range(n):
        wall, tools, raw, bodies, sizes = _one(steps)
        per_step.append((wall - tools - raw) / (steps + 1))
    s = stat(per_step)
    table.add(
        f"harness overhead per step ({steps}-step session)",
        s.fmt(),
        "same requests replayed by raw openai",
        "10 ms",
        s.median <= 0.010,
    )
    table.add(
        f"requests / request bytes ({steps} steps)",
        f"{len(bodies)} / {sum(sizes):,} B (last {sizes[-1]:,} B)",
        "",
        "",
        None,
    )
    ten = bodies[:11]
    frac = _prefix_stable(ten)
    table.add("prefix stability (10 steps)", f"{frac:.0%}", "", "100%", frac == 1.0)
    sys.stderr.write(json.dumps({"per_step_ms": [round(x * 1000, 2) for x in per_step]}) + "\n")
