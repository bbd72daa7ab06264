"""A slash command and what it may use (Ctx): the records agent.commands.registry keeps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent.base.words import wrapped

if TYPE_CHECKING:  # annotations only: rich and the assembled session load after the prompt
    from rich.console import Console

    from agent.app import Run
    from agent.base.events import Sink, TurnEnd
    from agent.base.messages import Message
    from agent.config.load import Config
    from agent.core.loop import Agent

Handler = Callable[["Ctx", str], Awaitable[None]]


class Front(Protocol):
    """What an interactive front end (the REPL) lends a command beyond printing."""

    async def choose(self, title: str, rows: list[str], default: int = 0) -> int | None:
        """The row picked in an arrow-key picker; None when cancelled."""

    def put_back(self, text: str) -> None:
        """Put `text` in the next prompt's input, to edit and send again."""

    def clear(self) -> None:
        """Clear the screen."""

    def replay(self, history: list[Message]) -> None:
        """Draw a conversation (a resumed session's) as it was shown when it ran."""


@dataclass(frozen=True)
class Command:
    """One slash command: `/name usage` runs `run(ctx, args)`."""

    name: str
    help: str
    run: Handler
    usage: str = ""  # argument hint shown in /help, e.g. "[focus]"
    source: str = "built-in"  # or the .md file a user command came from
    aliases: tuple[str, ...] = ()  # other names that run it (/reset for /clear)
    repl_only: bool = False  # needs a live session (/resume, /rewind): no one-shot run


@dataclass
class Ctx:
    """What a command may use: the Run, the console, a way to run a turn, the display sink."""

    run: Run
    console: Console
    turn: Callable[[str], Awaitable[TurnEnd]]  # run one user turn through the loop
    display: Sink | None = None  # a Sink that renders streamed text (/btw); None = the agent's sink
    commands: dict[str, Command] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)  # per-session command state
    exit: bool = False  # set by /exit
    # How the front end shows a unified diff (the REPL colours it); None = as plain text.
    show_diff: Callable[[str], None] | None = None
    front: Front | None = None  # pickers, the input line, the screen; None: one-shot, tests

    @property
    def agent(self) -> Agent:
        return self.run.agent

    @property
    def cfg(self) -> Config:
        return self.run.cfg

    def say(self, text: str = "", style: str | None = None) -> None:
        """Print plain text (no markup, no highlighting)."""
        if not getattr(self.console, "soft_wrap", True):  # between words, never inside a URL
            text = wrapped(text, self.console.width - 1)
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def diff(self, text: str) -> None:
        """Show a unified diff the way the front end draws diffs."""
        if self.show_diff is not None:
            self.show_diff(text)
        else:
            self.say(text)
