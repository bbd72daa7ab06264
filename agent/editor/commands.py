"""Slash commands in an editor: the ones that make sense in a panel, announced to it (again
when an MCP server's prompts arrive), and run with their printed output sent as the answer."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from acp import update_agent_message_text
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)
from rich.console import Console

from agent.base.events import TurnEnd
from agent.commands.registry import Command, Ctx, dispatch, live, parse, resolve
from agent.editor.session import Session

HIDDEN = {"exit", "quit"}  # commands that make no sense in an editor's panel


def _ctx(session: Session, turn: Any, out: io.StringIO) -> Ctx:
    console = Console(file=out, highlight=False, color_system=None, soft_wrap=True)
    return Ctx(session.run, console, turn, session.sink, session.commands)


def _entry(c: Command) -> AvailableCommand:
    hint = AvailableCommandInput(root=UnstructuredCommandInput(hint=c.usage)) if c.usage else None
    return AvailableCommand(name=c.name, description=c.help.strip().split("\n")[0][:200] or c.name,
                            input=hint)  # fmt: skip


def announce(session: Session, later: bool = False) -> None:
    """Tell the editor the commands, when they changed since it was last told; `later`: just
    after the response that gives it the session id."""
    commands = live(_ctx(session, session.run.turn, io.StringIO()))
    shown = [c for c in commands.values() if not c.repl_only and c.name not in HIDDEN]
    names = tuple(sorted(c.name for c in shown))
    if names == session.announced:
        return
    session.announced = names
    update = AvailableCommandsUpdate(
        session_update="available_commands_update", available_commands=[_entry(c) for c in shown]
    )
    if later:
        asyncio.get_running_loop().call_later(0.05, session.sink.send, update)
    else:
        session.sink.send(update)


async def run_command(session: Session, text: str, images: list[Any]) -> TurnEnd | None:
    """Run a slash command; what it printed goes to the panel; the last turn it ran is the end."""
    ends: list[TurnEnd] = []

    async def turn(prompt: str) -> TurnEnd:
        ends.append(await session.run.turn(prompt, images))
        return ends[-1]

    buffer = io.StringIO()
    ctx = _ctx(session, turn, buffer)
    parsed = parse(text)
    found = resolve(live(ctx), parsed[0]) if parsed else None
    if found is not None and (found.repl_only or found.name in HIDDEN):
        why = f"/{found.name} needs the terminal: run `agent` there, then /{found.name}\n"
        session.sink.send(update_agent_message_text(why))
        return None
    await dispatch(ctx, text)
    printed = buffer.getvalue().strip()
    if printed:
        session.sink.send(update_agent_message_text(f"```\n{printed}\n```\n"))
    return ends[-1] if ends else None
