"""A slash command as a one-shot run, as the REPL would run it: `agent "/review"`,
`agent --output-format json "/fix 12"`, `agent -c "/compact"`.

Your own and the project's commands, /review, /security-review, /simplify, /batch, /init and
the informational ones run; a command that needs a live session (/resume, /rewind, /loop…) is
refused with exit code 2 before anything starts, and so is an unknown `/word` (a leading `//`
sends the text with one slash). An MCP server's prompt (`/mcp__server__prompt`) is looked up
once the servers have connected: an unknown one, or one given wrong arguments, is a usage error
(exit code 2), one its server refuses a failure (exit code 1). What a command prints goes to
stdout in text mode and becomes the `result` of the JSON `result` event when it ran no model
turn.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import IO

from agent.app import Run
from agent.base.events import TurnEnd
from agent.base.visible import visible
from agent.commands.command import Command, Ctx, Handler
from agent.commands.mcp_prompts import PromptError, find_prompt, send_prompt
from agent.commands.registry import (
    LOAD_PROBLEMS,
    all_commands,
    live,
    parse,
    resolve,
    unknown_command,
)
from agent.config.plugins import Plugin
from agent.config.trust import Trust
from agent.ui.process import EXIT_FAIL, EXIT_USAGE
from agent.ui.terminal import safe_console


class CommandFailed(Exception):
    """The command did not run: `code` is the run's exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class FailedEnd(TurnEnd):
    """The end of a run whose command failed, with the exit code it asks for."""

    code: int = EXIT_FAIL


def command_of(
    prompt: str, root: Path, trusted: bool | Trust = False, plugins: tuple[Plugin, ...] = ()
) -> tuple[Command, str] | str | None:
    """(command, its arguments) when the prompt is a slash command that runs here; why not (a
    message) when it cannot; None for a prompt that is not a command."""
    if not prompt.lstrip().startswith("/") or prompt.lstrip().startswith("//"):
        return None
    parsed = parse(prompt)
    if parsed is None:  # a path: `/usr/bin/env is broken`
        return None
    name, args = parsed
    commands = all_commands(root, trusted=trusted, plugins=plugins)
    cmd = resolve(commands, name)
    if cmd is None and name.startswith("mcp__"):  # a prompt: known once its server is up
        return Command(name, "", _prompt(name)), args
    if cmd is None:
        # its file is there but could not be read: say why, not "unknown command"
        file = "/" + name.replace(":", "/") + ".md: not loaded"
        broken = [p for p in LOAD_PROBLEMS if file in p]
        if broken:
            return f"/{name} cannot run: {broken[0]}"
        waiting = [p for p in LOAD_PROBLEMS if p.endswith(("not trusted", "since you trusted it"))]
        why = f"; {waiting[0]} (--trust-project)" if waiting else ""
        return unknown_command(name, commands) + why
    if cmd.repl_only:
        return f"/{cmd.name} needs the interactive REPL: run `agent`, then /{cmd.name}"
    return cmd, args


def _prompt(name: str) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:
        found = find_prompt(ctx, name)
        if found is None:
            raise CommandFailed(unknown_command(name, live(ctx)), EXIT_USAGE)
        try:
            await send_prompt(ctx, name, *found, args)
        except PromptError as e:
            raise CommandFailed(str(e), EXIT_USAGE if e.usage else EXIT_FAIL) from None

    return run


async def run_command(run: Run, found: tuple[Command, str], out: IO[str] | None) -> TurnEnd:
    """Run the command on the session; the last model turn it ran is the run's end, or its
    printed output when it ran none. `out` None: keep the printed output for the result."""
    cmd, args = found
    buffer = io.StringIO()
    file = out or buffer
    console = safe_console(file=file, highlight=False, color_system=None, soft_wrap=True)
    ends: list[TurnEnd] = []

    async def turn(text: str) -> TurnEnd:
        end = await run.turn(text)
        ends.append(end)
        return end

    ctx = Ctx(
        run,
        console,
        turn,
        run.agent.sink,
        all_commands(
            run.cfg.root, trusted=run.cfg.trust, skills=run.skills, plugins=run.cfg.plugins.found
        ),
    )
    await run.start()
    try:
        await cmd.run(ctx, args)
    except CommandFailed as e:
        print(f"agent: {visible(str(e))}", file=sys.stderr)
        printed = buffer.getvalue().rstrip("\n")
        return FailedEnd("error_during_execution", printed, 0, str(e), code=e.code)
    if ends:
        return ends[-1]
    return TurnEnd("success", buffer.getvalue().rstrip("\n"), 0)
