"""What /context shows: the window by kind — system prompt, tools, memory, user text, the
model's text, its tool calls and reasoning, and tool results by tool."""

from __future__ import annotations

from typing import Any

from agent.base.messages import Message, text_of
from agent.base.shelf import Shelf
from agent.base.tokens import CALL_OVERHEAD, MESSAGE_OVERHEAD, estimate, estimate_tools
from agent.context.memory import MEMORY_HEADER
from agent.core.loop import Agent

KINDS = ("user text", "assistant text", "tool calls", "reasoning", "tool results")
BAR_GLYPHS = {
    "system prompt": "█",
    "tools": "▓",
    "memory": "▒",
    "user text": "░",
    "assistant text": "▞",
    "tool calls": "▚",
    "reasoning": "▥",
    "tool results": "▤",
}


def message_kinds(messages: list[Message]) -> tuple[dict[str, int], dict[str, int]]:
    """Estimated tokens of the conversation by kind, and of the tool results by tool."""
    kinds = dict.fromkeys(KINDS, 0)
    by_tool: dict[str, int] = {}
    names: dict[str, str] = {}
    for m in messages:
        role, text = m.get("role"), text_of(m)
        if role == "user":
            kinds["user text"] += MESSAGE_OVERHEAD + estimate(text)
        elif role == "assistant":
            kinds["assistant text"] += MESSAGE_OVERHEAD + estimate(text)
            kinds["reasoning"] += estimate(str(m.get("reasoning_content") or ""))
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                names[str(c.get("id", ""))] = name = str(fn.get("name", "tool"))
                args = str(fn.get("arguments", ""))
                kinds["tool calls"] += CALL_OVERHEAD + estimate(name) + estimate(args)
        elif role == "tool":
            n = MESSAGE_OVERHEAD + estimate(text)
            kinds["tool results"] += n
            name = names.get(str(m.get("tool_call_id", "")), "tool")
            by_tool[name] = by_tool.get(name, 0) + n
    return kinds, by_tool


def _scaled(values: dict[str, int], total: int) -> dict[str, int]:
    """`values` scaled to add up to `total` (estimates, fitted to the reported size)."""
    est = sum(values.values())
    if est <= 0:
        return dict.fromkeys(values, 0)
    out = {k: v * total // est for k, v in values.items()}
    biggest = max(out, key=lambda k: out[k])
    out[biggest] += total - sum(out.values())
    return out


def context_breakdown(agent: Agent) -> dict[str, Any]:
    """`/context` data: tokens by kind (and tool results by tool), the window and the limit."""
    system = str(agent.messages[0].get("content") or "") if agent.messages else ""
    base, found, mem = system.partition(f"\n\n{MEMORY_HEADER}")
    memory = f"{MEMORY_HEADER}{mem}".rstrip("\n") if found else ""  # as /memory counts it
    parts = {
        "system prompt": estimate(base),
        "tools": estimate_tools(agent.schemas),
        "memory": estimate(memory),
    }
    total = agent.meter.now(agent.messages, agent.schemas)
    rest = max(total - sum(parts.values()), 0)
    kinds, by_tool = message_kinds(agent.messages[1:])
    parts.update(_scaled(kinds, rest))
    policy = agent.compaction
    limit = agent.window()
    return {
        "total": total,
        "limit": limit,
        "parts": parts,
        "tool_results": _scaled(by_tool, parts["tool results"]),
        "compact_at": policy.trigger if policy else None,
        "clear_at": agent.economy.clearing.trigger(limit) if agent.economy.clearing else None,
        "free": max(limit - total, 0),
        "economy": dict(agent.economy.counts),
        "tool_search": tool_search_figures(agent.shelf),
    }


def tool_search_figures(shelf: Shelf | None) -> dict[str, int] | None:
    """Deferred tools (rare built-ins, MCP tools: not sent) and those loaded since (by
    tool_search, a mode, a call): how many, their schemas' estimated tokens; None when nothing
    is deferred."""
    if shelf is None or not shelf.deferred:
        return None
    loaded, waiting = shelf.tokens()
    return {
        "loaded": len(shelf.loaded),
        "loaded_tokens": loaded,
        "deferred": len(shelf.waiting()),
        "deferred_tokens": waiting,
    }


def context_report(agent: Agent, width: int = 40) -> str:
    """`/context` as text: a bar of the window and the breakdown."""
    d = context_breakdown(agent)
    limit = max(d["limit"], 1)
    bar = "".join(BAR_GLYPHS[k] * round(v * width / limit) for k, v in d["parts"].items())
    bar = (bar + "·" * width)[:width]
    lines = [f"context [{bar}] {d['total']:,} / {d['limit']:,} tokens ({d['total'] / limit:.0%})"]
    for name, value in d["parts"].items():
        lines.append(f"  {BAR_GLYPHS[name]} {name:<16}{value:>10,}")
        if name == "tool results":
            ranked = sorted(d["tool_results"].items(), key=lambda kv: -kv[1])
            lines += [f"      {tool:<14}{n:>10,}" for tool, n in ranked if n]
    lines.append(f"  · {'free':<16}{d['free']:>10,}")
    if d["clear_at"]:
        lines.append(f"old tool results cleared at {d['clear_at']:,} tokens")
    if d["compact_at"]:
        lines.append(f"auto-compaction at {d['compact_at']:,} tokens")
    done = d["economy"]
    if done:
        said = {"unchanged_reads": "unchanged re-reads", "spilled": "outputs saved to files"}
        said["cleared"] = "results cleared"
        lines.append("saved so far: " + ", ".join(f"{n} {said[k]}" for k, n in done.items()))
    if (ts := d["tool_search"]) is not None:
        lines.append(
            f"tool schemas: {ts['loaded']} loaded on demand ({ts['loaded_tokens']:,} tokens, "
            f"in the tools above), {ts['deferred']} deferred ({ts['deferred_tokens']:,} not sent)"
        )
    return "\n".join(lines)
