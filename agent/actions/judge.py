"""How the permission layer judges a run_action call (registered for the "action" target): its
`run_action(id)` rules, `requiresConfirm`, and the command as it would run for the caller."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent.actions.registry import ActionError
from agent.actions.schema import SLUG
from agent.base.record import Tool
from agent.permissions.decide import register
from agent.permissions.facts import Facts
from agent.permissions.paths import Workspace
from agent.permissions.rules import RuleSet, action_match


def action_facts(rs: RuleSet, tool: Tool, args: dict[str, Any], cwd: Path | None = None) -> Facts:
    """What the gate needs: matching `run_action(id)` rules, requiresConfirm, the command (as
    it runs for a caller in `cwd`, when the gate passes its workspace)."""
    aid = str(args.get("action_id", ""))
    f = Facts(read_only=False, why="project actions run commands")
    f.suggest = [f"{tool.name}({aid})"] if re.fullmatch(SLUG, aid) else []
    for kind in ("deny", "ask", "allow"):
        rules = rs.for_tool(kind, tool.name)
        hit = next((r for r in rules if r.spec is None or action_match(r, aid)), None)
        setattr(f, kind, hit.text if hit else "")
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    runner = getattr(tool, "runner", None)
    action = runner.exposed.get(aid) if runner else None
    if runner is None or action is None:
        return f
    ws = runner.workspace_of(cwd)
    try:
        run = runner.prepare(aid, args.get("params"), model=True, workspace=ws)
        f.target = f"{aid}: {run.shown(ws)}"
    except ActionError as e:
        f.target = f"{aid} ({e})"
    if action.requires_confirm:
        f.protected = f"action {aid!r} requires confirmation from a person on every run"
        f.suggest = []
    return f


def _judge(rs: RuleSet, tool: Tool, args: dict[str, Any], ws: Workspace) -> Facts:
    return action_facts(rs, tool, args, ws.root)


register("action", _judge)  # the permission layer judges run_action calls through this
