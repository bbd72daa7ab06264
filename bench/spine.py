"""Start-up, one-shot and streaming figures (the spine's budgets)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Table, agent_env, fake_server, peak_rss, run_child, stat

PY = sys.executable
FLOOR_SCRIPT = """
import sys
from openai import OpenAI
client = OpenAI(base_url=sys.argv[1], api_key="x", max_retries=0)
stream = client.chat.completions.create(model="fake-model", stream=True,
    messages=[{"role": "user", "content": "hello"}])
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        sys.stdout.write(chunk.choices[0].delta.content)
"""


def startup(table: Table, n: int) -> None:
    floor = stat([run_child([PY, "-c", "pass"])[0] for _ in range(n)])
    version = stat([run_child([PY, "-m", "agent", "--version"])[0] for _ in range(n)])
    extra = version.median - floor.median
    table.add(
        "agent --version",
        version.fmt(),
        f"python -c pass {floor.fmt()}",
        "floor + 60 ms",
        extra <= 0.060,
    )
    table.add("agent --version above floor", f"{extra * 1000:.0f} ms", "", "60 ms", extra <= 0.060)


def oneshot(table: Table, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, fake_server("--echo") as url:
        home = Path(tmp) / "home"
        home.mkdir()
        proj = Path(tmp) / "proj"
        proj.mkdir()
        (proj / "README.md").write_text("# demo\n" + "line\n" * 200)
        env = agent_env(url, home)
        script = Path(tmp) / "floor.py"
        script.write_text(FLOOR_SCRIPT)
        floor_s, agent_s = [], []
        for _ in range(n):  # interleave so drift hits both alike
            floor_s.append(run_child([PY, str(script), url], env=env)[0])
            agent_s.append(run_child([PY, "-m", "agent", "hello"], env=env, cwd=proj)[0])
        floor, agent = stat(floor_s), stat(agent_s)
        over = agent.median - floor.median
        table.add(
            "one-shot hello",
            agent.fmt(),
            f"bare openai script {floor.fmt()}",
            "floor + 100 ms",
            over <= 0.100,
        )
        table.add(
            "one-shot hello above floor", f"{over * 1000:.0f} ms", "", "100 ms", over <= 0.100
        )
        rss = max(peak_rss([PY, "-m", "agent", "hello"], env=env, cwd=proj) for _ in range(3))
        floor_rss = peak_rss([PY, str(script), url], env=env)
        table.add(
            "one-shot hello peak RSS",
            f"{rss / 1024:.0f} MiB",
            f"bare openai script {floor_rss / 1024:.0f} MiB",
            "120 MB",
            rss * 1024 <= 120e6,
        )


async def _raw(url: str) -> float:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    t0 = time.perf_counter()
    stream = await client.chat.completions.create(
        model="fake-model", stream=True, messages=[{"role": "user", "content": "hi"}]
    )
    n = 0
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            n += 1
    dt = time.perf_counter() - t0
    await client.close()
    return dt


async def _ours(url: str, home: Path) -> float:
    import os

    from agent.base.events import Recorder
    from agent.config.load import Flags, load_config
    from agent.core.llm import LLM

    os.environ["HOME"] = str(home)
    env = {"AGENT_BASE_URL": url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    cfg = load_config(Flags(), env, home)
    llm = LLM(cfg)
    sink = Recorder()
    t0 = time.perf_counter()
    await llm.complete([{"role": "user", "content": "hi"}], [], sink, 1)
    dt = time.perf_counter() - t0
    await llm.aclose()
    return dt


def streaming(table: Table, n: int, fragments: int = 20_000) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        fake_server("--echo", "--fragments", str(fragments)) as url,
    ):
        raw_s, ours_s = [], []
        for _ in range(n):
            raw_s.append(asyncio.run(_raw(url)))
            ours_s.append(asyncio.run(_ours(url, Path(tmp))))
        raw, ours = stat(raw_s), stat(ours_s)
        ratio = ours.median / raw.median
        table.add(
            f"stream of {fragments} fragments",
            ours.fmt(),
            f"raw openai {raw.fmt()}",
            "1.3×",
            ratio <= 1.3,
        )
        table.add("streaming ratio", f"{ratio:.2f}×", "", "1.3×", ratio <= 1.3)
