"""Each skill run as `/skill-name args`: its body (with the arguments) sent through the loop,
the skill marked in use (agent.skills)."""

from __future__ import annotations

import asyncio

from agent.commands.command import Command, Ctx, Handler
from agent.commands.user import expand, send
from agent.permissions.grants import Grant
from agent.skills.catalog import Catalog
from agent.skills.tool import render


def skill_commands(catalog: Catalog) -> list[Command]:
    """A command per skill of the catalog (the session's, or found as a session would)."""
    return [
        Command(
            skill.name,
            skill.description,
            _runner(skill.name),
            skill.argument_hint,
            f"skill, {skill.source}: {skill.path}",
        )
        for skill in catalog.skills.values()
    ]


def _runner(name: str) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:
        skill = ctx.run.skills.use(name, grant=False)  # its rules go with its own turn
        if skill is None:
            ctx.say(f"the skill {name!r} is not loaded in this session (/skills lists them)")
            return
        try:
            body = await asyncio.to_thread(skill.body)
        except (OSError, ValueError) as e:
            ctx.say(f"cannot read {skill.path}: {e}", "red")
            return
        filled = expand(body, args)
        if args and filled == f"{body}\n\n{args}":  # no placeholder took them
            text = render(skill, body, args)
        else:
            text = render(skill, filled)
        await send(ctx, text, Grant.of_file(skill.allowed_tools, f"the skill {name}", skill.path))

    return run
