"""`agent --acp` as an editor sees it: from spawning the agent to a session it can prompt, and
a prompt's round trip, against the same prompt one-shot in the same run."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Table, agent_env, fake_server, run_child, stat

PY = sys.executable


class _Client:
    """The least an editor does: take updates, allow what is asked."""

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        return None

    async def request_permission(self, *_: Any, **__: Any) -> Any:  # never asked here
        raise RuntimeError("unexpected permission request")


async def _one(env: dict[str, str], proj: Path) -> tuple[float, float, float]:
    from acp import PROTOCOL_VERSION, text_block
    from acp.stdio import spawn_agent_process

    t0 = time.perf_counter()
    spawn = spawn_agent_process(lambda _: _Client(), PY, "-m", "agent", "--acp", env=env, cwd=proj)
    async with spawn as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        new = await conn.new_session(cwd=str(proj), mcp_servers=[])
        ready = time.perf_counter() - t0
        await asyncio.sleep(1.0)  # the user types for a second, as in the REPL's figure
        times = []
        for words in ("hello", "again"):
            t1 = time.perf_counter()
            await conn.prompt(session_id=new.session_id, prompt=[text_block(words)])
            times.append(time.perf_counter() - t1)
        return ready, times[0], times[1]


def acp_bench(table: Table, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, fake_server("--echo") as url:
        home, proj = Path(tmp) / "home", Path(tmp) / "proj"
        home.mkdir()
        proj.mkdir()
        env = {**agent_env(url, home), "AGENT_SANDBOX": "off"}
        ready_s, prompt_s, next_s, oneshot_s = [], [], [], []
        for _ in range(n):
            ready, prompt, later = asyncio.run(_one(env, proj))
            ready_s.append(ready)
            prompt_s.append(prompt)
            next_s.append(later)
            oneshot_s.append(run_child([PY, "-m", "agent", "hello"], env=env, cwd=proj)[0])
        ready, prompt, oneshot = stat(ready_s), stat(prompt_s), stat(oneshot_s)
        later = stat(next_s)
        table.add("ACP: spawn to session ready", ready.fmt(), f"one-shot hello {oneshot.fmt()}",
                  "", None)  # fmt: skip
        table.add("ACP: first prompt round trip (1 s after)", prompt.fmt(), "", "", None)
        table.add("ACP: next prompt round trip", later.fmt(), "", "", None)
