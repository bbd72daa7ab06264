"""One editor session: the Run behind it, its update sink, its slash commands, the prompt
running now."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from agent.app import Run
from agent.base.events import TurnEnd
from agent.commands.registry import Command
from agent.editor.updates import EditorSink


@dataclass
class Session:
    run: Run
    sink: EditorSink
    commands: dict[str, Command] = field(default_factory=dict)
    task: asyncio.Task[TurnEnd | None] | None = None
    cancelled: bool = False
    announced: tuple[str, ...] = ()  # the commands the editor was last told of
