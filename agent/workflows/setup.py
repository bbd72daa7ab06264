"""Session wiring of the todo list and the subagents (called by agent.app.build)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.actions.tool import NAME as ACTION_TOOL
from agent.base.events import TodoChanged
from agent.base.record import Tool
from agent.hooks.hooks import Hooks
from agent.session.store import load
from agent.subagents.defs import AgentDef, from_json, load_defs
from agent.subagents.records import Limits
from agent.subagents.runner import Subagents
from agent.subagents.tool import task_tools
from agent.tools.builtin import builtin_tools
from agent.tools.tasks.todo_list import TodoList, last_saved

if TYPE_CHECKING:
    from agent.config.load import Config
    from agent.core.loop import Agent


def subagent_tools(cfg: Config) -> tuple[dict[str, Tool], dict[str, AgentDef], list[str]]:
    """task and task_result (listing the agent definitions: files', and --agents'), the
    definitions, and warnings about definitions that were skipped or cut."""
    tools = [*builtin_tools(), *task_tools({})]
    known = {t.name: t.aliases for t in tools} | {ACTION_TOOL: ()}
    defs, warnings = load_defs(cfg.root, known, trusted=cfg.trust, plugins=cfg.plugins.found)
    for name, raw in cfg.claude.agents.items():  # --agents: over the files
        got = from_json(name, raw, known, "--agents")
        if isinstance(got, str):
            warnings.append(got)
            continue
        defs[name] = got
        warnings += got.notes
    defs = dict(sorted(defs.items()))
    return {t.name: t for t in task_tools(defs)}, defs, warnings


def attach(
    agent: Agent,
    layers: tuple[Any, ...],
    cfg: Config,
    *,
    hooks: Hooks | None = None,
    defs: dict[str, AgentDef] | None = None,
    resumed: Path | None = None,
    warnings: list[str] | None = None,
) -> None:
    """Give the session its todo list (restored from `resumed`) and its subagent runner."""
    todo = TodoList(lambda items: agent.sink.emit(TodoChanged(items)))
    if resumed is not None:
        saved = last_saved(load(resumed).records)
        if saved:
            todo.load(saved)
    agent.ctx.todo = todo
    limits = Limits.from_settings(cfg.options.subagents)
    runner = Subagents(agent, layers, root=cfg.root, hooks=hooks, defs=defs, limits=limits)
    runner.warnings = list(warnings or [])
    agent.ctx.subagents = runner


async def stop_background(agent: Agent) -> None:
    """Cancel what runs in the background of a session (subagents, /loop) before it closes."""
    for work in (agent.ctx.loop, agent.ctx.subagents):
        if work is not None:
            await work.aclose()
