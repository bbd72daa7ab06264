"""One-shot runs: `agent "question"`, `agent -`, piped stdin; text, json or stream-json output."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from argparse import Namespace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from agent.base.events import TurnEnd
from agent.base.tokens import estimate
from agent.base.visible import visible
from agent.config.load import ConfigError, flags_from
from agent.config.plugins import Plugin
from agent.config.trust import Trust
from agent.context.mentions import attach_unasked
from agent.core.report import tool_search_figures
from agent.ui import render
from agent.ui.oneshot_script import EXIT_BY_SCRIPT_SUBTYPE, Script, answer_out
from agent.ui.process import (
    EXIT_FAIL,
    EXIT_INTERRUPTED,
    EXIT_MAX_TURNS,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_USAGE,
    PipeOut,
)
from agent.ui.startup import configure

if TYPE_CHECKING:  # annotations only
    from agent.app import Run
    from agent.ui.render import JsonRenderer, TextRenderer

EXIT_BY_SUBTYPE = {
    "success": EXIT_OK,
    "error_max_turns": EXIT_MAX_TURNS,
    "error_during_execution": EXIT_FAIL,
    "error_interrupted": EXIT_INTERRUPTED,
    **EXIT_BY_SCRIPT_SUBTYPE,  # budgets, --output-schema
}


def make_renderer(
    fmt: str, verbose: bool, out: IO[str] | None = None, partial: bool = False
) -> TextRenderer | JsonRenderer:
    """The run's renderer; `partial`: stream-json's stream_event lines too."""
    out = out or sys.stdout
    if fmt == "json":
        return render.JsonRenderer(out)
    if fmt == "stream-json":
        return render.StreamJsonRenderer(out, partial)
    return render.TextRenderer(out, verbose=verbose)


def result_line(subtype: str, text: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "result": text,
        "session_id": "",
        "num_turns": 0,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "usage": {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "uncached_input_tokens": 0,
            "cache_hit_ratio": 0.0,
            "reasoning_tokens": 0,
        },
        "total_cost_usd": 0.0,
        "permission_denials": [],
    }
    base.update(extra)
    return base


def _oversized(prompt: str, window: int) -> str:
    """Why the prompt (piped stdin included) cannot fit the model's context window, if so:
    said before sending megabytes the provider would refuse."""
    if len(prompt) < window:  # every token is at least a character: fits, or nearly
        return ""
    tokens = estimate(prompt)
    if tokens <= window:
        return ""
    return (
        f"the prompt is about {tokens:,} tokens ({len(prompt):,} characters), more than the "
        f"model's {window:,}-token context window: send a part of it (e.g. head -c 200000 FILE "
        '| agent "question" -) or ask the agent to read the file with its tools'
    )


def _fail_early(
    renderer: TextRenderer | JsonRenderer | None, fmt: str, message: str, code: int
) -> int:
    print(f"agent: {visible(message)}", file=sys.stderr)
    if fmt != "text" and renderer is not None:
        renderer.finish(result_line("error_during_execution", "", error=message))
    return code


def run_oneshot(args: Namespace, prompt: str) -> int:
    t0 = time.monotonic()
    fmt = args.output_format
    pipe = PipeOut(sys.stdout)  # a reader that goes away (`| head -1`) stops the run quietly
    dest = answer_out(args, cast("IO[str]", pipe))
    renderer = make_renderer(fmt, args.verbose, dest, args.include_partial_messages)
    try:
        cfg = configure(flags_from(args))
    except ConfigError as e:
        return _fail_early(renderer, fmt, str(e), EXIT_USAGE)
    for w in cfg.warnings:  # they quote the project's settings, rules and paths
        print(f"agent: warning: {visible(w)}", file=sys.stderr)
    refused = _refused(args, prompt, cfg.provider.context_limit)
    found = None if refused else _command(prompt, cfg.root, cfg.trust, cfg.plugins.found)
    if prompt.lstrip().startswith("//"):  # `//text` sends `/text`, as in the REPL
        prompt = prompt.replace("//", "/", 1)
    if refused or isinstance(found, str):
        return _fail_early(renderer, fmt, refused or str(found), EXIT_USAGE)
    # deferred: ~220 ms (openai, the whole session): only once it is needed
    from agent.app import build
    from agent.session.resume import chosen  # deferred: ~75 ms: only with -c / -r

    try:
        resume_id = chosen(args, cfg.root, cfg.cwd)
    except ConfigError as e:
        return _fail_early(renderer, fmt, str(e), EXIT_USAGE)
    run = build(cfg, renderer, resume_id=resume_id)
    if run.repo_map is not None:  # no later message for a map that is late
        run.repo_map.one_message = True
    if run.moved_from:
        moved = f"session {resume_id} ran in {run.moved_from}; it continues in {cfg.cwd}"
        print(f"agent: warning: {visible(moved)}", file=sys.stderr)
    if run.mcp is not None:
        run.mcp.settle()  # waits at most the servers' timeouts; failures go to stderr
    renderer.start(run.init_event())
    out = answer_out(args, cast("IO[str]", pipe)) if fmt == "text" else None  # JSON: the result
    script = Script.of(args, cfg)  # --output-schema, --output-last-message, budgets
    end = asyncio.run(_drive(run, prompt, pipe, (found, out, script)))
    return _finish(run, end, renderer, script, pipe, time.monotonic() - t0)


def _finish(
    run: Run,
    end: TurnEnd,
    renderer: TextRenderer | JsonRenderer,
    script: Script,
    pipe: PipeOut,
    seconds: float,
) -> int:
    """The `result` event, what --output-schema and --output-last-message deliver, the exit code."""
    renderer.finish({**result_event(run, end, seconds), **script.result_fields(run)})
    script.deliver(end, cast("IO[str]", pipe))
    code = getattr(end, "code", None)  # a failed command's (agent.ui.oneshot_command.FailedEnd)
    return EXIT_PIPE if pipe.broken else code if code is not None else EXIT_BY_SUBTYPE[end.subtype]


def _refused(args: Namespace, prompt: str, context_limit: int) -> str:
    """Why this prompt is not sent at all ("" when it is fine)."""
    if not prompt.strip():
        if args.cont or args.resume is not None:  # `agent -r < /dev/null`, `agent -c` in a pipe
            flag = "-c" if args.cont else f"-r {args.resume or 'ID'}"
            return (
                f'{flag} without a terminal needs a prompt: agent {flag} "and now…" '
                "(or run it in a terminal to continue interactively)"
            )
        return "empty prompt: pass a question or pipe one in"
    return _oversized(prompt, context_limit)


def result_event(run: Run, end: TurnEnd, seconds: float) -> dict[str, Any]:
    """The closing `result` event of a one-shot run."""
    t = run.agent.totals
    extra: dict[str, Any] = {"error": end.error} if end.error else {}
    if end.truncated:  # the answer stops where the output token limit cut it
        extra.update(truncated=True, stop_reason="max_tokens")
    if (found := tool_search_figures(run.agent.shelf)) is not None:  # MCP tools were deferred
        extra["tool_search"] = found
    return result_line(
        end.subtype,
        end.text,
        session_id=run.session_id,
        num_turns=t.requests,
        duration_ms=int(seconds * 1000),
        duration_api_ms=int(run.agent.llm.api_seconds * 1000),
        usage={
            "input_tokens": t.input_tokens,
            "output_tokens": t.output_tokens,
            "cache_read_input_tokens": t.cached_tokens,
            "uncached_input_tokens": t.input_tokens - t.cached_tokens,
            "cache_hit_ratio": round(t.cache_hit_ratio, 4),
            "reasoning_tokens": t.reasoning_tokens,
        },
        total_cost_usd=None if t.cost is None else round(t.cost, 6),
        permission_denials=run.denials.items,
        **extra,
    )


async def _drive(
    run: Run, prompt: str, pipe: PipeOut, command: tuple[Any, IO[str] | None, Script]
) -> TurnEnd:
    """Run the turn; SIGINT/SIGTERM, or stdout's reader going away, cancel it and still leave
    a valid history."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(_session(run, prompt, *command))
    pipe.on_broken = lambda: task.cancel()
    if pipe.broken:  # gone before the run began (while the init event was written)
        task.cancel()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, task.cancel)
    reason = "exit"
    try:
        end = await task
    except asyncio.CancelledError:
        reason = "interrupted"
        return TurnEnd("error_interrupted", "", run.agent.totals.requests, "interrupted")
    except Exception as e:  # a bug: the run still ends with its result line, as promised
        print(f"agent: internal error: {type(e).__name__}: {visible(str(e))}", file=sys.stderr)
        why = f"internal error: {type(e).__name__}: {e}"
        return TurnEnd("error_during_execution", "", run.agent.totals.requests, why)
    finally:
        await run.end(reason)
    return end


async def _session(
    run: Run, prompt: str, found: Any, out: IO[str] | None, script: Script
) -> TurnEnd:
    if found is not None:  # a slash command, run as the REPL would
        from agent.ui.oneshot_command import run_command  # deferred: loaded by _command

        return await script.settle(run, await run_command(run, found, out))
    await run.start()  # SessionStart hooks may add context to the first message
    prompt, notes = attach_unasked(prompt, run.gate.ws)  # @file, as the REPL attaches it
    for said in notes:
        print(f"agent: {visible(said)}", file=sys.stderr)
    return await script.settle(run, await run.turn(prompt))  # --output-schema: checked


def _command(
    prompt: str, root: Path, trusted: bool | Trust, plugins: tuple[Plugin, ...] = ()
) -> Any:
    """The slash command a prompt names (see agent.ui.oneshot_command), or why it cannot run."""
    if not prompt.lstrip().startswith("/"):
        return None
    # deferred: ~60 ms (the command modules): only for a prompt that starts with a slash
    from agent.ui.oneshot_command import command_of

    return command_of(prompt, root, trusted, plugins)
