"""`/loop <interval> <prompt>`: rerun a prompt every interval until `/loop` stops it.

The prompt runs at once and then every interval. Runs never overlap: the next one starts only
after the previous has ended (a slow run delays the schedule instead of piling up), and the
agent runs one turn at a time, so a run waits for the user's turn and the other way round.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable

from agent.base.record import ToolContext

UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
_INTERVAL = re.compile(r"(\d+(?:\.\d+)?)\s*(s|sec|secs|m|min|mins|h|hr|hrs)?", re.I)
MIN_SECONDS = 1.0


def parse_interval(text: str) -> float:
    """`30s`, `5m`, `1h` → seconds; a bare number means minutes. ValueError when invalid."""
    m = _INTERVAL.fullmatch(text.strip())
    if not m:
        raise ValueError(f"not an interval: {text!r} (use e.g. 30s, 5m, 1h; a number = minutes)")
    unit = (m.group(2) or "m")[0].lower()
    seconds = float(m.group(1)) * UNITS[unit]
    if seconds < MIN_SECONDS:
        raise ValueError(f"the interval must be at least {MIN_SECONDS:g} second")
    return seconds


def parse_args(args: str) -> tuple[float, str] | None:
    """`/loop` arguments: None = stop; else (seconds, prompt). ValueError when incomplete."""
    words = args.strip().split(maxsplit=1)
    if not words:
        return None
    seconds = parse_interval(words[0])
    if len(words) < 2 or not words[1].strip():
        raise ValueError("usage: /loop <interval> <prompt>  (or /loop alone to stop)")
    return seconds, words[1].strip()


def describe(seconds: float) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


class PromptLoop:
    """Runs `turn(prompt)` now and every `interval` seconds, never two at once."""

    def __init__(
        self,
        interval: float,
        prompt: str,
        turn: Callable[[str], Awaitable[object]],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.interval, self.prompt, self.turn, self.on_error = interval, prompt, turn, on_error
        self.runs = 0
        self.task: asyncio.Task[None] | None = None

    def start(self) -> PromptLoop:
        self.task = asyncio.ensure_future(self._run())
        return self

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def _run(self) -> None:
        due = time.monotonic()
        while True:
            await asyncio.sleep(max(due - time.monotonic(), 0))
            self.runs += 1
            try:
                await self.turn(self.prompt)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # one failed run does not stop the loop
                if self.on_error is not None:
                    self.on_error(e)
            due = max(due + self.interval, time.monotonic())  # late: no burst of catch-up runs

    async def aclose(self) -> None:
        """Stop: cancel the wait or the running turn (its history stays valid)."""
        if self.task is None:
            return
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def loop_of(ctx: ToolContext) -> PromptLoop | None:
    """The /loop a session keeps on its context, if one was started."""
    return ctx.loop if isinstance(ctx.loop, PromptLoop) else None
