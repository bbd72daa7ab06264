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


def _runner(name: str, server: str, prompt: PromptInfo) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:
        try:
            values = arguments(prompt, name, split_args(args))
        except ValueError as e:
            ctx.say(str(e), "yellow")
            return
        mcp = ctx.run.mcp
        assert mcp is not None  # the command exists only with MCP servers
        try:
            result = await mcp.manager.get_prompt(server, prompt.name, values)
        except Failed as e:
            ctx.say(f"/{name}: {reason(e.result)}", "yellow")
            return
        text = as_turn(result)
        if not text.strip():
            ctx.say(f"/{name}: the server returned an empty prompt; nothing sent", "yellow")
            return
        await ctx.turn(text)

    return run


LIVE.append(prompt_commands)
