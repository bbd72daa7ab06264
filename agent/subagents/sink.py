"""What the parent sees of a subagent: one-line progress, its usage, never its text or history."""

from __future__ import annotations

import json
from typing import Any

from agent.base.events import (
    ErrorEvent,
    Event,
    Notice,
    Sink,
    SubagentProgress,
    ToolEnd,
    ToolStart,
    Usage,
)

SUMMARY_KEYS = ("command", "path", "pattern", "url", "query", "description", "action_id")


def short(text: str, limit: int = 70) -> str:
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def summary(args: dict[str, Any]) -> str:
    """The most telling argument of a call, on one line."""
    for key in SUMMARY_KEYS:
        if key in args:
            return short(str(args[key]))
    return short(json.dumps(args, ensure_ascii=False))


class ChildSink:
    """A subagent's sink: tool calls, errors and notices become progress lines for the parent;
    usage passes through (the session's cost); text, messages and turn events stay private."""

    def __init__(self, parent: Sink, task_id: str, agent: str, label: str) -> None:
        self.parent, self.task_id, self.agent, self.label = parent, task_id, agent, label
        self.tool_calls = 0

    def progress(self, kind: str, text: str, tool: str = "", args: Any = None) -> None:
        self.parent.emit(
            SubagentProgress(
                f"[{self.label}] {text}", self.task_id, self.agent, kind, tool, dict(args or {})
            )
        )

    def emit(self, event: Event) -> None:
        if isinstance(event, ToolStart):
            self.tool_calls += 1
            line = f"→ {event.name} {summary(event.args)}"
            self.progress("tool_call", line, event.name, event.args)
        elif isinstance(event, ToolEnd) and event.is_error:
            first = event.output.splitlines()[0] if event.output else "error"
            self.progress("tool_error", f"✗ {event.name}: {short(first, 100)}", event.name)
        elif isinstance(event, Usage):
            self.parent.emit(event)
        elif isinstance(event, SubagentProgress):
            self.parent.emit(event)  # a grandchild's line, already labelled
        elif isinstance(event, ErrorEvent):
            tail = " (retrying)" if event.retrying else ""
            self.progress("error", f"{short(event.message, 120)}{tail}")
        elif isinstance(event, Notice):
            self.progress("notice", short(event.message, 160))
