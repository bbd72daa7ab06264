"""REPL commands for the workflows: /todo, /simplify, /batch, /loop (and /clear clears the todo
list too). Registered on import through agent.commands."""

from __future__ import annotations

import asyncio
import dataclasses

from agent.commands.registry import (
    COMMANDS,
    Ctx,
    command,
    dispatch,
    live,
    parse,
    register,
    resolve,
)
from agent.git.diff import GitError
from agent.subagents.runner import Subagents, runner_of
from agent.tools.tasks.todo import todo_list
from agent.workflows.batch import UnitResult, WorkflowError, batch, batch_report
from agent.workflows.repeat import PromptLoop, describe, loop_of, parse_args
from agent.workflows.simplify import simplify


def _runner(ctx: Ctx) -> Subagents | None:
    runner = runner_of(ctx.agent.ctx)
    if runner is None:
        ctx.say("subagents are not available in this session", "yellow")
    return runner


@command("todo")
async def todo_cmd(ctx: Ctx, args: str) -> None:
    """Show the session's task list (the model keeps it with the todo tool)."""

    ctx.say(todo_list(ctx.agent.ctx).render())


@command("simplify", usage="[focus]")
async def simplify_cmd(ctx: Ctx, args: str) -> None:
    """Review the changed files with three parallel subagents (reuse, quality, efficiency),
    then apply the fixes that hold up."""

    runner = _runner(ctx)
    if runner is None:
        return
    ctx.say("reviewing the changes: reuse, quality, efficiency (in parallel)…", "dim")
    try:
        denied = tuple(ctx.run.gate.read_denials())
        await simplify(runner, ctx.cfg.cwd, args.strip(), ctx.turn, ctx.cfg.trusted, denied)
    except (GitError, WorkflowError) as e:
        ctx.say(str(e), "yellow")


@command("batch", usage="<task>")
async def batch_cmd(ctx: Ctx, args: str) -> None:
    """Split a task into 3–8 independent units and run them as parallel subagents, each in
    its own git worktree; then report per unit."""

    task = args.strip()
    if not task:
        ctx.say("usage: /batch <task>", "yellow")
        return
    runner = _runner(ctx)
    if runner is None:
        return
    ctx.say("planning units…", "dim")
    results: list[UnitResult] = []
    try:
        await batch(runner, task, ctx.cfg.cwd, into=results, trusted=ctx.cfg.trusted)
    except WorkflowError as e:
        ctx.say(str(e), "yellow")
        return
    except asyncio.CancelledError:
        if any(r.branch for r in results):  # the worktrees with work so far are kept
            ctx.say(f"interrupted; the work so far is kept:\n{batch_report(results)}", "yellow")
        raise
    ctx.say(batch_report(results))


@command("loop", usage="[<interval> <prompt>]", aliases=("proactive",), repl_only=True)
async def loop_cmd(ctx: Ctx, args: str) -> None:
    """Rerun a prompt or a /command now and every interval (30s, 5m, 1h; a bare number is
    minutes) without overlapping other turns; /loop alone stops it."""
    try:
        parsed = parse_args(args)
        slash = _loop_command(ctx, parsed[1]) if parsed is not None else False
    except ValueError as e:
        ctx.say(str(e), "yellow")
        return
    old, ctx.agent.ctx.loop = loop_of(ctx.agent.ctx), None
    if old is not None and old.running:
        await old.aclose()
        ctx.say(f"stopped the loop ({old.runs} run(s) of: {old.prompt})")
    elif parsed is None:
        ctx.say("no loop is running; start one with /loop <interval> <prompt>")
    if parsed is None:
        return
    seconds, prompt = parsed

    def failed(e: BaseException) -> None:
        ctx.say(f"/loop run failed: {type(e).__name__}: {e}", "red")

    async def run(text: str) -> object:
        return await (dispatch(ctx, text) if slash else ctx.turn(text))

    ctx.agent.ctx.loop = PromptLoop(seconds, prompt, run, failed).start()
    ctx.say(f"looping every {describe(seconds)}: {prompt}  (/loop stops it)")


def _loop_command(ctx: Ctx, prompt: str) -> bool:
    """Whether a loop's prompt is a slash command (run as one each time, as the REPL would);
    ValueError for an unknown command or /loop itself."""

    parsed = parse(prompt)
    if parsed is None:  # plain text, or a path such as /usr/bin/env
        return False
    cmd = resolve(live(ctx), parsed[0])
    name = cmd.name if cmd is not None else ""
    if cmd is None:
        raise ValueError(f"unknown command /{parsed[0]} — /help lists the commands")
    if name == "loop":
        raise ValueError("a loop cannot run /loop")
    return True


def _wrap_clear() -> None:
    """/clear also empties the todo list (recorded, so a resume does not bring it back)."""
    orig = COMMANDS.get("clear")
    if orig is None or getattr(orig.run, "clears_todo", False):
        return

    async def clear(ctx: Ctx, args: str) -> None:
        await orig.run(ctx, args)
        todo = ctx.agent.ctx.todo
        if todo is not None and len(todo):
            todo.clear()

    clear.clears_todo = True  # type: ignore[attr-defined]
    register(dataclasses.replace(orig, run=clear))


_wrap_clear()
