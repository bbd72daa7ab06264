"""A plain line-based REPL: one turn per line, Ctrl-C stops a turn, Ctrl-D exits.

A stand-in until the prompt_toolkit REPL lands; it uses the same loop and text renderer and asks
permission on the terminal (y once, s this session, d/a remember, n no with a reason). A project
that brings its own configuration is trusted only after the user says so (asked once).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from argparse import Namespace
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from agent.base.visible import visible
from agent.config.load import ConfigError
from agent.permissions.request import Answer, AskRequest
from agent.permissions.showing import shown as showing
from agent.ui import picker
from agent.ui.process import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_WORDS,
    TERMINATING,
    signals_cancel,
)
from agent.ui.setup import Interrupted, configured
from agent.ui.terminal import safe_console
from agent.ui.trusting import changes_prompt, trust_prompt

if TYPE_CHECKING:  # annotations only
    from agent.app import Run
    from agent.commands.command import Ctx
    from agent.config.load import Config

CHOICES = {
    "y": "[y] once",
    "s": "[s] this session",
    "d": "[d] remember this directory",
    "a": "[a] remember this command prefix",
    "n": "[N]o (n <reason> tells the model why)",
}


def _paint(diff: str, color: bool) -> str:
    lines = diff.splitlines()
    if not color:
        return "\n".join(lines)
    codes = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m"}
    return "\n".join(
        f"{codes[ln[0]]}{ln}\033[0m"
        if ln[:1] in codes and not ln.startswith(("+++", "---"))
        else ln
        for ln in lines
    )


def parse_answer(text: str, choices: tuple[str, ...]) -> tuple[str, str]:
    """(choice, reason): y/s/d/a when offered; anything else is no, with the text as reason."""
    words = text.strip().split(maxsplit=1)
    first = words[0].lower() if words else "n"
    if first in choices and first != "n":
        return first, ""
    if first in ("yes",):
        return "y", ""
    if first in ("n", "no"):
        return "n", words[1] if len(words) > 1 else ""
    return "n", text.strip()


async def ask_on_terminal(req: AskRequest) -> Answer:
    """The permission prompt: tool, resolved path or full command, diff, then the answer — as
    agent.permissions.showing renders them (a value not shown as it is says so first)."""
    color = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    shown = showing(req)
    out = [f"\n── permission: {visible(req.tool, '')} ──"]
    if shown.warning:
        out.append(f"\033[1;31m{shown.warning}\033[0m" if color else shown.warning)
    out.append(f"{shown.label}: {shown.value}")
    if shown.args:
        out.append(f"arguments: {shown.args}")
    if shown.reason:
        out.append(f"why: {shown.reason}")
    if shown.body:
        out.append(shown.body)
    if shown.diff:
        out.append(_paint(shown.diff, color))
    if shown.remember:
        out.append(f"remember adds: {', '.join(shown.remember)}")
    if shown.reminder:  # the warning may have scrolled away with the top of the value
        out.append(f"\033[1;31m{shown.reminder}\033[0m" if color else shown.reminder)
    out.append(" · ".join(req.key(c, CHOICES.get(c, c)) for c in req.choices) + " : ")
    print("\n".join(out), end="", file=sys.stderr, flush=True)
    line = await asyncio.to_thread(sys.stdin.readline)
    choice, reason = parse_answer(line, req.choices)
    return Answer(choice, reason)


def load(args: Namespace) -> tuple[Config, str | None] | int:
    """(Config, session id to resume) for an interactive session — after the trust question and
    the `-c` / `-r [ID]` choice (the picker) — or an exit code."""
    from agent.session.resume import PickInterrupted, chosen  # deferred: ~75 ms: only with -c / -r

    try:
        cfg = configured(args)  # with no key on a terminal: after the first-run set-up
        if trust_prompt(cfg) or changes_prompt(cfg):
            cfg = configured(args)
        resume_id = chosen(args, cfg.root, cfg.cwd, choose=picker.for_terminal())
    except ConfigError as e:
        print(f"agent: {visible(str(e))}", file=sys.stderr)
        return EXIT_INTERRUPTED if isinstance(e, (PickInterrupted, Interrupted)) else EXIT_USAGE
    for w in cfg.warnings:  # they quote settings files, rules, paths of the project
        print(f"agent: warning: {visible(w)}", file=sys.stderr)
    return cfg, resume_id


def run_repl(args: Namespace) -> int:
    # deferred: ~220 ms (openai, the whole session): only once it is needed
    from agent.app import build

    # deferred: ~30 ms: the renderer of the chosen output format only
    from agent.ui.render import TextRenderer

    loaded = load(args)
    if isinstance(loaded, int):
        return loaded
    cfg, resume_id = loaded
    run = build(cfg, TextRenderer(verbose=args.verbose), ask_on_terminal, resume_id=resume_id)
    model = visible(run.agent.llm.model, "")
    print(f"agent · {model} · Ctrl-C stops a turn, Ctrl-D exits", file=sys.stderr)
    if resume_id:
        print(visible(resumed_note(run)), file=sys.stderr)
    loop = asyncio.new_event_loop()  # one loop for the session: the HTTP client lives on it
    loop.run_until_complete(run.start())
    ctx = _commands(run, args)
    try:
        while not ctx.exit:
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
            if line.strip() in EXIT_WORDS:
                break
            loop.run_until_complete(_interruptible(_line(ctx, line)))
            if TERMINATING:  # the turn a signal cancelled has unwound: end like the signal
                return 128 + TERMINATING[0]
        return EXIT_OK
    finally:
        _cancel_pending(loop)  # a turn a signal cut short: its shell commands are killed
        loop.run_until_complete(run.end())
        loop.close()
        said = goodbye(run)
        if said:
            print(said, file=sys.stderr)


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _commands(run: Run, args: Namespace) -> Ctx:
    """The slash commands, printing plainly to stdout like the answers."""
    # deferred: ~60 ms: commands load after the prompt is drawn
    from agent.commands.registry import LOAD_PROBLEMS, Ctx, all_commands
    from agent.ui.tui import show_diff  # deferred: ~60 ms (rich): loads after the prompt is drawn

    commands = all_commands(
        run.cfg.root, trusted=run.cfg.trust, skills=run.skills, plugins=run.cfg.plugins.found
    )
    for problem in LOAD_PROBLEMS:
        print(f"agent: warning: {visible(problem)}", file=sys.stderr)

    console = safe_console(highlight=False, color_system=None, soft_wrap=True)
    return Ctx(run, console, run.turn, run.agent.sink, commands, show_diff=show_diff(console))


def remembered(text: str) -> bool:
    """`# always run the tests with -q`: a line for the memory file (/memory add), as in
    Claude Code; a Markdown heading (`## …`) or a bare `#` is a message."""
    return text.startswith("#") and not text.startswith("##") and bool(text[1:].strip())


async def _line(ctx: Ctx, line: str) -> None:
    # deferred: ~60 ms: commands load after the prompt is drawn
    from agent.commands.registry import as_message, dispatch

    if remembered(line.strip()):
        line = f"/memory add {line.strip()[1:].strip()}"
    try:
        if await dispatch(ctx, line):
            return
    except Exception as e:  # a failing command must not end the session
        print(f"error: {type(e).__name__}: {visible(str(e))}", file=sys.stderr)
        return
    from agent.context.mentions import attach  # deferred: ~55 ms: only for a message with @ or !

    await ctx.turn(attach(as_message(line), ctx.cfg.cwd))


async def _interruptible(work: Coroutine[Any, Any, object]) -> None:
    """Ctrl-C cancels the turn; SIGTERM and SIGHUP too (TERMINATING: the session then ends)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        with signals_cancel(task):
            await task
    except asyncio.CancelledError:
        if not TERMINATING:
            print("\n[interrupted]", file=sys.stderr)
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def goodbye(run: Run) -> str:
    """What leaving says of a session that has a conversation: its id, what it cost and how
    to go on with it ("" for one with none)."""
    if len(run.agent.messages) < 2:
        return ""
    t = run.agent.totals
    cost = f"${t.cost:.4f}" if t.cost is not None else "$— (price unknown)"
    return f"session {run.session_id} · {cost} · continue it with: agent -c"


def resumed_note(run: Run) -> str:
    """What a resumed session starts with: which one, how long, and the last exchange."""
    from agent.ui.replay import last_words  # deferred: ~65 ms: only when a session is resumed

    msgs = run.agent.messages[1:]
    last = " ".join(last_words(run.store, msgs).split())[:80]
    note = f"resumed {run.session_id} ({len(msgs)} messages)"
    note += f" · last: {last}" if last else ""
    if run.moved_from:
        note += f"\nit ran in {run.moved_from} until now; it continues here, in {run.cfg.cwd}"
    return note
