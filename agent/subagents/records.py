"""The records of agent.subagents: limits from settings, jobs, reports, background runs."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.subagents.defs import AgentDef
from agent.subagents.sink import ChildSink


class SubagentError(Exception):
    """A task that cannot be started (unknown agent, depth limit); the message says why."""


def _int(value: Any, default: int, low: int = 0) -> int:
    try:
        return max(int(value), low)
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class Limits:
    """Settings key `subagents`: {"maxDepth": 1, "maxTurns": 30, "maxParallel": 4, "tools": […]}."""

    max_depth: int = 1
    max_steps: int = 30  # maxTurns: model requests in one task
    max_parallel: int = 4
    tools: tuple[str, ...] | None = None  # names or fnmatch patterns; None = all but task

    @classmethod
    def from_settings(cls, s: Mapping[str, Any]) -> Limits:
        """From the `subagents` settings object."""
        tools, d = s.get("tools"), cls()
        return cls(
            _int(s.get("maxDepth"), d.max_depth),
            _int(s.get("maxTurns"), d.max_steps, 1),
            _int(s.get("maxParallel"), d.max_parallel, 1),
            tuple(str(t) for t in tools) if isinstance(tools, list) else None,
        )


@dataclass
class Job:
    """One subagent run: the task, an optional definition, and where it works."""

    description: str
    agent: AgentDef | None = None
    cwd: Path | None = None  # default: the parent's
    layers: tuple[Any, ...] | None = None  # dispatch layers for another workspace
    label: str = ""


@dataclass
class Report:
    task_id: str
    label: str
    ok: bool
    text: str
    subtype: str = "success"
    turns: int = 0
    error: str = ""
    cost_usd: float = 0.0


@dataclass
class Background:
    job: Job
    task: asyncio.Task[Report]
    label: str
    started: float
    sink: ChildSink | None = None
