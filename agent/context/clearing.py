"""Clearing stale tool results: the step before compaction.

Once the next request would pass `clear_at` of the window (below the compaction trigger), the
results of tool calls older than the last `keep_turns` model turns are replaced by a one-line
stub — the tool, its arguments, the size, and "re-run or re-read to see it again" — all of
them at once, oldest first. It happens in one step, so the cached prompt prefix breaks once (at
the oldest result cleared) and the context then has room to grow again before the next time,
instead of a break on every request; compaction stays the last resort. The calls themselves
stay, so the model still knows what it did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent.base.events import Compacted
from agent.base.messages import Message
from agent.base.tokens import estimate
from agent.context.compaction import Conversation

STUB_PREFIX = "[cleared to save context:"
MIN_TOKENS = 120  # results smaller than this stay: a stub would save next to nothing
ARGS_SHOWN = 160  # characters of the arguments repeated in a stub


@dataclass(frozen=True)
class Clearing:
    """When to clear and what to keep (setting toolResults.clearAt, keepTurns)."""

    clear_at: float = 0.4
    keep_turns: int = 4

    def trigger(self, window: int) -> int:
        return int(window * self.clear_at)


def is_stub(content: str) -> bool:
    return content.startswith(STUB_PREFIX)


def stub(name: str, arguments: str, content: str) -> str:
    """The line that replaces a cleared result."""
    try:  # the arguments compact, on one line
        args = json.dumps(json.loads(arguments or "{}"), ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        args = arguments
    if len(args) > ARGS_SHOWN:
        args = args[: ARGS_SHOWN - 1] + "…"
    lines = content.count("\n") + 1
    return (
        f"{STUB_PREFIX} {name} {args} returned {len(content):,} characters ({lines:,} lines); "
        "re-run or re-read to see it again]"
    )


def _calls(messages: list[Message]) -> dict[str, tuple[str, str]]:
    """call id -> (tool name, arguments) for every call in the history."""
    out: dict[str, tuple[str, str]] = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            out[str(c.get("id", ""))] = (str(fn.get("name", "tool")), str(fn.get("arguments", "")))
    return out


def stale_end(messages: list[Message], keep_turns: int) -> int:
    """Index of the first message whose results stay: the last `keep_turns` model turns that
    called tools (0 = none is old enough)."""
    turns = [
        i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("tool_calls")
    ]
    return turns[-keep_turns] if len(turns) > keep_turns else 0


def clear_stale(conv: Conversation, clearing: Clearing | None, window: int) -> int:
    """Clear old results when the next request would pass the threshold; returns how many.
    The new history is announced as a `Compacted` event (trigger "clear"), which the session
    store records like a compaction."""
    if clearing is None or clearing.clear_at <= 0:
        return 0
    trigger = clearing.trigger(window)
    pre = conv.size()
    if pre <= trigger:
        return 0
    msgs = conv.messages
    end = stale_end(msgs, clearing.keep_turns)
    calls, saved, count = _calls(msgs[:end]), 0, 0
    for i in range(1, end):
        m = msgs[i]
        content = str(m.get("content") or "")
        if m.get("role") != "tool" or is_stub(content):
            continue
        tokens = estimate(content)
        if tokens < MIN_TOKENS:
            continue
        name, arguments = calls.get(str(m.get("tool_call_id", "")), ("tool", ""))
        line = stub(name, arguments, content)
        msgs[i] = {**m, "content": line}
        saved += tokens - estimate(line)
        count += 1
    if count:
        conv.meter.reset()  # the reported usage covered the results now gone
        post = conv.size()
        conv.sink.emit(Compacted("clear", pre, post, messages=list(msgs), cleared=count))
    return count
