"""The REPL as the prompt, the permission prompt and the key reader see it (PromptHost, AskHost):
the permission mode and Shift-Tab, the toolbar, cancelling the running turn, the terminal handed
to a permission prompt. agent.ui.repl.Repl is this plus the loop and the session behind it."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, Protocol

from agent.config.modes import PermissionMode
from agent.ui import picker
from agent.ui.keys import Interrupts, next_mode, toolbar_text

if TYPE_CHECKING:  # annotations only
    from prompt_toolkit import PromptSession
    from rich.console import Console

    from agent.app import Run
    from agent.base.events import TurnEnd
    from agent.base.messages import Message
    from agent.commands.command import Command, Ctx
    from agent.config.load import Config
    from agent.ui.tui import LiveRenderer


class ReplHost:
    """State the prompt and the asker share with the REPL's loop (set by agent.ui.repl.Repl)."""

    cfg: Config
    start_mode: PermissionMode
    _mode: PermissionMode
    run: Run | None
    console: Console | None
    renderer: LiveRenderer | None
    current: asyncio.Future[Any] | None
    prompting: bool
    stats: tuple[float, float | None, float]
    keys: Interrupts
    session: PromptSession[str]
    draft: str  # the next prompt starts with it

    @property
    def mode(self) -> PermissionMode:
        return self.run.gate.mode if self.run is not None else self._mode

    def cycle_mode(self) -> None:
        self._mode = next_mode(self.mode, self.start_mode)
        if self.run is not None:
            self.run.set_mode(self._mode)

    @property
    def out(self) -> LiveRenderer:
        """The renderer, there once the session is ready (_ready)."""
        assert self.renderer is not None, "drawn on only once the session is ready"
        return self.renderer

    def toolbar(self) -> Any:
        model = self.run.agent.llm.model if self.run is not None else self.cfg.model
        box = self.run.sandbox().shown_mode if self.run is not None else ""
        width = shutil.get_terminal_size((80, 24)).columns - 1  # the last column wraps
        return toolbar_text(model, self.mode, *self.stats, sandbox=box, width=width)

    def busy_now(self) -> bool:
        """A turn or command is running."""
        return self.current is not None and not self.current.done()

    def cancel_turn(self) -> None:
        if self.current is not None and not self.current.done():
            self.current.cancel()

    def keep_typed(self, text: str) -> None:
        if self.prompting:  # asked while idle: it is the prompt's text
            self.session.default_buffer.insert_text(text.replace("\r", "\n"))
        else:
            self.keys.typed.feed(text.encode())

    def last_key(self) -> float:
        return self.keys.last_key

    # -- what commands may use (agent.commands.command.Front) ----------------------------
    async def choose(self, title: str, rows: list[str], default: int = 0) -> int | None:
        async with self.asking():
            try:
                return await picker.pick(title, rows, default)
            except KeyboardInterrupt:  # Ctrl-C in a picker stops the command, as Esc does
                return None

    def prompt_showed(self, diff: str) -> None:
        if self.renderer is not None:
            self.renderer.prompt_showed(diff)

    def expand(self) -> None:
        """Ctrl-O: the last command's whole output, above the prompt."""
        if self.renderer is not None:
            self.renderer.expand()

    def put_back(self, text: str) -> None:
        self.draft = text

    def replay(self, history: list[Message]) -> None:
        # deferred: ~5 ms: only when a session is resumed
        from agent.ui.replay import drawn, turn_words

        assert self.run is not None, "a session is resumed into a running Run"
        for obj in drawn(history, turn_words(self.run.store)):
            self.out.show(obj)

    def clear(self) -> None:
        print("\x1b[H\x1b[2J\x1b[3J", end="", flush=True)  # home, clear, clear scrollback

    @contextlib.asynccontextmanager
    async def asking(self) -> AsyncIterator[None]:
        """The terminal to a permission prompt: from a turn (its spinner and key reader stop)
        or from a background run while the prompt is up (the prompt steps aside)."""
        from prompt_toolkit.application import in_terminal

        busy = self.current is not None and not self.current.done()
        if busy:
            self.out.pause()
            self.keys.stop()
        self.out.hold()
        try:
            if self.prompting:
                async with in_terminal():
                    yield
            else:
                yield
        finally:
            if busy:
                self.keys.start()
            self.out.release()
            if busy:
                self.out.resume()


class SessionHost(Protocol):
    """What opening and readying the session (agent.ui.repl_session) needs from the REPL."""

    cfg: Config
    resume_id: str | None
    commands: dict[str, Command]
    ctx: Ctx | None
    run: Run | None
    prompting: bool
    session: PromptSession[str]
    console: Console | None

    @property
    def mode(self) -> PermissionMode: ...
    async def turn(self, text: str) -> TurnEnd: ...
    def at_prompt(self, on: bool) -> None: ...
    def spawn(self, work: Awaitable[Any]) -> asyncio.Future[Any]: ...
    async def refresh_paths(self) -> None: ...
    def refresh_stats(self) -> None: ...
    def asking(self) -> contextlib.AbstractAsyncContextManager[None]: ...
    def cancel_turn(self) -> None: ...
    def busy_now(self) -> bool: ...
    def keep_typed(self, text: str) -> None: ...
    def last_key(self) -> float: ...
    async def choose(self, title: str, rows: list[str], default: int = 0) -> int | None: ...
    def put_back(self, text: str) -> None: ...
    def clear(self) -> None: ...
    def prompt_showed(self, diff: str) -> None: ...
    def replay(self, history: list[Message]) -> None: ...
