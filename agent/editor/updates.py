"""The loop's events as ACP session updates: streamed text and reasoning, tool calls with their
kind, title, locations and diffs, the todo list as a plan. `EditorSink.emit` is synchronous
(the loop's Sink protocol); a pump task sends the updates in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path
from typing import Any, Literal

from acp import (
    plan_entry,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
)
from acp.schema import ToolCallLocation, ToolCallProgress, ToolCallStart

from agent.base.events import (
    AssistantMessage,
    Compacted,
    ErrorEvent,
    Event,
    Notice,
    ReasoningDelta,
    SubagentProgress,
    TextDelta,
    TodoChanged,
    ToolEnd,
    ToolStart,
)
from agent.base.record import Tool
from agent.ui.render import result_line, summarize_args

log = logging.getLogger("agent.editor")
OUTPUT_SHOWN = 4000  # characters of a tool's output shown in the editor
DIFF_MAX = 1 << 20  # a file larger than this gets no diff (only the output text)
Status = Literal["pending", "in_progress", "completed"]
STATUS: dict[str, Status] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}


def _status(item: dict[str, Any]) -> Status:
    return STATUS.get(str(item.get("status")), "pending")


def kind_of(tool: Tool | None) -> str:
    """The ACP kind of a call: what the tool's record says it does."""
    if tool is None:
        return "other"
    if tool.kind == "read":
        return "search" if tool.target is not None and tool.target.what == "folder" else "read"
    return {"edit": "edit", "exec": "execute", "network": "fetch"}.get(tool.kind, "other")


def locations(tool: Tool | None, args: dict[str, Any], cwd: Path) -> list[ToolCallLocation]:
    """The files a call acts on, for the editor to follow."""
    if tool is None or tool.target is None or tool.target.what not in ("file", "files"):
        return []
    out = []
    for path in tool.target.paths(args):
        if path:
            line = args.get("offset") if tool.kind == "read" else None
            full = str((cwd / path).resolve()) if not Path(path).is_absolute() else path
            out.append(ToolCallLocation(path=full, line=line if isinstance(line, int) else None))
    return out


def _text(path: str) -> str | None:
    try:
        p = Path(path)
        if not p.is_file():
            return ""  # a new file: the diff starts from nothing
        if p.stat().st_size > DIFF_MAX:
            return None
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


class EditorSink:
    """The Sink of one ACP session: events become `session/update` notifications."""

    def __init__(self, conn: Any, session_id: str, cwd: Path) -> None:
        self.conn, self.session_id, self.cwd = conn, session_id, cwd
        self.tools: dict[str, Tool] = {}  # the session's registry, once it is built
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.pump = asyncio.ensure_future(self._pump())
        self.before: dict[str, dict[str, str | None]] = {}  # call id -> file -> text before
        self.finish_reason = ""  # of the last reply ("length", "content_filter"…)

    def send(self, update: Any) -> None:
        """Queue one update (from any thread) for the pump."""
        if threading.get_ident() == self.thread:
            self.queue.put_nowait(update)
        else:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, update)

    async def _pump(self) -> None:
        while True:
            update = await self.queue.get()
            try:
                await self.conn.session_update(self.session_id, update)
            except Exception as e:  # the editor went away or refused one: keep going
                log.warning("session/update failed: %s", e)
            finally:
                self.queue.task_done()

    async def flush(self) -> None:
        """Wait until every queued update went out (before a request that refers to them)."""
        await self.queue.join()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 5)
        self.pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.pump

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.send(update_agent_message_text(event.text))
        elif isinstance(event, ReasoningDelta):
            self.send(update_agent_thought_text(event.text))
        elif isinstance(event, ToolStart):
            self.send(self.tool_start(event))
        elif isinstance(event, ToolEnd):
            self.send(self.tool_end(event))
        elif isinstance(event, TodoChanged):
            self.send(
                update_plan(
                    plan_entry(str(i.get("text", "")), status=_status(i)) for i in event.items
                )
            )
        elif isinstance(event, SubagentProgress):
            self.send(update_agent_thought_text(f"\n↳ {event.message}\n"))
        elif isinstance(event, Compacted) and event.trigger != "clear":
            self.send(update_agent_thought_text("\n(the conversation was compacted)\n"))
        elif isinstance(event, AssistantMessage):
            self.finish_reason = event.finish_reason
        elif isinstance(event, (Notice, ErrorEvent)):
            log.warning("%s", event.message)

    def tool_start(self, event: ToolStart) -> ToolCallStart:
        tool = self.tools.get(event.name)
        if tool is not None and tool.kind == "edit":  # the files as they were, for the diff
            self.before[event.id] = {p: _text(p) for p in self._paths(tool, event.args)}
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=event.id,
            title=f"{event.name} {summarize_args(event.args)}",
            kind=kind_of(tool),  # type: ignore[arg-type]
            status="pending",
            locations=locations(tool, event.args, self.cwd) or None,
            raw_input=event.args,
        )

    def tool_end(self, event: ToolEnd) -> ToolCallProgress:
        tool = self.tools.get(event.name)
        content: list[Any] = []
        before = self.before.pop(event.id, {})
        if not event.is_error:
            for path, old in before.items():
                new = _text(path)
                if old is not None and new is not None and new != old:
                    content.append(tool_diff_content(path, new, old or None))
        shown = event.output
        if len(shown) > OUTPUT_SHOWN:
            shown = f"{shown[:OUTPUT_SHOWN]}\n… ({len(event.output):,} characters in all)"
        if not content or event.is_error:
            content.append(tool_content(text_block(shown)))
        title = result_line(
            event.name, event.args, event.output, event.is_error, event.display or ""
        )
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=event.id,
            status="failed" if event.is_error else "completed",
            title=title,
            kind=kind_of(tool),  # type: ignore[arg-type]
            content=content,
            raw_output=event.output[:OUTPUT_SHOWN],
        )

    def _paths(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        out = []
        for path in tool.edited_files(args):
            full = Path(path) if Path(path).is_absolute() else self.cwd / path
            out.append(str(full.resolve()))
        return out
