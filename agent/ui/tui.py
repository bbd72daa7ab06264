"""The REPL's renderer (a Sink): markdown answers, dimmed reasoning, tool lines, a spinner.

Finished markdown blocks (paragraphs, lists, closed code fences) are printed once, for good; only
the block still being written lives in a transient rich Live region, cut to the screen height.
So nothing is printed twice and the region never scrolls out of reach (no flicker, no copies).
A reply cut off and retried drops its unprinted text; if blocks of it were printed already, a
dim line says the reply starts over.

Everything it prints that the agent did not write (the answer, reasoning, tool lines, diffs,
warnings and notes quoting tool or server text) is made visible first (agent.base.visible;
agent.ui.terminal for Markdown and its links), and the console itself is a safe one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from agent.base.events import (
    AssistantMessage,
    Compacted,
    ErrorEvent,
    Event,
    Notice,
    PermissionDenied,
    ReasoningDelta,
    TextDelta,
    TodoChanged,
    ToolEnd,
    ToolStart,
    TurnEnd,
)
from agent.base.visible import visible
from agent.base.words import wrapped
from agent.ui.render import summarize_args
from agent.ui.terminal import markdown
from agent.ui.tui_blocks import diff_text, finished, tail
from agent.ui.tui_tools import ToolLines

FPS = 12
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
CODE_THEME = "monokai"


class LiveRenderer(ToolLines):
    """Renders a turn's events; `begin`/`end` bracket a busy period (turn or command)."""

    def __init__(self, console: Any) -> None:
        self.c = console
        self.live: Any = None
        self.ticker: asyncio.Task[None] | None = None
        self.text = ""  # answer text not yet printed
        self.think = ""  # reasoning not yet printed
        self.thinking = False
        self.blocks = 0  # markdown blocks printed in this reply (for spacing)
        self.reasoned = False  # reasoning of this reply was printed
        self.running: dict[str, tuple[str, float]] = {}
        self.since: float | None = None  # waiting for the model since
        self.streaming = False  # the current reply has started to arrive
        self.label = "thinking"
        self.interrupted = False  # the last busy period ended with an interrupted turn
        self.at_prompt: Callable[[Callable[[], None]], None] | None = None  # prints above a prompt
        self.typed: Callable[[], str] = str  # what was typed during the turn, as a status line
        self.held: list[tuple[Any, Any]] | None = None  # printed while a prompt has the screen
        self.tool_lines()

    # -- busy periods --------------------------------------------------------------------
    def begin(self, label: str = "thinking") -> None:
        from rich.live import Live

        self.label, self.since = label, time.monotonic()
        self.interrupted = self.streaming = False
        if self.live is None:
            self.live = Live(
                self,
                console=self.c,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self.live.start()
        if self.ticker is None:
            self.ticker = asyncio.ensure_future(self._tick())

    def end(self) -> None:
        self._flush()
        self.pause()
        self.running.clear()
        self.since = None

    def pause(self) -> None:
        """Stop drawing the live region (a permission prompt takes the screen)."""
        self._flush_text()
        if self.ticker is not None:
            self.ticker.cancel()
            self.ticker = None
        if self.live is not None:
            self.live.stop()
            self.live = None

    def resume(self) -> None:
        interrupted = self.interrupted
        self.begin(self.label)
        self.interrupted = interrupted

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1 / FPS)
            if self.live is not None:
                self.live.refresh()

    # -- the live region -----------------------------------------------------------------
    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.segment import Segment
        from rich.text import Text

        room = max(console.size.height - 4, 3)
        parts: list[Any] = []
        if self.thinking and self.think:
            parts.append(Text(visible(self.think[-options.max_width :]), style="dim"))
        if self.text.strip():
            parts.append(markdown(tail(self.text, room), CODE_THEME))
        status = self._status()
        if status:
            parts.append(Text(status, style="cyan"))
        typed = self.typed()
        if typed:
            parts.append(Text(visible(typed), style="dim"))
        lines: list[list[Any]] = []
        for part in parts:
            lines += console.render_lines(part, options, pad=False)
        for line in lines[-room:]:
            yield from line
            yield Segment.line()

    def _status(self) -> str:
        now = time.monotonic()
        frame = SPINNER[int(now * 10) % len(SPINNER)]
        if self.running:
            items = list(self.running.values())
            first, t0 = items[0]
            more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
            return f"{frame} {first}{more} · {now - t0:.0f}s · esc to interrupt"
        if self.since is not None and not self.streaming:
            return f"{frame} {self.label}… {now - self.since:.0f}s · esc to interrupt"
        return ""

    # -- printing ------------------------------------------------------------------------
    def hold(self) -> None:
        """Keep what is printed (a parallel subagent's progress) off a permission prompt."""
        self.held = []

    def release(self) -> None:
        held, self.held = self.held or [], None
        for objs, kw in held:
            self._print(*objs, **kw)

    def _print(self, *objs: Any, **kw: Any) -> None:
        kw.setdefault("highlight", False)
        if self.held is not None:
            self.held.append((objs, kw))
        elif self.live is None and self.at_prompt is not None:
            self.at_prompt(lambda: self.c.print(*objs, **kw))
        else:
            self.c.print(*objs, **kw)

    def show(self, obj: Any) -> None:
        """A rich renderable (a resumed conversation's parts), above the prompt when it is up."""
        self._print(obj)

    def line(self, text: str, style: str = "") -> None:
        """A line of text (it may quote a tool, a server, a file: made visible)."""
        shown = wrapped(visible(text), self.c.width - 1)  # between words, never inside a URL
        self._print(shown, style=style, markup=False, soft_wrap=True)

    def _markdown(self, block: str) -> None:
        if not block.strip():
            return
        if self.blocks:
            self._print()
        self.blocks += 1
        self._print(markdown(block.strip("\n"), CODE_THEME))

    def _flush_text(self) -> None:
        self._end_thinking()
        if self.text:
            self._markdown(self.text)
            self.text = ""

    def _flush(self) -> None:
        self._flush_text()
        self.blocks, self.reasoned = 0, False

    def _end_thinking(self) -> None:
        if self.thinking:
            if self.think:
                self.line(self.think, "dim")
            self.line("[/thinking]", "dim")
            self.think, self.thinking = "", False

    # -- events --------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.streaming = True
            self._end_thinking()
            self.text += event.text
            cut = finished(self.text) if "\n" in event.text else 0
            if cut:
                block, self.text = self.text[:cut], self.text[cut:]
                self._markdown(block)
        elif isinstance(event, ReasoningDelta):
            self.streaming = self.reasoned = True
            if not self.thinking:
                self.line("[thinking]", "dim")
                self.thinking = True
            self.think += event.text
            done, _, self.think = self.think.rpartition("\n")
            if done:
                self.line(done, "dim")
        elif isinstance(event, AssistantMessage):
            self._flush()
            self.since, self.streaming = time.monotonic(), False
        else:
            self._other(event)

    def _other(self, event: Event) -> None:
        if isinstance(event, ToolStart):
            self._flush()
            self.running[event.id] = (
                f"{visible(event.name, '')} {summarize_args(event.args)}",
                time.monotonic(),
            )
        elif isinstance(event, ToolEnd):
            self.running.pop(event.id, None)
            if not self.running:
                self.since, self.label = time.monotonic(), "thinking"
            self.tool_end(event)
        elif isinstance(event, PermissionDenied):
            self.denied[event.id] = event.reason
        elif isinstance(event, TodoChanged):
            self.todo(event.items)
        elif isinstance(event, ErrorEvent):
            self.line(f"warning: {event.message}", "yellow")  # it says when it is retried
            if event.discard:
                self._restart()
        elif isinstance(event, Notice):
            self.line(f"note: {event.message}", "yellow")
        elif isinstance(event, Compacted):
            self.line(event.text(), "dim")
        elif isinstance(event, TurnEnd):
            self._flush()
            if event.subtype == "error_interrupted":
                self.interrupted = True
                self.line("⎿ interrupted · the conversation is intact", "dim")
            elif event.error:
                self.line(f"error: {event.error}", "red")

    def _restart(self) -> None:
        """The reply is requested again from its start: forget what the live region held of it
        and, when part of it was printed for good, say that the reply starts over."""
        printed = self.blocks > 0 or self.reasoned
        if self.thinking:
            self.think, self.thinking = "", False
            self.line("[/thinking]", "dim")
        self.text, self.blocks, self.reasoned = "", 0, False
        self.since, self.streaming = time.monotonic(), False
        if printed:
            self.line("↻ reply cut off; retrying", "dim")


def show_diff(console: Any) -> Callable[[str], None]:
    """How slash commands (/diff) print a unified diff on this console: coloured."""
    return lambda diff: console.print(diff_text(diff), soft_wrap=True)
