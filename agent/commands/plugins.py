"""/plugins: the Claude Code plugins of the session (agent.config.plugins) and what was skipped."""

from __future__ import annotations

from pathlib import Path

from agent.base.words import plural
from agent.commands.command import Ctx
from agent.commands.registry import command
from agent.config.plugins import Plugin


def _count(folders: tuple[Path, ...], pattern: str) -> int:
    return sum(len(list(f.glob(pattern))) if f.is_dir() else int(f.is_file()) for f in folders)


def parts(plugin: Plugin) -> str:
    """How many of each part the plugin brings, in words."""
    hooks = sum(len(v) for v in plugin.hooks.values() if isinstance(v, list))
    counts = (
        (_count(plugin.commands, "**/*.md"), "command"),
        (_count(plugin.agents, "*.md"), "agent"),
        (_count(plugin.skills, "*/SKILL.md"), "skill"),
        (hooks, "hook"),
        (len(plugin.servers), "MCP server"),
    )
    return ", ".join(plural(n, word) for n, word in counts)


@command("plugins")
async def plugins_command(ctx: Ctx, args: str) -> None:
    """List the plugins: version, scope, folder, what each brings, and what was skipped."""
    found = ctx.cfg.plugins
    if not found.found:
        ctx.say(
            "No plugins. A plugin is a folder with .claude-plugin/plugin.json, under "
            '~/.claude/plugins/ or ~/.agent/plugins/, or listed in settings\' "plugins".'
        )
    for p in found.found:
        version = f" {p.version}" if p.version else ""
        ctx.say(f"{p.name}{version}  [{p.scope}] {p.root}")
        ctx.say(f"    {parts(p)}", "dim")
        if p.description:
            ctx.say(f"    {p.description}", "dim")
    for why in found.skipped:
        ctx.say(f"skipped: {why}", "yellow")
