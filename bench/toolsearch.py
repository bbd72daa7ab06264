"""Tool search (issue 46): a scripted 40-step task against the fake server with 0, 1 and 3 MCP
servers of 40 generated tools each (tests/mcp_servers/many.py), `tools.search` auto and off.

Figures: the first request's size in bytes (JSON, as sent) and the input tokens of all forty
requests (the agent's own estimator), with the share of tool schemas in them. With servers,
every other step calls an MCP tool instead of read_file (and auto's first step searches).
Goal: with three servers, auto's first request ≤ 16 kB and its total input within 10 % of the
run without servers.
`python -m bench.toolsearch` prints the table alone.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table

sys.path.insert(0, str(ROOT / "tests"))

STEPS = 40  # requests in the task: 39 tool steps and the answer
MANY = str(ROOT / "tests" / "mcp_servers" / "many.py")
TOPICS = ("alpha", "beta", "gamma")


def _turns(servers: int, mode: str) -> list[Any]:
    from fake_openai import text, tool_calls

    calls: list[tuple[str, dict[str, Any]]] = []
    if servers and mode != "off":
        calls.append(("tool_search", {"query": "alpha_get_1", "limit": 1}))
    for i in range(STEPS):  # every call differs: the loop's repeat guard stays out of it
        mcp = [("mcp__s0__alpha_get_1", {"target": f"x{i}"})] if servers else []
        calls += [*mcp, ("read_file", {"path": f"notes{i}.txt"})]
    turns = [tool_calls([c], usage=None, usage_mode=None) for c in calls[: STEPS - 1]]
    return [*turns, text("done", usage=None, usage_mode=None)]


async def _session(proj: Path, servers: int, mode: str) -> list[dict[str, Any]]:
    from routed_fake import RoutedFake

    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags, load_config

    fake = RoutedFake().start()
    fake.script(*_turns(servers, mode))
    mcp = {f"s{i}": {"command": sys.executable, "args": [MANY, "40", TOPICS[i]]}
           for i in range(servers)}  # fmt: skip
    home = Path(os.environ["HOME"]) / ".agent"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"mcpServers": mcp, "tools": {"search": mode}}))
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    flags = Flags(max_turns=100, permission_mode="bypassPermissions", trust_project=True)
    run = build(load_config(flags, env, proj), Recorder())
    try:
        if run.mcp is not None:
            await asyncio.to_thread(run.mcp.wait, 60)
        end = await run.turn("do the task")
        if end.subtype != "success":
            raise RuntimeError(f"the scripted session failed: {end.error}")
    finally:
        await run.agent.llm.aclose()
        run.store.close()
        if run.mcp is not None:
            await run.mcp.aclose()
        fake.stop()
    return list(fake.requests)


def _tokens(body: dict[str, Any]) -> int:
    from agent.base.tokens import estimate_messages, estimate_tools

    return estimate_messages(body["messages"]) + estimate_tools(body.get("tools") or [])


def measure() -> dict[tuple[int, str], tuple[int, int, int]]:
    """(servers, mode) -> (first request bytes, total input tokens, of them tool schemas)."""
    from agent.base.tokens import estimate_tools

    out = {}
    for servers in (0, 1, 3):
        for mode in ("auto", "off"):
            with tempfile.TemporaryDirectory() as tmp:
                proj = Path(tmp) / "proj"
                (proj / ".agent").mkdir(parents=True)
                for i in range(STEPS):
                    (proj / f"notes{i}.txt").write_text(f"note {i}: the secret word is mango\n")
                os.environ["HOME"] = str(Path(tmp) / "home")
                os.environ["AGENT_STATE_DIR"] = str(Path(tmp) / "state")
                bodies = asyncio.run(_session(proj, servers, mode))
            schemas = sum(estimate_tools(b.get("tools") or []) for b in bodies)
            out[servers, mode] = (len(json.dumps(bodies[0])), sum(map(_tokens, bodies)), schemas)
    return out


def toolsearch_bench(table: Table) -> None:
    m = measure()
    bare = m[0, "auto"][1]
    for servers in (0, 1, 3):
        for mode in ("auto", "off"):
            first, total, schemas = m[servers, mode]
            goal = servers == 3 and mode == "auto"
            ok = first <= 16_000 and total <= bare * 1.1 if goal else None
            table.add(
                f"tool search {mode}, {servers} × 40-tool MCP servers: first request, input",
                f"{first / 1000:.1f} kB, {total:,} tokens ({schemas:,} of tool schemas)",
                f"no servers {bare:,} tokens",
                "≤ 16 kB, ≤ +10%" if goal else "",
                ok,
            )


if __name__ == "__main__":
    t = Table()
    toolsearch_bench(t)
    print(t.markdown())
