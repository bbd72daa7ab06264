"""The audit log (SPEC §5): one JSON line per tool call in the project's state directory
(`<state dir>/projects/<slug>/audit.jsonl`, see agent.config.statedir).

It is the outermost dispatch layer, so it sees every call that reached the pipeline —
allowed, denied by a rule, the mode, the user or a hook — with the decision and who made it
(the Call's decision fields, filled by the gate and the hooks layer), the exit status and the
duration. Long argument values are abbreviated. A failure to write the log is reported once
and never fails the call.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent.base.events import Event, Notice, PermissionDenied, Sink
from agent.base.record import Call, Next, ToolContext, ToolResult
from agent.config import safefile
from agent.config.statedir import ensure_home, project_state

VALUE_CAP = 200  # characters kept of one string argument
LIST_CAP = 20  # items kept of one list argument
_EXIT = re.compile(r"(?:· exit |\[exit code )(-?\d+)")


def abbreviate(value: Any, depth: int = 0) -> Any:
    """The value with long strings and lists cut, marked with how much was cut."""
    if isinstance(value, str):
        if len(value) <= VALUE_CAP:
            return value
        return f"{value[: VALUE_CAP - 40]}…[{len(value)} chars]"
    if isinstance(value, dict):
        if depth > 3:
            return "{…}"
        return {str(k): abbreviate(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [abbreviate(v, depth + 1) for v in value[:LIST_CAP]]
        if len(value) > LIST_CAP:
            items.append(f"…[{len(value)} items]")
        return items
    return value


def exit_status(result: ToolResult) -> int | None:
    """The exit code of a command-like tool, when its result states one."""
    for text in (result.display or "", result.output[-400:]):
        m = _EXIT.search(text)
        if m:
            return int(m.group(1))
    return None


class Audit:
    """Middleware writing one line per call (after it ends, or when it is interrupted)."""

    def __init__(self, root: Path, session_id: str, sink: Sink | None = None) -> None:
        self.root, self.session_id, self.sink = root, session_id, sink
        self.path = project_state(root) / "audit.jsonl"
        self.failed = False

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        t0 = time.perf_counter()
        try:
            result = await nxt(call, ctx)
        except asyncio.CancelledError:
            self.record(call, None, time.perf_counter() - t0)
            raise
        self.record(call, result, time.perf_counter() - t0)
        return result

    def entry(self, call: Call, result: ToolResult | None, seconds: float) -> dict[str, Any]:
        line: dict[str, Any] = {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "session": self.session_id,
            "id": call.id,
            "tool": call.name,
            "args": abbreviate(call.args),
            "decision": call.decision,
            "source": call.source,
        }
        for key, value in (("rule", call.rule), ("reason", call.reason), ("mode", call.mode)):
            if value:
                line[key] = value
        line["trigger"] = call.trigger  # who asked: the model, the user (/run), a subagent
        if result is None:
            line.update(status="interrupted", is_error=True)
        else:
            verdict = line["decision"]
            line["status"] = (
                "invalid"  # not run: it could not have worked (checked before asking)
                if verdict == "skip"
                else "denied"
                if verdict != "allow"
                else ("error" if result.is_error else "ok")
            )
            line["is_error"] = result.is_error
            if result.failure is not None:  # what happened (the model read what to do)
                line["failure"] = result.failure.summary()
            code = exit_status(result)
            if code is not None:
                line["exit_code"] = code
        if call.source == "user":  # a person answered a prompt: that wait is not the tool's time
            line["wait_ms"] = int(max(seconds - call.run_seconds, 0.0) * 1000)
            seconds = call.run_seconds
        line["duration_ms"] = int(seconds * 1000)
        return line

    def record(self, call: Call, result: ToolResult | None, seconds: float) -> None:
        text = json.dumps(self.entry(call, result, seconds), ensure_ascii=False, default=str)
        try:
            # Never through a link, one write per line (O_APPEND); private: it quotes commands.
            safefile.append_text(ensure_home(), self.path, text + "\n", 0o600)
        except OSError as e:
            if not self.failed and self.sink is not None:
                self.sink.emit(Notice(f"cannot write the audit log {self.path}: {e}"))
            self.failed = True


@dataclass
class Denials:
    """Collects permission denials for the result's `permission_denials`."""

    items: list[dict[str, Any]] = field(default_factory=list)

    def emit(self, event: Event) -> None:
        if isinstance(event, PermissionDenied):
            self.items.append(
                {"tool_name": event.name, "tool_use_id": event.id, "tool_input": event.args}
            )
