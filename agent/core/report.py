"""What /context shows: the window by part (system prompt, tools, memory, messages)."""

from __future__ import annotations

from typing import Any

from agent.base.tokens import estimate, estimate_tools
from agent.context.memory import MEMORY_HEADER
from agent.core.loop import Agent


def context_breakdown(agent: Agent) -> dict[str, Any]:
    """`/context` data: tokens by part (system prompt, tools, memory, messages) and the limit."""
    system = str(agent.messages[0].get("content") or "") if agent.messages else ""
    base, found, mem = system.partition(f"\n\n{MEMORY_HEADER}")
    memory = f"{MEMORY_HEADER}{mem}".rstrip("\n") if found else ""  # as /memory counts it
    parts = {
        "system prompt": estimate(base),
        "tools": estimate_tools(agent.schemas),
        "memory": estimate(memory),
    }
    total = agent.meter.now(agent.messages, agent.schemas)
    parts["messages"] = max(total - sum(parts.values()), 0)
    policy = agent.compaction
    limit = policy.context_limit if policy else agent.llm.cfg.provider.context_limit
    return {
        "total": total,
        "limit": limit,
        "parts": parts,
        "compact_at": policy.trigger if policy else None,
        "free": max(limit - total, 0),
    }


BAR_GLYPHS = {"system prompt": "█", "tools": "▓", "memory": "▒", "messages": "░"}


def context_report(agent: Agent, width: int = 40) -> str:
    """`/context` as text: a bar of the window and the breakdown."""
    d = context_breakdown(agent)
    limit = max(d["limit"], 1)
    bar = "".join(BAR_GLYPHS[k] * round(v * width / limit) for k, v in d["parts"].items())
    bar = (bar + "·" * width)[:width]
    lines = [f"context [{bar}] {d['total']:,} / {d['limit']:,} tokens ({d['total'] / limit:.0%})"]
    for name, value in d["parts"].items():
        lines.append(f"  {BAR_GLYPHS[name]} {name:<14}{value:>10,}")
    lines.append(f"  · {'free':<14}{d['free']:>10,}")
    if d["compact_at"]:
        lines.append(f"auto-compaction at {d['compact_at']:,} tokens")
    return "\n".join(lines)
