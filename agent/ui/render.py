"""Sinks at the edge: the one-shot text renderer here, the JSON / stream-json writers in
render_json (re-exported).

Text mode: the answer alone on stdout; reasoning, tool activity and warnings on stderr. A
terminal sees every reply streamed as it comes; a file or a pipe gets only the final answer, once
the turn has ended, and what the model said between tool calls goes to stderr as progress. JSON
modes: JSON Lines on stdout and nothing else there.

What reaches a terminal passes agent.base.visible: the answer on stdout when stdout is a
terminal (a file or a pipe gets the answer byte for byte: it is data, and the program
reading it decides), and everything on stderr always (it is for people — a log of it may be
`cat` to a terminal later — so nothing is lost by showing an escape sequence as `␛[2J`).
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
from agent.base.visible import visible
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
    """A unified diff (file lines: not the agent's own text) coloured, controls made visible."""
    out = []
    for line in visible(diff).splitlines():
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
    """The most telling argument of a call, on one line, safe to print."""
    keys = ("command", "path", "pattern", "url", "query", "file_path", "description")
    key = next((k for k in keys if k in args), None)
    text = visible(str(args[key]).replace("\n", "⏎") if key else dumps(args), "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def result_line(name: str, args: dict[str, Any], output: str, is_error: bool, display: str) -> str:
    """The one-line summary of a finished call: the tool's own summary line when it gave one,
    else (for an error) the error message squeezed onto one line, else the call itself."""
    first = display.partition("\n")[0]
    if first:
        return visible(first, "")
    if not is_error:
        return f"{visible(name, '')} {summarize_args(args)}"
    message = []
    for line in output.splitlines():
        if line.startswith(("Hint: ", "can_retry: ")):
            break
        message.append(line.strip())
    text = " ".join(part for part in message if part).removeprefix("Error: ") or "error"
    text = visible(text, "")
    return f"{visible(name, '')}: {text if len(text) <= 160 else text[:159] + '…'}"


def todo_text(items: list[dict[str, Any]]) -> str:
    """The todo list in a few stderr lines."""
    marks = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
    if not items:
        return "todo: (empty)"
    rows = [f"  {marks.get(i['status'], '[?]')} {i['id']}. {i['text']}" for i in items]
    return "todo:\n" + visible("\n".join(rows))


# The answer goes to a file or a pipe in pieces: one large write that the reader leaves in the
# middle of returns short, and io.TextIOWrapper drops the rest without a word; the next piece
# fails, so the run sees its reader gone (agent.ui.process.PipeOut).
PIECE = 8192


class Pieces:
    """`visible` over text that arrives in pieces: a CR ending one piece waits for the next,
    so a CRLF cut in two is still a newline."""

    def __init__(self, on: bool) -> None:
        self.on, self.cr = on, ""

    def __call__(self, text: str) -> str:
        if not self.on:
            return text
        text, self.cr = self.cr + text, ""
        if text.endswith("\r"):
            text, self.cr = text[:-1], "\r"
        return visible(text)

    def end(self) -> None:
        self.cr = ""  # a CR ending a reply moves nothing that stays on the screen


class TextRenderer:
    """One-shot text mode: answer to `out`, everything else to `err`. A terminal sees each reply
    live (what a person watches), and a note when a retry starts one over. A file or a pipe
    (what a program reads) gets the final answer alone: each reply is held until it is whole
    (a reply cut off and retried leaves no partial copy); one that calls tools was narration
    and goes to `err`; one that does not is the answer, written once the turn has succeeded —
    a Stop hook or a failing check may yet send the model back to work, and then it too was
    narration. A turn that fails leaves `out` empty and all its text on `err`. The answer is
    made visible (agent.base.visible) on a terminal, or when it goes to stderr; stderr's other
    lines always are."""

    def __init__(self, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr, verbose: bool = False):
        self.out, self.err, self.verbose = out, err, verbose
        self.s = Style(use_color(err))
        self.thinking = False
        self.at_line_start = True
        self.last_flush = 0.0
        self.hold = not out.isatty()
        self.held: list[str] = []  # the current reply's text, not yet written (hold mode)
        self.final = ""  # a whole reply without tool calls: the answer if the turn ends here
        self.shown = False  # text or reasoning of the current reply reached the screen
        self.answer = Pieces(out.isatty() or out is err)
        self.thought = Pieces(True)

    def _end_thinking(self) -> None:
        if self.thinking:
            self.err.write(f"{self.s.reset}\n{self.s.dim}[/thinking]{self.s.reset}\n")
            self.err.flush()
            self.thinking = False

    def emit(self, event: Event) -> None:
        if isinstance(event, (TextDelta, ReasoningDelta, ToolStart, AssistantMessage)):
            self._progress(self.final)  # the model works on: what it said was not the answer
            self.final = ""
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
            self.err.write(f"{self.s.dim}{self.thought(event.text)}")
            self.err.flush()
        else:
            self._end_thinking()
            if isinstance(event, AssistantMessage):  # the reply is whole
                text, self.held = "".join(self.held), []
                if event.tool_calls:
                    self._progress(text)
                else:
                    self.final = text
            elif isinstance(event, TurnEnd):
                self._release(event.subtype == "success")
            if isinstance(event, (AssistantMessage, TurnEnd)):
                self.shown = False
                self.answer.end()
                self.thought.end()
            self._other(event)

    def _write(self, text: str) -> None:
        text = self.answer(text)
        self.out.write(text)
        self.at_line_start = text.endswith("\n")
        now = time.monotonic()
        if now - self.last_flush > 0.03:
            self.out.flush()
            self.last_flush = now

    def _release(self, answered: bool) -> None:
        """The turn is over (hold mode): its answer to `out` when it succeeded; else what was
        said goes to `err`, before the reason it stopped — so is a reply cut short."""
        final, partial, self.final, self.held = self.final, "".join(self.held), "", []
        if final and answered:
            for at in range(0, len(final), PIECE):
                self._write(final[at : at + PIECE])
            self.out.flush()
        else:
            self._progress(final)
        self._progress(partial)

    def _progress(self, text: str) -> None:
        """What the model said that is not the answer: on `err`, made visible, on lines of its
        own."""
        if text.strip():
            text = visible(text)
            self.err.write(text if text.endswith("\n") else text + "\n")
            self.err.flush()

    def _new_line(self) -> None:
        self.out.flush()
        if not self.at_line_start:
            self.out.write("\n")
            self.at_line_start = True

    def _restart(self) -> None:
        """The reply was cut off and is requested again from its start: drop its held text;
        what a terminal already shows stays, ended and marked as cut off."""
        self.held = []
        self.answer.end()
        if self.shown:
            self._new_line()
            self._err(f"{self.s.dim}↻ reply cut off; retrying{self.s.reset}")
        self.shown = False

    def _other(self, event: Event) -> None:
        s = self.s
        if isinstance(event, ToolStart):
            self._new_line()
            name = visible(event.name, "")
            self._err(f"{s.cyan}→ {name}{s.reset} {summarize_args(event.args)}")
        elif isinstance(event, ToolEnd):
            rest = (event.display or "").partition("\n")[2]
            mark = f"{s.red}✗" if event.is_error else f"{s.green}✓"
            line = result_line(
                event.name, event.args, event.output, event.is_error, event.display or ""
            )
            self._err(f"  {mark}{s.reset} {line} {s.dim}· {event.duration_ms} ms{s.reset}")
            if rest and not event.is_error:
                self._err(color_diff(rest, s))
            if self.verbose and event.failure is not None and event.failure.error is not None:
                self._err(f"{s.dim}    ↳ {visible(event.failure.summary())}{s.reset}")
        elif isinstance(event, ErrorEvent):
            self._err(f"{s.yellow}warning:{s.reset} {visible(event.message)}")
            if event.discard:
                self._restart()
        elif isinstance(event, SubagentProgress):
            self._err(f"{s.dim}  ↳ {visible(event.message)}{s.reset}")
        elif isinstance(event, TodoChanged):
            self._err(f"{s.dim}{todo_text(event.items)}{s.reset}")
        elif isinstance(event, Notice):
            self._err(f"{s.yellow}note:{s.reset} {visible(event.message)}")
        elif isinstance(event, Compacted):
            self._err(f"{s.dim}{visible(event.text())}{s.reset}")
        elif isinstance(event, TurnEnd):
            self._new_line()
            self.out.flush()
            if event.error:
                self._err(f"{s.red}error:{s.reset} {visible(event.error)}")

    def _err(self, line: str) -> None:
        self.err.write(line + "\n")
        self.err.flush()

    def start(self, init: dict[str, Any]) -> None:
        if self.verbose:
            said = visible(f"agent · {init['model']} · session {init['session_id']}", "")
            self._err(f"{self.s.dim}{said}{self.s.reset}")

    def finish(self, result: dict[str, Any]) -> None:
        self._release(result.get("subtype") == "success")
        self.out.flush()
