"""Tool calls to results: parse, check, run through the middleware layers, never raise.

`compose(execute, *layers)` builds the per-call pipeline (seam 1): each layer is
`async (call, ctx, next) -> ToolResult`, outermost first. Read-only calls of one reply run
concurrently; a mutating call waits for everything before it and blocks everything after it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from agent.base.events import Sink, ToolEnd, ToolStart
from agent.base.record import (
    CALL_ID,
    RESULT_CAP,
    Call,
    Middleware,
    Next,
    Tool,
    ToolContext,
    ToolResult,
    cap,
    error,
)
from agent.base.schema import parse_arguments, validate
from agent.tools.shared.common import take_partial
from agent.tools.shared.textio import has_surrogates, printable


def compose(execute: Next, *layers: Middleware) -> Next:
    """Wrap `execute` so that layers[0] runs first and layers[-1] right before execution."""
    handler = execute
    for layer in reversed(layers):
        handler = _bind(layer, handler)
    return handler


def _bind(layer: Middleware, nxt: Next) -> Next:
    async def run(call: Call, ctx: ToolContext) -> ToolResult:
        return await layer(call, ctx, nxt)

    return run


def prepare(call_id: str, name: str, raw: str, tools: dict[str, Tool]) -> Call:
    """Parse and check one call; problems are kept on the Call and answered without running."""
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(sorted(tools))
        return Call(call_id, name, {}, raw, f"unknown tool {name!r}. Available tools: {known}")
    try:
        args = parse_arguments(raw)
    except ValueError as e:
        return Call(call_id, name, {}, raw, f"{e}. Resend the {name} call with a JSON object")
    args, problems = validate(args, tool.parameters)
    if problems:
        return Call(
            call_id, name, args, raw, f"invalid arguments for {name}: {'; '.join(problems)}"
        )
    return Call(call_id, name, args, raw)


class Dispatcher:
    """Runs a reply's tool calls through the pipeline and emits ToolStart/ToolEnd."""

    def __init__(self, tools: dict[str, Tool], layers: tuple[Middleware, ...] = ()) -> None:
        self.tools = tools
        self.layers = layers  # kept so a session switch can re-point them
        self.pipeline = compose(self.execute, *layers)

    async def execute(self, call: Call, ctx: ToolContext) -> ToolResult:
        tool = self.tools.get(call.name)
        if tool is None:  # removed since the call was prepared (e.g. an MCP server died)
            return error(
                f"tool {call.name!r} is no longer available", can_retry=False, kind="unavailable"
            )
        t0 = time.perf_counter()
        try:
            result = await tool.run(call.args, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug in a tool must not end the session
            why = f"{call.name} failed: {type(e).__name__}: {e}"
            return error(why, can_retry=False, kind="crash", exc=e)
        finally:
            call.run_seconds = time.perf_counter() - t0  # without the time asking
        room = max(ctx.result_room, RESULT_CAP)  # the loop spills or cuts to the result cap
        if len(result.output) > room:
            more = f"{call.name} gave more than fits in a result; call it asking for less"
            output = cap(result.output, room, how_to_see_more=more)
            result = replace(result, output=output)
        if has_surrogates(result.output) or has_surrogates(result.display or ""):
            # An odd file name or stray bytes kept by a tool: a lone surrogate can go neither
            # to the terminal, nor into the session file, nor into the next request's JSON.
            display = None if result.display is None else printable(result.display)
            result = replace(result, output=printable(result.output), display=display)
        return result

    async def run_one(self, call: Call, ctx: ToolContext, sink: Sink) -> ToolResult:
        call.started = True
        CALL_ID.set(call.id)  # this task's: read-only calls that run together each have theirs
        sink.emit(ToolStart(call.id, call.name, call.args))
        if call.problem:
            result = error(call.problem, can_retry=True, kind="invalid")
        else:
            try:
                result = await self.pipeline(call, ctx)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a failing layer (audit, hook, gate, snapshot) likewise
                why = f"{call.name} could not run: {type(e).__name__}: {e}"
                result = error(why, can_retry=False, kind="layer", exc=e)
        seconds = call.run_seconds
        ms = int(seconds * 1000)  # the tool's own time: a permission prompt's wait is not in it
        sink.emit(
            ToolEnd(
                call.id,
                call.name,
                call.args,
                result.output,
                result.is_error,
                ms,
                result.display,
                result.failure,
                result.shown,
            )
        )
        return result

    async def run_all(
        self, calls: list[Call], ctx: ToolContext, sink: Sink, done: dict[str, ToolResult]
    ) -> None:
        """Fill `done` (call id → result) in the model's order; read-only runs run together.

        `done` is filled as calls finish, so an interrupted batch keeps what completed.
        """
        batch: list[Call] = []

        async def one(call: Call) -> None:
            try:
                done[call.id] = await self.run_one(call, ctx, sink)
            except asyncio.CancelledError as stop:
                output = take_partial(stop)  # what the call produced before it was stopped
                if output:
                    result = ToolResult(printable(output), True, f"{call.name} interrupted")
                    done[call.id] = result
                    sink.emit(ToolEnd(call.id, call.name, call.args, result.output, True, 0, None))
                raise

        for call in calls:
            tool = self.tools.get(call.name)
            if tool is not None and tool.read_only and not call.problem:
                batch.append(call)
                continue
            if batch:
                await asyncio.gather(*(one(c) for c in batch))
                batch.clear()
            await one(call)
        if batch:
            await asyncio.gather(*(one(c) for c in batch))
