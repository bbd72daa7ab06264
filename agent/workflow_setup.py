"""Session wiring of the todo list and the subagents (called by agent.app.build)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.agent_defs import AgentDef, load_defs
from agent.events import TodoChanged
from agent.subagents import Limits, Subagents
from agent.todo import TodoList, last_saved
from agent.tools import Tool
from agent.tools.task import task_tools

if TYPE_CHECKING:
    from agent.config import Config
    from agent.loop import Agent


def subagent_tools(cfg: Config) -> tuple[dict[str, Tool], dict[str, AgentDef], list[str]]:
    """task and task_result (listing the project's agent definitions), the definitions, and
    warnings about definition files that were skipped."""
    defs, warnings = load_defs(cfg.root)
    return {t.name: t for t in task_tools(defs)}, defs, warnings


def attach(
    agent: Agent,
    layers: tuple[Any, ...],
    cfg: Config,
    *,
    hooks: Any = None,
    defs: dict[str, AgentDef] | None = None,
    resumed: Path | None = None,
    warnings: list[str] | None = None,
) -> None:
    """Give the session its todo list (restored from `resumed`) and its subagent runner."""
    todo = TodoList(lambda items: agent.sink.emit(TodoChanged(items)))
    if resumed is not None:
        from agent.session import load

        saved = last_saved(load(resumed).records)
        if saved:
            todo.load(saved)
    agent.ctx.extra["todo"] = todo
    limits = Limits.from_settings(cfg.settings)
    runner = Subagents(agent, layers, root=cfg.root, hooks=hooks, defs=defs, limits=limits)
    runner.warnings = list(warnings or [])
    agent.ctx.extra["subagents"] = runner


async def stop_background(agent: Agent) -> None:
    """Cancel what runs in the background of a session (subagents, /loop) before it closes."""
    for key in ("loop", "subagents"):
        obj = agent.ctx.extra.get(key)
        close = getattr(obj, "aclose", None)
        if close is not None:
            await close()
