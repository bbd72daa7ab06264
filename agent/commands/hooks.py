"""/hooks in the REPL: the hooks this session runs, by event (SPEC §6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.commands.registry import Ctx, command
from agent.hooks.hooks import EVENTS

if TYPE_CHECKING:  # annotations only
    from agent.app import Run


def hooks_report(run: Run) -> str:
    """Every configured hook with its matcher and timeout; why project hooks may be missing."""
    specs = run.hooks.specs
    lines = []
    for event in EVENTS:
        for spec in (s for s in specs if s.event == event):
            match = f" [{spec.matcher}]" if spec.matcher not in ("", "*") else ""
            lines.append(f"{event}{match}: {spec.command}  (timeout {spec.timeout:g} s)")
    if not lines:
        lines.append("no hooks configured (.agent/hooks.json, or `hooks` in a settings file)")
    if not run.cfg.trusted:
        lines.append("this project is not trusted: its own hooks are not run")
    return "\n".join(lines)


@command("hooks")
async def hooks_cmd(ctx: Ctx, args: str) -> None:
    """List the hooks this session runs, by event."""
    ctx.say(hooks_report(ctx.run))
