"""/skills: the session's skills (each also runs as `/skill-name`: agent.commands.skill_run)."""

from __future__ import annotations

from agent.commands.command import Ctx
from agent.commands.registry import command


@command("skills")
async def skills_command(ctx: Ctx, args: str) -> None:
    """List the skills: where each comes from, what it is for, whether it was used."""
    catalog = ctx.run.skills
    if not catalog.skills:
        ctx.say(
            "No skills. Add one as .agent/skills/NAME/SKILL.md (project) or "
            "~/.agent/skills/NAME/SKILL.md (user); Claude Code's .claude/skills/ are read too."
        )
    for skill in catalog.skills.values():
        mark = "  (used)" if skill.name in catalog.used else ""
        ctx.say(f"/{skill.name}{mark}  [{skill.source}] {skill.path}")
        ctx.say(f"    {skill.description}", "dim")
    if catalog.untrusted:
        ctx.say(f"{catalog.untrusted} project skill(s) not loaded: project not trusted", "yellow")
    for warning in catalog.warnings:
        ctx.say(f"skipped: {warning}", "yellow")
