"""The `task` and `task_result` tools: run subagents (agent.subagents) for the model.

They are built per session, since the task tool's description lists the project's agent
definitions (sorted by name, so the request prefix stays byte-stable). Both are marked
read-only: they change nothing themselves, and every call a subagent makes passes the
permission gate on its own.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from agent.base.args import ArgError, Args, arg
from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.subagents.records import Report, SubagentError
from agent.subagents.runner import Subagents, runner_of

TASK_DESCRIPTION = (
    "Run a subagent: a separate model conversation with a fresh context and your tools (except "
    "task) that does one self-contained task and returns a concise report. Only the report "
    "enters your context, so use it for broad searches, investigations and independent "
    "sub-tasks. The subagent cannot see this conversation: put everything it needs in the "
    "description. parallel: several independent tasks at once (reports in the same order). "
    "background: true returns a task id at once; get the report later with task_result."
)
RESULT_DESCRIPTION = (
    "Get the report of a background task by its id, or 'still running'. wait: true waits "
    "until it finishes."
)


class TaskArgs(Args):
    description: str = arg("", "the task and what to report")
    parallel: tuple[str, ...] | None = arg(
        None, "independent task descriptions to run concurrently"
    )
    background: bool = False
    agent: str | None = arg(None, "a specialised agent", given=True)  # when there are agents


class ResultArgs(Args):
    id: str
    wait: bool = False


def task_tools(defs: dict[str, Any]) -> tuple[Tool, Tool]:
    """The task tool (listing `defs` in their sorted order) and task_result."""
    names, text = sorted(defs), TASK_DESCRIPTION
    params = TaskArgs.schema(agent=names) if names else TaskArgs.schema()
    if names:
        listing = "\n".join(f"- {n}: {' '.join(defs[n].description.split())}" for n in names)
        text += f"\nAgents for the agent parameter:\n{listing}"
    result_params = ResultArgs.schema()
    return (
        Tool("task", text, params, _task, read_only=True, aliases=("Task",)),
        Tool(  # rare: loaded once task is called (agent.base.shelf)
            "task_result",
            RESULT_DESCRIPTION,
            result_params,
            _result,
            read_only=True,
            serves="task",
            rare=True,
        ),
    )


def _runner(ctx: ToolContext) -> Subagents | None:
    return runner_of(ctx)


async def _task(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    runner = _runner(ctx)
    if runner is None:
        return error("subagents are not available here (the depth limit)", can_retry=False)
    try:
        a = TaskArgs.parse(args)
    except ArgError as e:
        return e.result()
    descriptions = list(a.parallel or ())
    if a.description:
        descriptions.insert(0, a.description)
    if not descriptions:
        return error("task needs a description (or a parallel list)", can_retry=True)
    try:
        jobs = [runner.job(d, a.agent) for d in descriptions]
    except SubagentError as e:
        return error(str(e), can_retry=False)
    if a.background:
        ids = [runner.start(j) for j in jobs]
        listed = ", ".join(ids)
        return ToolResult(
            f"Started background task(s) {listed}. You will not see their progress; get each "
            "report with task_result (wait: true blocks until it is done).",
            display=f"background {listed}",
        )
    if a.parallel is None and len(jobs) == 1:
        return single(await runner.run(jobs[0]))
    return several(await runner.run_many(jobs))


def single(report: Report) -> ToolResult:
    """One report as the tool result; a failed child is an error with what it had so far."""
    info = f"{report.label} · {report.turns} turns"
    if report.ok:
        return ToolResult(report.text or "(the subagent gave no report)", display=info)
    what = report.error or report.subtype
    partial = f"\nIts last message:\n{report.text}" if report.text.strip() else ""
    return error(
        f"subagent {report.task_id} did not finish ({report.subtype}): {what}{partial}",
        can_retry=report.subtype != "error_max_turns",
        hint="narrow the task or do it yourself",
    )


def several(reports: list[Any]) -> ToolResult:
    """Reports in order, each marked done or failed; an error only when all failed."""
    parts = []
    for n, r in enumerate(reports, 1):
        if r.ok:
            parts.append(f"## {n}. task {r.task_id}: done\n{r.text or '(no report)'}")
        else:
            body = f"{r.error or r.subtype}" + (f"\nLast message:\n{r.text}" if r.text else "")
            parts.append(f"## {n}. task {r.task_id}: FAILED ({r.subtype})\n{body}")
    ok = sum(r.ok for r in reports)
    failed = len(reports) - ok
    display = f"{ok}/{len(reports)} subagents done" + (f", {failed} failed" if failed else "")
    return ToolResult("\n\n".join(parts), is_error=ok == 0, display=display)


async def _result(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    runner = _runner(ctx)
    if runner is None:
        return error("no background tasks in this context", can_retry=False)
    try:
        a = ResultArgs.parse(args)
        bg = runner.status(a.id)
    except ArgError as e:
        return e.result()
    except SubagentError as e:
        return error(str(e), can_retry=False)
    if not bg.task.done() and a.wait:
        await asyncio.shield(bg.task)  # a cancelled wait must not cancel the task itself
    if not bg.task.done():
        secs = int(time.monotonic() - bg.started)
        calls = bg.sink.tool_calls if bg.sink else 0
        return ToolResult(
            f"Task {a.id} is still running ({secs}s, {calls} tool calls so far).",
            display="still running",
        )
    if bg.task.cancelled():
        return error(f"task {a.id} was cancelled", can_retry=False)
    return single(bg.task.result())
