"""MCP prompts as slash commands: `/mcp__server__prompt arg1 key=value`.

A server's prompts arrive whenever it connects (the REPL does not wait for it), so they are a
live source of the registry (`registry.LIVE`): /help, completion and dispatch ask for them at
the moment they look, through the session's MCP state (`ctx.run.mcp`). Running one checks its
arguments (agent.mcp.prompts), gets the prompt from its server (restarting it once if it died)
and sends the prompt's messages as the user's turn.
"""

from __future__ import annotations

from agent.commands.command import Command, Ctx, Handler
from agent.commands.registry import LIVE
from agent.commands.user import split_args
from agent.mcp.catalog import PromptInfo
from agent.mcp.prompts import arguments, as_turn, help_text, usage
from agent.mcp.results import Failed, reason


def prompt_commands(ctx: Ctx) -> dict[str, Command]:
    """The commands of the prompts the session's servers list now."""
    mcp = getattr(ctx.run, "mcp", None)
    if mcp is None:
        return {}
    return {
        name: Command(name, help_text(p, server), _runner(name, server, p), usage(p),
                      source=f"mcp: {server}")
        for name, server, p in mcp.prompts()
    }  # fmt: skip


class PromptError(Exception):
    """A prompt command that did not run: misused (`usage`: a wrong or missing argument) or
    refused by its server."""

    def __init__(self, message: str, usage: bool) -> None:
        super().__init__(message)
        self.usage = usage


def find_prompt(ctx: Ctx, name: str) -> tuple[str, PromptInfo] | None:
    """(server, prompt) of the command `/name` among the prompts listed now."""
    mcp = getattr(ctx.run, "mcp", None)
    if mcp is None:
        return None
    return next(((server, p) for n, server, p in mcp.prompts() if n == name), None)


async def send_prompt(ctx: Ctx, name: str, server: str, prompt: PromptInfo, args: str) -> None:
    """Get the prompt from its server and send it as the user's turn; PromptError when not."""
    try:
        values = arguments(prompt, name, split_args(args))
    except ValueError as e:
        raise PromptError(str(e), usage=True) from None
    mcp = ctx.run.mcp
    assert mcp is not None  # the command exists only with MCP servers
    try:
        result = await mcp.manager.get_prompt(server, prompt.name, values)
    except Failed as e:
        raise PromptError(f"/{name}: {reason(e.result)}", usage=False) from None
    text = as_turn(result)
    if not text.strip():
        raise PromptError(f"/{name}: the server returned an empty prompt; nothing sent", False)
    await ctx.turn(text)


def _runner(name: str, server: str, prompt: PromptInfo) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:
        try:
            await send_prompt(ctx, name, server, prompt, args)
        except PromptError as e:
            ctx.say(str(e), "yellow")

    return run


LIVE.append(prompt_commands)
