"""Subagents (SPEC §4 `task`): child agents with their own conversation, run for the parent.

A child gets a fresh history and system prompt, a subset of the parent's tools, its own turn
limit, and the parent's dispatch layers (audit, hooks, permissions, snapshots), so each of its
calls is checked and recorded like the parent's. Only the `task` call and its result enter the
parent's history; the child's events reach the parent's sink as one-line progress. A child's
usage and cost are added to the parent's totals when it ends. Cancelling the parent's turn
cancels the children it awaits; background children run until they end or the session does.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import fnmatch
import itertools
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.base.events import SubagentProgress, TurnEnd
from agent.base.record import Call, Middleware, Next, ToolContext, ToolResult
from agent.context.memory import MEMORY_HEADER, env_block
from agent.core.after import STOP_HOOK_LIMIT
from agent.core.dispatch import Dispatcher
from agent.core.llm import LLM
from agent.core.loop import Agent
from agent.hooks.hooks import Hooks
from agent.permissions.gate import Gate
from agent.subagents.defs import AgentDef
from agent.subagents.records import Background, Job, Limits, Report, SubagentError
from agent.subagents.sink import ChildSink, short

if TYPE_CHECKING:
    from agent.base.record import Tool

SPAWN_TOOLS = ("task", "task_result")
PROMPT = Path(__file__).parents[1] / "prompts" / "subagent.md"


class Subagents:
    """Starts children for one agent (the session's, or a child below the depth limit)."""

    def __init__(
        self,
        parent: Agent,
        layers: tuple[Middleware, ...],
        *,
        root: Path,
        hooks: Hooks | None = None,
        defs: dict[str, AgentDef] | None = None,
        limits: Limits | None = None,
        depth: int = 0,
        ids: Iterator[int] | None = None,
    ) -> None:
        self.parent, self.layers, self.root, self.hooks = parent, layers, root, hooks
        self.defs = defs or {}
        self.limits = limits or Limits()
        self.depth = depth
        self.ids = ids or itertools.count(1)
        self.background: dict[str, Background] = {}
        self.warnings: list[str] = []  # definition files that were skipped, and why
        self._slots = asyncio.Semaphore(self.limits.max_parallel)

    def job(self, description: str, agent: str | None = None, **kw: Any) -> Job:
        """A Job for the task tool: checks the depth limit and the agent name."""
        if self.depth >= self.limits.max_depth:
            raise SubagentError(
                f"subagents cannot start subagents here (depth limit {self.limits.max_depth})"
            )
        if not description.strip():
            raise SubagentError("a task needs a description of what to do")
        d = None
        if agent:
            d = self.defs.get(agent)
            if d is None:
                names = ", ".join(self.defs) or "none are defined"
                skipped = f"; skipped: {'; '.join(self.warnings)}" if self.warnings else ""
                raise SubagentError(f"no agent named {agent!r} (agents: {names}){skipped}")
        return Job(description.strip(), d, **kw)

    def child_tools(self, job: Job) -> dict[str, Tool]:
        """The parent's tools, narrowed by the definition or settings; no task at the limit."""
        own = job.agent.tools if job.agent is not None else None
        wanted = own if own is not None else self.limits.tools  # () = a definition's no tools
        spawn = self.depth + 1 < self.limits.max_depth
        out = {}
        for name, tool in self.parent.tools.items():
            if name in SPAWN_TOOLS and not spawn:
                continue
            if wanted is None or any(fnmatch.fnmatchcase(name, w) for w in wanted):
                out[name] = tool
        return out

    def system_prompt(self, job: Job) -> str:
        parts = [PROMPT.read_text(encoding="utf-8").strip()]
        if job.agent is not None:
            parts.append(f"# Your role: {job.agent.name}\n{job.agent.prompt.strip()}")
        _, found, memory = self.parent.system_prompt.partition(f"\n\n{MEMORY_HEADER}")
        if found:  # the parent's memory files, read once for the session
            parts.append(MEMORY_HEADER + memory.rstrip())
        return "\n\n".join(parts) + "\n"

    def layers_for(self, cwd: Path) -> tuple[Any, ...]:
        """The dispatch layers with a permission gate for another workspace (a worktree): same
        rules, mode, session answers and prompt lock; paths are judged against `cwd`."""
        return tuple(
            layer.for_workspace(cwd) if isinstance(layer, Gate) else layer for layer in self.layers
        )

    def _sink(self, job: Job, task_id: str, label: str) -> ChildSink:
        return ChildSink(self.parent.sink, task_id, job.agent.name if job.agent else "", label)

    def _label(self, job: Job, task_id: str) -> str:
        return job.label or (f"{task_id} {job.agent.name}" if job.agent else task_id)

    def _child(self, job: Job, task_id: str, sink: ChildSink) -> Agent:

        tools = self.child_tools(job)
        layers = (_tagger(task_id), *(job.layers if job.layers is not None else self.layers))
        # The parent's web and search settings; never its todo list, runner, /loop or plan.
        ctx = replace(
            self.parent.ctx,
            cwd=job.cwd or self.parent.ctx.cwd,
            sink=sink,
            todo=None,
            subagents=None,
            loop=None,
            planning=None,  # only the main conversation hands a plan to the user
        )
        child = Agent(
            llm=self._llm(job),
            tools=tools,
            dispatcher=Dispatcher(tools, layers),
            sink=sink,
            ctx=ctx,
            system_prompt=self.system_prompt(job),
            max_steps=(job.agent.max_steps if job.agent else None) or self.limits.max_steps,
            compaction=self.parent.compaction,
            economy=self.parent.economy.for_child(),
            shelf=self.parent.shelf.child(tools) if self.parent.shelf is not None else None,
        )
        if "task" in tools:
            ctx.subagents = Subagents(
                child,
                layers,
                root=self.root,
                hooks=self.hooks,
                defs=self.defs,
                limits=self.limits,
                depth=self.depth + 1,
                ids=self.ids,
            )
        return child

    def _llm(self, job: Job) -> LLM:
        parent = self.parent.llm
        parent.client()  # one HTTP client for the session: copies share it and never close it
        llm = copy.copy(parent)
        llm.api_seconds = 0.0
        if job.agent is not None and job.agent.model:
            llm.model = job.agent.model
        return llm

    def _first_message(self, job: Job, child: Agent) -> str:

        return f"{env_block(child.ctx.cwd, self.root)}\n\n{job.description}"

    async def run(self, job: Job, task_id: str = "", sink: ChildSink | None = None) -> Report:
        """Run one child to its end; failures are reports, cancellation propagates."""
        task_id = task_id or f"t{next(self.ids)}"
        label = self._label(job, task_id)
        sink = sink or self._sink(job, task_id, label)
        async with self._slots:
            child = self._child(job, task_id, sink)
            sink.progress("started", f"started: {short(job.description)}")
            for note in job.agent.notes if job.agent is not None else ():
                sink.progress("warning", f"warning: {note}")
            try:
                end = await child.run_turn(self._first_message(job, child))
                end = await self._stop_hooks(child, end, task_id, job)
                ok = end.subtype == "success"
                report = Report(
                    task_id, label, ok, end.text, end.subtype, end.num_turns, end.error or ""
                )
            except Exception as e:  # a bug in a child must not sink its parent or siblings
                report = Report(task_id, label, False, "", "error_during_execution", 0, repr(e))
            finally:
                nested = runner_of(child.ctx)
                if nested is not None:  # its own background children end with it
                    await nested.aclose()
                self._roll_up(child)
        report.cost_usd = child.totals.cost_usd
        if report.ok:
            sink.progress("done", f"done · {report.turns} turns · {sink.tool_calls} tool calls")
        else:
            sink.progress("failed", f"failed: {short(report.error or report.subtype, 120)}")
        return report

    async def _stop_hooks(self, child: Agent, end: TurnEnd, task_id: str, job: Job) -> TurnEnd:
        """SubagentStop hooks; one that blocks sends the child back to work (a few times)."""
        if self.hooks is None:
            return end
        blocks = 0
        while True:
            kind = job.agent.name if job.agent else "general"
            out = await self.hooks.subagent_stop(task_id, kind, end.text, blocks > 0)
            if not out.blocked or end.subtype != "success" or blocks >= STOP_HOOK_LIMIT:
                return end
            blocks += 1
            end = await child.run_turn(out.reason or "Continue.")

    def _roll_up(self, child: Agent) -> None:
        t = self.parent.totals
        for f in dataclasses.fields(t):
            setattr(t, f.name, getattr(t, f.name) + getattr(child.totals, f.name))
        self.parent.llm.api_seconds += child.llm.api_seconds

    async def run_many(self, jobs: list[Job]) -> list[Report]:
        """Run children concurrently; reports in the jobs' order."""
        return list(await asyncio.gather(*(self.run(j) for j in jobs)))

    def start(self, job: Job) -> str:
        """Start a child in the background; returns its id at once."""
        task_id = f"t{next(self.ids)}"
        label = self._label(job, task_id)
        sink = self._sink(job, task_id, label)
        task = asyncio.ensure_future(self.run(job, task_id, sink))
        self.background[task_id] = Background(job, task, label, time.monotonic(), sink)
        task.add_done_callback(lambda t: self._announce(task_id, t))
        return task_id

    def _announce(self, task_id: str, task: asyncio.Task[Report]) -> None:
        bg = self.background[task_id]
        if task.cancelled() or bg.sink is None:
            return
        exc = task.exception()
        what = "failed" if exc or not task.result().ok else "finished"
        bg.sink.progress(
            "background_done",
            f"background task {task_id} {what} — its report is ready (task_result {task_id})",
        )

    def status(self, task_id: str) -> Background:
        bg = self.background.get(task_id)
        if bg is None:
            known = ", ".join(self.background) or "none"
            raise SubagentError(f"no background task {task_id!r} (background tasks: {known})")
        return bg

    async def aclose(self) -> None:
        """Cancel background children that are still running (the session ends)."""
        running = [(i, b) for i, b in self.background.items() if not b.task.done()]
        for _, b in running:
            b.task.cancel()
        for task_id, b in running:
            try:
                await b.task
            except asyncio.CancelledError:
                self.parent.sink.emit(_cancelled(task_id, b.label))
            except Exception:  # already reported as a failed run
                pass


def _tagger(task_id: str) -> Middleware:
    """A dispatch layer marking a child's calls, so the audit log says who made them."""

    async def tag(call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        if call.trigger == "model":  # the parent model asked for it, through this subagent
            call.trigger = f"subagent {task_id}"
        return await nxt(call, ctx)

    return tag


def _cancelled(task_id: str, label: str) -> SubagentProgress:
    return SubagentProgress(
        f"[{label}] background task cancelled (the session ended)", task_id, "", "failed"
    )


def runner_of(ctx: ToolContext) -> Subagents | None:
    """The subagent runner a session (or a child that may spawn its own) keeps on its context."""
    return ctx.subagents if isinstance(ctx.subagents, Subagents) else None
