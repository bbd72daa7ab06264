"""The `skill` tool: the model asks for a skill by name and gets its instructions, with the
folder its scripts and reference files are in (used through the normal tools)."""

from __future__ import annotations

import asyncio
import difflib
from typing import Any

from agent.base.args import ArgError, Args, arg
from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.skills.catalog import Catalog, Skill, folder_listing


def render(skill: Skill, body: str, arguments: str = "") -> str:
    """A skill as the model gets it: where it lives, its files, what it may do unasked, the
    instructions (and the user's arguments when run as /name)."""
    lines = [
        f'<skill name="{skill.name}" folder="{skill.folder}">',
        f"This skill's folder is {skill.folder}: paths in the instructions are relative to it. "
        "Read its files with read_file and run its scripts with bash, by their full path.",
    ]
    files = folder_listing(skill)
    if files:
        lines.append("Files: " + ", ".join(files))
    if skill.allowed_tools:
        lines.append(
            "Allowed without asking while this skill is in use: " + ", ".join(skill.allowed_tools)
        )
    lines += ["", body.strip(), "</skill>"]
    if arguments:
        lines += ["", f"Arguments: {arguments}"]
    return "\n".join(lines)


class SkillArgs(Args):
    name: str = arg(doc="The skill's name")


def skill_tool(catalog: Catalog) -> Tool:
    """The tool record; it is offered only when the session has skills."""

    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            name = SkillArgs.parse(args).name.strip()
        except ArgError as e:
            return e.result()
        if not name:
            return error("the argument `name` is required", can_retry=True)
        skill = catalog.use(name)
        if skill is None:
            near = difflib.get_close_matches(name, list(catalog.skills), n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(near)}?" if near else ""
            known = ", ".join(catalog.skills) or "none"
            return error(f"no skill named {name!r} (skills: {known})", can_retry=True, hint=hint)
        try:
            body = await asyncio.to_thread(skill.body)
        except (OSError, ValueError) as e:  # gone, or its front matter broken since the start
            return error(f"cannot read {skill.path}: {e}", can_retry=False)
        return ToolResult(render(skill, body), display=f"skill {skill.name}")

    return Tool(
        name="skill",
        description=(
            "Load a skill's instructions by name (the skills are listed in <skills> in the "
            "first message). Call it before starting a task a skill covers."
        ),
        parameters=SkillArgs.schema(),
        run=run,
        read_only=True,
        aliases=("Skill",),
    )
