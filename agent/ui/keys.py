"""Keys: the prompt's bindings and toolbar, and the interrupt watcher used while a turn runs.

At the prompt: Enter sends, Alt-Enter / Ctrl-J (or a trailing `\\`) insert a new line,
Shift-Tab cycles the permission mode, Ctrl-C clears the line (on an empty line it asks to
exit), Ctrl-D exits, Esc Esc clears the line (on an empty one: the rewind picker), Ctrl-O shows
the last command's whole output.
While a turn runs prompt_toolkit is not reading the terminal: `Interrupts` puts it in
no-echo cbreak mode, cancels the turn on Esc or Ctrl-C and keeps anything else typed
(typeahead.TypeAhead) for after the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.base.visible import visible
from agent.config.modes import PermissionMode
from agent.ui.pastes import Pastes
from agent.ui.pastes import history as paste_history
from agent.ui.typeahead import TypeAhead

if TYPE_CHECKING:  # annotations only: the loop loads after the prompt is drawn
    from agent.core.loop import Agent

PROMPT = "> "
REWIND = "\x00rewind\x00"  # what the prompt returns for Esc Esc on an empty line
CYCLE: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "plan",
)  # the modes Shift+Tab steps through


class PromptHost(Protocol):
    """What the prompt needs from the REPL."""

    def toolbar(self) -> Any: ...
    def cycle_mode(self) -> None: ...
    def expand(self) -> None: ...

    @property
    def pastes(self) -> Pastes: ...


def next_mode(mode: PermissionMode, start: PermissionMode) -> PermissionMode:
    """Shift-Tab: default → acceptEdits → plan → (the start mode, when it is another) → …"""
    order = list(CYCLE) + ([start] if start not in CYCLE else [])
    return order[(order.index(mode) + 1) % len(order)] if mode in order else "default"


def toolbar_text(
    model: str,
    mode: str,
    pct: float,
    cost: float | None,
    cache: float,
    sandbox: str = "",
    width: int = 0,
) -> str:
    """The bottom line: model · mode · sandbox · context used of the compaction threshold ·
    cost (`$—` while a request's price is unknown) · cache. In a terminal narrower than that
    (`width`), the least needed parts go first: the Shift-Tab hint, cache, sandbox, then the
    model's name is shortened."""
    money = "$—" if cost is None else f"${cost:.4f}"
    name = visible(model, "")
    parts = {
        "mode": f"⏵ {mode} (shift-tab)",
        "sandbox": f"sandbox {sandbox}" if sandbox else "",
        "context": f"context {pct:.0%}",
        "money": money,
        "cache": f"cache {cache:.0%}",
    }

    def line() -> str:
        return " " + " · ".join(p for p in (name, *parts.values()) if p) + " "

    for drop in ("hint", "cache", "sandbox"):
        if not width or len(line()) <= width:
            break
        if drop == "hint":
            parts["mode"] = f"⏵ {mode}"
        else:
            parts[drop] = ""
    over = len(line()) - width if width else 0
    if over > 0 and len(name) > 8:
        name = name[: max(len(name) - over - 1, 7)] + "…"
    return line()


def stats_of(agent: Agent) -> tuple[float, float | None, float]:
    """(context used / compaction threshold, session cost, cache-hit rate) for the toolbar."""
    used = agent.meter.now(agent.messages, agent.schemas)
    p = agent.llm.cfg.provider
    limit = agent.compaction.trigger if agent.compaction else p.context_limit
    t = agent.totals
    return used / max(limit, 1), t.cost, t.cache_hit_ratio


def bindings(host: PromptHost) -> Any:
    from prompt_toolkit.filters import is_searching
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()
    editing = ~is_searching  # while Ctrl-R searches, Enter and Ctrl-C belong to the search

    @kb.add("enter", filter=editing)
    def _send(event: Any) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state and state.current_completion and not buf.text.startswith("/"):
            buf.complete_state = None  # Enter takes an @file completion; a second Enter sends
            return
        if buf.document.text_before_cursor.endswith("\\") and buf.document.is_cursor_at_the_end:
            buf.delete_before_cursor(1)  # `\` + Enter: a new line, as in a shell
            buf.insert_text("\n")
            return
        word = buf.text.startswith("/") and not any(c.isspace() for c in buf.text)
        if word and state and state.completions and state.current_completion is None:
            buf.apply_completion(state.completions[0])  # `/he` Enter runs /help
        buf.validate_and_handle()

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("s-tab")
    def _mode(event: Any) -> None:
        host.cycle_mode()
        event.app.invalidate()

    @kb.add("c-c", filter=editing)
    def _clear(event: Any) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    return more_bindings(kb, host, editing)


def more_bindings(kb: Any, host: PromptHost, editing: Any) -> Any:
    """Esc Esc: clear a typed line, or on an empty one the rewind picker; Ctrl-O: the last
    command's whole output; a long paste: a placeholder in the line (agent.ui.pastes)."""
    from prompt_toolkit.keys import Keys

    @kb.add("escape", "escape", filter=editing)
    def _rewind(event: Any) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(result=REWIND)

    @kb.add("c-o")
    def _expand(event: Any) -> None:
        host.expand()

    @kb.add(Keys.BracketedPaste)
    def _paste(event: Any) -> None:
        event.current_buffer.insert_text(host.pastes.add(event.data))

    return kb


def make_session(host: PromptHost, completer: Any, history: Path) -> Any:
    """The PromptSession: persistent history, completion menu, bottom toolbar, our keys."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.styles import Style

    history.parent.mkdir(parents=True, exist_ok=True)
    return PromptSession(
        history=paste_history(history, host.pastes),
        completer=completer,
        complete_while_typing=True,
        key_bindings=bindings(host),
        multiline=True,
        prompt_continuation=lambda width, line, wrap: " " * width,
        bottom_toolbar=host.toolbar,
        reserve_space_for_menu=6,
        style=Style.from_dict({"bottom-toolbar": "noreverse bg:#262626 #a8a8a8"}),
    )


class Interrupts:
    """While busy: no echo, no line editing, no SIGINT from the tty; Esc or Ctrl-C → callback."""

    def __init__(self, on_interrupt: Callable[[], None]) -> None:
        self.on_interrupt = on_interrupt
        self.typed = TypeAhead()
        self.last_key = 0.0  # time.monotonic() of the last key typed during a turn
        self.fd = -1
        self.saved: list[Any] | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, self.on_interrupt)  # kill -INT, or no tty
        stdin = sys.stdin
        if stdin is None or not stdin.isatty():
            return
        self.fd = stdin.fileno()
        try:
            self.saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
            loop.add_reader(self.fd, self._read)
        except (termios.error, OSError):
            self.saved = None

    def stop(self) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGINT)
        if self.saved is None:
            return
        loop.remove_reader(self.fd)
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)
        self.saved = None

    def _read(self) -> None:
        try:
            data = os.read(self.fd, 1024)
        except OSError:
            return
        self.last_key = time.monotonic()
        # A lone ESC is the Escape key; arrows and Alt-keys arrive as longer sequences.
        if b"\x03" in data or data == b"\x1b":
            self.on_interrupt()
        else:
            self.typed.feed(data)
