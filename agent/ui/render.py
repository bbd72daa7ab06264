"""Sinks at the edge: the one-shot text renderer here, the JSON / stream-json writers in
render_json (re-exported).

Text mode: the answer alone on stdout (streamed to a terminal, each reply whole to a file or a
pipe); reasoning, tool activity and warnings on stderr. JSON modes: JSON Lines on stdout and
nothing else there.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, Any

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
    TurnEnd,
)
from agent.ui.render_json import RESULT_PREVIEW as RESULT_PREVIEW
from agent.ui.render_json import JsonRenderer as JsonRenderer
from agent.ui.render_json import StreamJsonRenderer as StreamJsonRenderer
from agent.ui.render_json import dumps
from agent.ui.render_json import subagent_line as subagent_line


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


def result_line(name: str, args: dict[str, Any], output: str, is_error: bool, display: str) -> str:
    """The one-line summary of a finished call: the tool's own summary line when it gave one,
    else (for an error) the error message squeezed onto one line, else the call itself."""
    first = display.partition("\n")[0]
    if first:
        return first
    if not is_error:
        return f"{name} {summarize_args(args)}"
    message = []
    for line in output.splitlines():
        if line.startswith(("Hint: ", "can_retry: ")):
            break
        message.append(line.strip())
    text = " ".join(part for part in message if part).removeprefix("Error: ") or "error"
    return f"{name}: {text if len(text) <= 160 else text[:159] + '…'}"


def todo_text(items: list[dict[str, Any]]) -> str:
    """The todo list in a few stderr lines."""
    marks = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
    if not items:
        return "todo: (empty)"
    rows = [f"  {marks.get(i['status'], '[?]')} {i['id']}. {i['text']}" for i in items]
    return "todo:\n" + "\n".join(rows)


class TextRenderer:
    """One-shot text mode: answer to `out`, everything else to `err`. A file or a pipe gets each
    reply's text once the reply is complete, so a reply cut off and retried leaves no partial
    copy there; a terminal sees it live, and a note when a retry starts it over."""

    def __init__(self, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr, verbose: bool = False):
        self.out, self.err, self.verbose = out, err, verbose
        self.s = Style(use_color(err))
        self.thinking = False
        self.at_line_start = True
        self.last_flush = 0.0
        self.hold = not out.isatty()
        self.held: list[str] = []  # the current reply's text, not yet written (hold mode)
        self.shown = False  # text or reasoning of the current reply reached the screen

    def _end_thinking(self) -> None:
        if self.thinking:
            self.err.write(f"{self.s.reset}\n{self.s.dim}[/thinking]{self.s.reset}\n")
            self.err.flush()
            self.thinking = False

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            if self.thinking:
                self._end_thinking()
            if self.hold:
                self.held.append(event.text)
            else:
                self.shown = True
                self._write(event.text)
        elif isinstance(event, ReasoningDelta):
            if not self.thinking:
                self.err.write(f"{self.s.dim}[thinking]\n")
                self.thinking = True
            self.shown = True
            self.err.write(f"{self.s.dim}{event.text}")
            self.err.flush()
        else:
            self._end_thinking()
            if isinstance(event, (AssistantMessage, TurnEnd)):  # the reply is whole (or over)
                self._release()
                self.shown = False
            self._other(event)

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.at_line_start = text.endswith("\n")
        now = time.monotonic()
        if now - self.last_flush > 0.03:
            self.out.flush()
            self.last_flush = now

    def _release(self) -> None:
        if self.held:
            self._write("".join(self.held))
            self.held = []
            self.out.flush()

    def _new_line(self) -> None:
        self.out.flush()
        if not self.at_line_start:
            self.out.write("\n")
            self.at_line_start = True

    def _restart(self) -> None:
        """The reply was cut off and is requested again from its start: drop its held text;
        what a terminal already shows stays, ended and marked as cut off."""
        self.held = []
        if self.shown:
            self._new_line()
            self._err(f"{self.s.dim}↻ reply cut off; retrying{self.s.reset}")
        self.shown = False

    def _other(self, event: Event) -> None:
        s = self.s
        if isinstance(event, ToolStart):
            self._new_line()
            self._err(f"{s.cyan}→ {event.name}{s.reset} {summarize_args(event.args)}")
        elif isinstance(event, ToolEnd):
            rest = (event.display or "").partition("\n")[2]
            mark = f"{s.red}✗" if event.is_error else f"{s.green}✓"
            line = result_line(
                event.name, event.args, event.output, event.is_error, event.display or ""
            )
            self._err(f"  {mark}{s.reset} {line} {s.dim}· {event.duration_ms} ms{s.reset}")
            if rest and not event.is_error:
                self._err(color_diff(rest, s))
        elif isinstance(event, ErrorEvent):
            tail = " — retrying" if event.retrying else ""
            self._err(f"{s.yellow}warning:{s.reset} {event.message}{tail}")
            if event.discard:
                self._restart()
        elif isinstance(event, SubagentProgress):
            self._err(f"{s.dim}  ↳ {event.message}{s.reset}")
        elif isinstance(event, TodoChanged):
            self._err(f"{s.dim}{todo_text(event.items)}{s.reset}")
        elif isinstance(event, Notice):
            self._err(f"{s.yellow}note:{s.reset} {event.message}")
        elif isinstance(event, Compacted):
            self._err(f"{s.dim}{event.text()}{s.reset}")
        elif isinstance(event, TurnEnd):
            self._new_line()
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
        self._release()
        self.out.flush()
