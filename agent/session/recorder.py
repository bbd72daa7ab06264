"""The session sink: every history change, usage and checkpoint goes to the JSONL store."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from agent.base.events import (
    Compacted,
    Event,
    HistoryReplaced,
    MessageAdded,
    Notice,
    Sink,
    TodoChanged,
    TurnEnd,
    TurnStart,
    Usage,
)
from agent.base.messages import FunctionCall, Message, ToolCallEntry, wire_name
from agent.base.visible import visible
from agent.config.providers import Provider
from agent.session.checkpoints import Snapshots
from agent.session.store import SessionFile

INTERRUPTED_RESULT = "Error: interrupted before this tool call finished.\ncan_retry: false"
NO_REPLY = "[no reply: the turn was interrupted]"


class SessionRecorder:
    """A Sink that appends records as events happen (flushed per record).

    A store that cannot be written any more (full disk) is reported once, as a Notice to the
    sink given to `report_to` (the agent's), and the session carries on unsaved."""

    def __init__(self, store: SessionFile, provider: Provider, snapshots: Snapshots) -> None:
        self.store, self.provider, self.snapshots = store, provider, snapshots
        self._report: Sink | None = None

    def report_to(self, sink: Sink) -> None:
        self._report = sink
        self._check()

    def _check(self) -> None:
        """Say once that the session is no longer saved (a write here, or by a snapshot)."""
        warning = self.store.take_warning()
        if not warning:
            return
        if self._report is not None:
            self._report.emit(Notice(warning))
        else:
            print(f"warning: {visible(warning)}", file=sys.stderr)

    def start(self, cwd: Path, model: str, resumed_from: str = "") -> None:
        self.store.append(
            {
                "t": "meta",
                "cwd": str(cwd),
                "model": model,
                "time": time.time(),
                "provider": self.provider.name,
                "resumed_from": resumed_from,
            }
        )
        self._check()

    def change(self, kind: str, value: str) -> None:
        """Model or permission-mode changes made during the session."""
        self.store.append({"t": kind, "value": value, "time": time.time()})
        self._check()

    def emit(self, event: Event) -> None:
        self._record(event)
        self._check()

    def _record(self, event: Event) -> None:
        if isinstance(event, MessageAdded):
            self.store.append({"t": "message", "message": event.message})
        elif isinstance(event, TurnStart):
            self.snapshots.begin_turn(event.words or event.prompt, event.msg_index)
        elif isinstance(event, Usage):
            cost = event.cost  # None (null): the model's price is unknown
            self.store.append(
                {
                    "t": "usage",
                    "input": event.input_tokens,
                    "output": event.output_tokens,
                    "cached": event.cached_tokens,
                    "reasoning": event.reasoning_tokens,
                    "cost": cost,
                }
            )
        elif isinstance(event, Compacted) and getattr(event, "messages", None) is not None:
            self.store.append(
                {
                    "t": "compact",
                    "trigger": event.trigger,
                    "pre_tokens": event.pre_tokens,
                    "post_tokens": event.post_tokens,
                    "messages": [m for m in event.messages or [] if m.get("role") != "system"],
                }
            )
        elif isinstance(event, HistoryReplaced):
            self.store.append({"t": "rewind", "reason": event.reason, "messages": event.messages})
        elif isinstance(event, TurnEnd):
            self.store.append({"t": "turn_end", "subtype": event.subtype, "time": time.time()})
        elif isinstance(event, TodoChanged):  # the last one is restored on resume
            self.store.append({"t": "todo", "items": event.items})


def repair_history(messages: list[Message]) -> list[Message]:
    """Make a stored history a valid request: every tool call answered, no orphans, and the
    roles alternating — a user message never follows another user message or tool results
    (strict chat templates reject that), so a turn that got no reply gets a placeholder."""
    out: list[Message] = []
    pending: list[str] = []

    def close_pending() -> None:
        for call_id in pending:
            out.append({"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED_RESULT})
        pending.clear()

    def unanswered() -> bool:
        return bool(out) and out[-1].get("role") in ("user", "tool")

    for m in messages:
        if m.get("role") == "tool":
            if m.get("tool_call_id") in pending:
                pending.remove(m["tool_call_id"])
                out.append(m)
            continue  # a result without its call would be rejected
        close_pending()
        if m.get("role") == "user" and unanswered():
            out.append({"role": "assistant", "content": NO_REPLY})
        if m.get("role") == "assistant" and m.get("tool_calls"):
            m = Message(**m)
            m["tool_calls"] = [_named(c) for c in m["tool_calls"]]
        out.append(m)
        if m.get("role") == "assistant":
            pending = [c["id"] for c in m.get("tool_calls") or []]
    close_pending()
    if unanswered():
        out.append({"role": "assistant", "content": NO_REPLY})
    return out


def _named(call: ToolCallEntry) -> ToolCallEntry:
    """A stored call whose name a provider would refuse (saved before names were checked)."""
    fn = call.get("function") or FunctionCall(name="", arguments="")
    name = str(fn.get("name", ""))
    if wire_name(name) == name:
        return call
    return ToolCallEntry(
        id=call["id"],
        type=call["type"],
        function=FunctionCall(name=wire_name(name), arguments=fn["arguments"]),
    )
