"""Sinks at the edge: the one-shot text renderer and the JSON / stream-json writers.

Text mode: the answer alone on stdout (streamed); reasoning, tool activity and warnings on
stderr. JSON modes: JSON Lines on stdout and nothing else there.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import IO, Any

from agent.events import (
    AssistantMessage,
    Compacted,
    ErrorEvent,
    Event,
    Notice,
    PermissionDenied,
    ReasoningDelta,
    SubagentProgress,
    TextDelta,
    TodoChanged,
    ToolEnd,
    ToolStart,
    TurnEnd,
)

RESULT_PREVIEW = 2000  # chars of a tool result in a JSON tool_result event


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def use_color(stream: IO[str]) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class Style:
    """ANSI styles, empty when the stream is not a colour terminal."""

    def __init__(self, on: bool) -> None:
        self.dim = "\033[2m" if on else ""
        self.red = "\033[31m" if on else ""
        self.green = "\033[32m" if on else ""
        self.cyan = "\033[36m" if on else ""
        self.yellow = "\033[33m" if on else ""
        self.reset = "\033[0m" if on else ""


def color_diff(diff: str, s: Style) -> str:
    out = []
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            out.append(f"{s.green}{line}{s.reset}")
        elif line.startswith("-") and not line.startswith("---"):
            out.append(f"{s.red}{line}{s.reset}")
        elif line.startswith("@@"):
            out.append(f"{s.cyan}{line}{s.reset}")
        else:
            out.append(line)
    return "\n".join(out)


def summarize_args(args: dict[str, Any], limit: int = 80) -> str:
    """The most telling argument of a call, on one line."""
    for key in ("command", "path", "pattern", "url", "query", "file_path", "description"):
        if key in args:
            text = str(args[key]).replace("\n", "⏎")
            return text if len(text) <= limit else text[: limit - 1] + "…"
    text = dumps(args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def todo_text(items: list[dict[str, Any]]) -> str:
    """The todo list in a few stderr lines."""
    marks = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
    if not items:
        return "todo: (empty)"
    rows = [f"  {marks.get(i['status'], '[?]')} {i['id']}. {i['text']}" for i in items]
    return "todo:\n" + "\n".join(rows)


def subagent_line(event: SubagentProgress) -> dict[str, Any]:
    """A subagent's progress as a JSON line (its own type: never mistaken for the parent's)."""
    line: dict[str, Any] = {
        "type": "subagent",
        "task_id": event.task_id,
        "agent": event.agent,
        "event": event.kind,
        "message": event.message,
    }
    if event.tool:
        line["tool"] = event.tool
    if event.args:
        line["args"] = event.args
    return line


class TextRenderer:
    """One-shot text mode: answer to `out`, everything else to `err`."""

    def __init__(self, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr, verbose: bool = False):
        self.out, self.err, self.verbose = out, err, verbose
        self.s = Style(use_color(err))
        self.thinking = False
        self.at_line_start = True
        self.last_flush = 0.0

    def _end_thinking(self) -> None:
        if self.thinking:
            self.err.write(f"{self.s.reset}\n{self.s.dim}[/thinking]{self.s.reset}\n")
            self.err.flush()
            self.thinking = False

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            if self.thinking:
                self._end_thinking()
            self.out.write(event.text)
            self.at_line_start = event.text.endswith("\n")
            now = time.monotonic()
            if now - self.last_flush > 0.03:
                self.out.flush()
                self.last_flush = now
        elif isinstance(event, ReasoningDelta):
            if not self.thinking:
                self.err.write(f"{self.s.dim}[thinking]\n")
                self.thinking = True
            self.err.write(f"{self.s.dim}{event.text}")
            self.err.flush()
        else:
            self._end_thinking()
            self._other(event)

    def _other(self, event: Event) -> None:
        s = self.s
        if isinstance(event, ToolStart):
            self.out.flush()
            if not self.at_line_start:
                self.out.write("\n")
                self.at_line_start = True
            self._err(f"{s.cyan}→ {event.name}{s.reset} {summarize_args(event.args)}")
        elif isinstance(event, ToolEnd):
            first, _, rest = (event.display or "").partition("\n")
            mark = f"{s.red}✗" if event.is_error else f"{s.green}✓"
            line = first or event.name
            if event.is_error:
                line = f"{event.name}: {event.output.splitlines()[0] if event.output else 'error'}"
            self._err(f"  {mark}{s.reset} {line} {s.dim}· {event.duration_ms} ms{s.reset}")
            if rest and not event.is_error:
                self._err(color_diff(rest, s))
        elif isinstance(event, PermissionDenied):
            self._err(f"{s.yellow}  denied:{s.reset} {event.name} — {event.reason}")
        elif isinstance(event, ErrorEvent):
            tail = " — retrying" if event.retrying else ""
            self._err(f"{s.yellow}warning:{s.reset} {event.message}{tail}")
        elif isinstance(event, SubagentProgress):
            self._err(f"{s.dim}  ↳ {event.message}{s.reset}")
        elif isinstance(event, TodoChanged):
            self._err(f"{s.dim}{todo_text(event.items)}{s.reset}")
        elif isinstance(event, Notice):
            self._err(f"{s.yellow}note:{s.reset} {event.message}")
        elif isinstance(event, Compacted):
            self._err(f"{s.dim}compacted context: {event.pre_tokens} → {event.post_tokens} tokens")
        elif isinstance(event, TurnEnd):
            if not self.at_line_start:
                self.out.write("\n")
                self.at_line_start = True
            self.out.flush()
            if event.error:
                self._err(f"{s.red}error:{s.reset} {event.error}")

    def _err(self, line: str) -> None:
        self.err.write(line + "\n")
        self.err.flush()

    def start(self, init: dict[str, Any]) -> None:
        if self.verbose:
            self._err(
                f"{self.s.dim}agent · {init['model']} · session {init['session_id']}{self.s.reset}"
            )

    def finish(self, result: dict[str, Any]) -> None:
        self.out.flush()


class JsonRenderer:
    """`--output-format json`: the JSON Lines of SPEC §9, the result line last."""

    def __init__(self, out: IO[str] = sys.stdout) -> None:
        self.out = out

    def write(self, obj: dict[str, Any]) -> None:
        self.out.write(dumps(obj) + "\n")
        self.out.flush()

    def start(self, init: dict[str, Any]) -> None:
        self.write(init)

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.write({"type": "text", "text": event.text})
        elif isinstance(event, ReasoningDelta):
            self.write({"type": "reasoning", "text": event.text})
        elif isinstance(event, ToolStart):
            self.write(
                {"type": "tool_call", "id": event.id, "tool": event.name, "args": event.args}
            )
        elif isinstance(event, ToolEnd):
            self.write(
                {
                    "type": "tool_result",
                    "id": event.id,
                    "tool": event.name,
                    "result": event.output[:RESULT_PREVIEW],
                    "is_error": event.is_error,
                    "duration_ms": event.duration_ms,
                }
            )
        elif isinstance(event, Compacted):
            self.write(
                {
                    "type": "compact",
                    "trigger": event.trigger,
                    "pre_tokens": event.pre_tokens,
                    "post_tokens": event.post_tokens,
                }
            )
        elif isinstance(event, ErrorEvent):
            self.write({"type": "error", "message": event.message, "retrying": event.retrying})
        elif isinstance(event, TodoChanged):
            self.write({"type": "todo", "items": event.items})
        elif isinstance(event, SubagentProgress):
            self.write(subagent_line(event))
        elif isinstance(event, Notice):  # not a §9 event: stdout stays exactly the schema
            sys.stderr.write(f"agent: {event.message}\n")

    def finish(self, result: dict[str, Any]) -> None:
        self.write(result)


class StreamJsonRenderer(JsonRenderer):
    """`--output-format stream-json`: Claude Code's shape (system/assistant/user/result)."""

    def __init__(self, out: IO[str] = sys.stdout) -> None:
        super().__init__(out)
        self.session_id = ""
        self.model = ""
        self.n = 0

    def start(self, init: dict[str, Any]) -> None:
        self.session_id, self.model = init["session_id"], init["model"]
        self.write({**init, "permissionMode": init["permission_mode"], "apiKeySource": "env"})

    def emit(self, event: Event) -> None:
        if isinstance(event, AssistantMessage):
            self.n += 1
            content: list[dict[str, Any]] = []
            if event.reasoning:
                content.append({"type": "thinking", "thinking": event.reasoning})
            if event.text:
                content.append({"type": "text", "text": event.text})
            for c in event.tool_calls:
                content.append(
                    {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]}
                )
            u = event.usage or {}
            message = {
                "id": f"msg_{self.session_id[:8]}_{self.n}",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": content,
                "stop_reason": "tool_use" if event.tool_calls else "end_turn",
                "usage": {
                    "input_tokens": u.get("input_tokens", 0),
                    "output_tokens": u.get("output_tokens", 0),
                    "cache_read_input_tokens": u.get("cached_tokens", 0),
                },
            }
            self._wrap("assistant", message)
        elif isinstance(event, ToolEnd):
            block = {
                "type": "tool_result",
                "tool_use_id": event.id,
                "content": event.output,
                "is_error": event.is_error,
            }
            self._wrap("user", {"role": "user", "content": [block]})

    def _wrap(self, kind: str, message: dict[str, Any]) -> None:
        self.write(
            {
                "type": kind,
                "message": message,
                "parent_tool_use_id": None,
                "session_id": self.session_id,
            }
        )
