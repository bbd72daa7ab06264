"""The session behind the REPL's prompt: opened in a thread once the prompt is drawn (rich, the
Run with its client, tools, gate and hooks), the slash commands' context, and closing it."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from agent.app import Run, build
from agent.commands.registry import LOAD_PROBLEMS, Ctx, all_commands
from agent.ui import line_repl
from agent.ui.ask import TerminalAsker
from agent.ui.terminal import safe_console
from agent.ui.tui import LiveRenderer, show_diff

if TYPE_CHECKING:
    from agent.ui.repl_host import SessionHost


@dataclass
class Opened:
    """The REPL's session, built in a thread: its Run, the console and renderer it draws on."""

    run: Run
    console: Console
    renderer: LiveRenderer

    async def ready(self, repl: SessionHost) -> None:
        await ready(repl, self.run, self.console, self.renderer)

    async def close(self) -> None:
        await close_session(self.run)


def open_session(repl: SessionHost, typed: Callable[[], str]) -> Opened:
    """The Run of this REPL, with the console and renderer it draws on."""
    importlib.import_module("rich.markdown")  # the first answer must not wait for it
    console: Console = safe_console(highlight=False)  # no control character of the text
    renderer = LiveRenderer(console)
    renderer.typed = typed
    run = build(repl.cfg, renderer, TerminalAsker(repl), resume_id=repl.resume_id)
    return Opened(run, console, renderer)


async def command_context(repl: SessionHost, run: Run, console: Console, out: LiveRenderer) -> Ctx:
    """The slash commands (loaded in a thread; problems said) and what they may use."""
    repl.commands.update(
        await asyncio.to_thread(
            all_commands, repl.cfg.root, trusted=repl.cfg.trust, skills=run.skills
        )
    )
    for problem in LOAD_PROBLEMS:
        out.line(f"warning: {problem}", "yellow")
    if repl.resume_id:
        repl.run = run  # what replay reads the session's words from
        repl.replay(run.agent.messages[1:])
        out.line(line_repl.resumed_note(run), "dim")
    return Ctx(
        run, console, repl.turn, out, repl.commands, show_diff=show_diff(console), front=repl
    )


async def ready(repl: SessionHost, run: Run, console: Console, out: LiveRenderer) -> None:
    """The session is built: commands loaded, SessionStart fired, the prompt brought up to date."""
    repl.at_prompt(repl.prompting)  # from now on the renderer prints above the prompt
    repl.ctx = await command_context(repl, run, console, out)
    run.set_mode(repl.mode)  # no Run yet: the mode Shift-Tab may have chosen already
    repl.run = run
    await run.start()
    repl.spawn(asyncio.to_thread(importlib.import_module, "openai"))
    if run.mcp is not None:
        repl.spawn(_servers_settled(repl, run))
    repl.spawn(repl.refresh_paths())
    repl.refresh_stats()
    if repl.prompting:
        buf = repl.session.default_buffer
        if buf.text.startswith("/"):  # typed before the commands were loaded
            buf.start_completion(select_first=False)
        repl.session.app.invalidate()


async def _servers_settled(repl: SessionHost, run: Run) -> None:
    """Once the MCP servers started (or failed), say what failed above the prompt — unless a
    turn is running, whose own start says it."""
    assert run.mcp is not None
    await asyncio.to_thread(run.mcp.manager.wait, None)
    if not repl.busy_now():
        run.mcp.announce()


async def close_session(run: Run) -> None:
    """End the session (agent.app.Run.end: background work, servers, client, hooks)."""
    await run.end()
