"""A slash command as a one-shot run, as the REPL would run it: `agent "/review"`,
`agent --output-format json "/fix 12"`, `agent -c "/compact"`.

Your own and the project's commands, /review, /security-review, /simplify, /batch, /init and
the informational ones run; a command that needs a live session (/resume, /rewind, /loop…) is
refused with exit code 2 before anything starts, and so is an unknown `/word` (a leading `//`
sends the text with one slash). An MCP server's prompt (`/mcp__server__prompt`) is looked up
once the servers have connected. What a command prints goes to stdout in text mode and becomes
the `result` of the JSON `result` event when it ran no model turn.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO

from rich.console import Console

from agent.app import Run
from agent.base.events import TurnEnd
from agent.commands.command import Command, Ctx, Handler
from agent.commands.registry import all_commands, live, parse, resolve, unknown_command


def command_of(prompt: str, root: Path, trusted: bool = False) -> tuple[Command, str] | str | None:
    """(command, its arguments) when the prompt is a slash command that runs here; why not (a
    message) when it cannot; None for a prompt that is not a command."""
    if not prompt.lstrip().startswith("/") or prompt.lstrip().startswith("//"):
        return None
    parsed = parse(prompt)
    if parsed is None:  # a path: `/usr/bin/env is broken`
        return None
    name, args = parsed
    commands = all_commands(root, trusted=trusted)
    cmd = resolve(commands, name)
    if cmd is None and name.startswith("mcp__"):  # a prompt: known once its server is up
        return Command(name, "", _prompt(name)), args
    if cmd is None:
        return unknown_command(name, commands)
    if cmd.repl_only:
        return f"/{cmd.name} needs the interactive REPL: run `agent`, then /{cmd.name}"
    return cmd, args


def _prompt(name: str) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:
        cmd = resolve(live(ctx), name)
        if cmd is None:
            ctx.say(unknown_command(name, live(ctx)))
            return
        await cmd.run(ctx, args)

    return run


async def run_command(run: Run, found: tuple[Command, str], out: IO[str] | None) -> TurnEnd:
    """Run the command on the session; the last model turn it ran is the run's end, or its
    printed output when it ran none. `out` None: keep the printed output for the result."""
    cmd, args = found
    buffer = io.StringIO()
    console = Console(file=out or buffer, highlight=False, color_system=None, soft_wrap=True)
    ends: list[TurnEnd] = []

    async def turn(text: str) -> TurnEnd:
        end = await run.turn(text)
        ends.append(end)
        return end

    ctx = Ctx(
        run, console, turn, run.agent.sink, all_commands(run.cfg.root, trusted=run.cfg.trusted)
    )
    await run.start()
    await cmd.run(ctx, args)
    if ends:
        return ends[-1]
    return TurnEnd("success", buffer.getvalue().rstrip("\n"), 0)
