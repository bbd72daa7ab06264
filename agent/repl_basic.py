"""A plain line-based REPL: one turn per line, Ctrl-C stops a turn, Ctrl-D exits.

A stand-in until the prompt_toolkit REPL lands; it uses the same loop and text renderer and asks
permission on the terminal (y once, s this session, n no).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any

from agent.cli import EXIT_OK, EXIT_USAGE, flags_from


async def ask_on_terminal(call: Any, tool: Any) -> tuple[bool, str]:
    from agent.render import summarize_args

    print(
        f"\nallow {call.name} {summarize_args(call.args, 200)} ? [y]es / [s]ession / [N]o: ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    answer = (await asyncio.to_thread(sys.stdin.readline)).strip().lower()
    if answer in ("y", "yes"):
        return True, ""
    if answer in ("s", "session"):
        ask_on_terminal.session.add(call.name)  # type: ignore[attr-defined]
        return True, ""
    return False, "the user declined"


ask_on_terminal.session = set()  # type: ignore[attr-defined]


def run_repl(args: Any) -> int:
    from agent.app import build
    from agent.config import ConfigError, load_config
    from agent.render import TextRenderer

    try:
        cfg = load_config(flags_from(args))
    except ConfigError as e:
        print(f"agent: {e}", file=sys.stderr)
        return EXIT_USAGE
    for w in cfg.warnings:
        print(f"agent: warning: {w}", file=sys.stderr)
    run = build(cfg, TextRenderer(verbose=args.verbose), ask_on_terminal)
    print(f"agent · {run.agent.llm.model} · Ctrl-C stops a turn, Ctrl-D exits", file=sys.stderr)
    while True:
        try:
            line = input("> ")
        except EOFError:
            print(file=sys.stderr)
            return EXIT_OK
        except KeyboardInterrupt:
            print(file=sys.stderr)
            continue
        if not line.strip():
            continue
        if line.strip() in ("/exit", "/quit"):
            return EXIT_OK
        asyncio.run(_turn(run, line))


async def _turn(run: Any, line: str) -> None:
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(run.agent.run_turn(run.user_message(line)))
    loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        print("\n[interrupted]", file=sys.stderr)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
