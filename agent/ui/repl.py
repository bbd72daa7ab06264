"""The interactive REPL: a prompt_toolkit prompt, the loop behind it, slash commands, `!shell`.

The prompt is drawn first; the Run (client, tools, MCP servers), the command registry, the file
list for `@` completion and the `openai` import load in the background. A turn runs as a task:
Esc or Ctrl-C cancels it and the loop leaves a valid history. Falls back to the plain REPL
(line_repl) when stdin/stdout is not a terminal or prompt_toolkit cannot start.
"""

from __future__ import annotations

import asyncio
import sys
import time
from argparse import Namespace
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from agent import __version__
from agent.base.visible import visible
from agent.config.settings import user_dir
from agent.ui import line_repl as repl_basic
from agent.ui.keys import PROMPT, REWIND, Interrupts, make_session, stats_of
from agent.ui.pastes import Pastes
from agent.ui.process import EXIT_FAIL, EXIT_OK, EXIT_WORDS, TERMINATING, run_session
from agent.ui.repl_host import ReplHost

if TYPE_CHECKING:  # annotations only
    from rich.console import Console

    from agent.app import Run
    from agent.base.events import TurnEnd
    from agent.commands.command import Command, Ctx
    from agent.config.load import Config
    from agent.ui.repl_session import Opened
    from agent.ui.tui import LiveRenderer

CTRL_C_WINDOW = 3.0  # seconds within which a second Ctrl-C on an empty prompt exits


class StartError(Exception):
    """The session could not be set up (shown, then the REPL exits 1)."""


def run_repl(args: Namespace) -> int:

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return repl_basic.run_repl(args)
    loaded = repl_basic.load(args)  # the trust question, the -c/-r choice
    if isinstance(loaded, int):
        return loaded
    cfg, resume_id = loaded
    try:
        repl = Repl(cfg, resume_id)
    except Exception as e:  # prompt_toolkit cannot drive this terminal
        print(f"agent: {visible(str(e))}; using the plain prompt", file=sys.stderr)
        return repl_basic.run_repl(args)
    return run_session(repl.main())


class Repl(ReplHost):
    """One interactive session."""

    def __init__(self, cfg: Config, resume_id: str | None = None) -> None:
        # deferred: ~100 ms (the tool modules): after the prompt is drawn
        from agent.ui.completion import ReplCompleter

        self.cfg = cfg
        self.resume_id = resume_id
        self.start_mode = self._mode = cfg.permission_mode
        self.run: Run | None = None
        self.ctx: Ctx | None = None
        self.console: Console | None = None
        self.renderer: LiveRenderer | None = None
        self.opened: Opened | None = None  # the session, once built (agent.ui.repl_session)
        self.commands: dict[str, Command] = {}
        self.paths: list[str] = []
        self.pending: list[str] = []  # !command notes for the next message
        self.queued: list[str] = []  # inputs typed (and sent with Enter) while a turn ran
        self.draft = ""  # text typed while the last turn ran: the next prompt starts with it
        self.pastes = Pastes()  # long pastes, shown as placeholders in the input
        self.cancelled = False  # the last busy period was interrupted
        self.current: asyncio.Future[Any] | None = None
        self.bg: set[asyncio.Future[Any]] = set()
        self.ready: asyncio.Future[Any] | None = None
        self.prompting = False
        self.ctrl_c = 0.0
        self.stats: tuple[float, float | None, float] = (0.0, 0.0, 0.0)
        self.keys = Interrupts(self.cancel_turn)
        completer = ReplCompleter(self.commands_now, lambda: self.paths, self.resources_now)
        self.session = make_session(self, completer, user_dir() / "history")

    # -- the main loop -------------------------------------------------------------------
    async def main(self) -> int:
        where = visible(f"{self.cfg.model} · {self.cfg.cwd}", "")
        print(
            f"agent {__version__} · {where}\n"
            "/help lists commands · Esc or Ctrl-C stops a turn · Ctrl-D exits",
            flush=True,
        )
        self.ready = self.spawn(self._start())
        code = EXIT_OK
        try:
            while not (self.ctx is not None and self.ctx.exit):
                line = self._next_queued() if self.queued else await self._read()
                if line is None or line.strip() in EXIT_WORDS:
                    break
                if line == REWIND:  # Esc Esc: the picker of /rewind, the prompt put back
                    await self._handle("/rewind")
                elif line.strip():
                    await self._handle(line)
                    self._typed_ahead()
        except StartError as e:
            print(f"agent: {visible(str(e))}", file=sys.stderr)
            code = EXIT_FAIL
        finally:
            await self._close()
        if self.run is not None and (said := repl_basic.goodbye(self.run)):
            print(said, flush=True)
        return code

    async def _read(self) -> str | None:
        """The next input; None = exit (Ctrl-D, or Ctrl-C twice on an empty prompt)."""
        while True:
            self.refresh_stats()
            self.at_prompt(True)
            try:
                draft, self.draft = self.draft, ""
                line = str(await self.session.prompt_async(PROMPT, default=draft))
                return self.pastes.expand(line)
            except EOFError:
                return None
            except KeyboardInterrupt:
                now = time.monotonic()
                if now - self.ctrl_c < CTRL_C_WINDOW:
                    return None
                self.ctrl_c = now
                print("(press Ctrl-C again to exit)", flush=True)
            finally:
                self.at_prompt(False)

    async def _handle(self, line: str) -> None:
        # deferred: commands (~60 ms) and mentions (~55 ms) load after the prompt is drawn
        from agent.commands.registry import as_message, dispatch, parse
        from agent.context.mentions import attach, bang

        await self._ready()
        text = line.strip()
        if text.startswith("!"):
            box = self.run.sandbox() if self.run is not None else None
            work = bang(text[1:].strip(), self.cfg.cwd, self.out.line, self.pending, box)
            await self.busy(work, "running")
        elif repl_basic.remembered(text):  # `# note`: the memory file's, as /memory add
            assert self.ctx is not None  # set before _ready returns
            await self.busy(dispatch(self.ctx, f"/memory add {text[1:].strip()}"), "working")
        elif parse(text) is not None:
            assert self.ctx is not None
            await self.busy(dispatch(self.ctx, text), "working")
        else:
            await self.busy(self.turn(attach(as_message(line), self.cfg.cwd)), "thinking")
        self.spawn(self.refresh_paths())

    async def busy(self, work: Coroutine[Any, Any, Any], label: str) -> None:
        """Run a turn or command as a task that Esc / Ctrl-C cancels; the session survives."""
        task = asyncio.ensure_future(work)
        self.current, self.cancelled = task, False
        self.out.begin(label)
        self.keys.start()
        try:
            await task
        except asyncio.CancelledError:
            if not task.cancelled() or TERMINATING:
                raise  # we were cancelled ourselves (shutdown, SIGTERM)
            self.cancelled = True
            if not self.out.interrupted:
                self.out.line("⎿ interrupted", "dim")
        except Exception as e:  # a failing command must not end the session
            self.out.line(f"error: {type(e).__name__}: {e}", "red")
        finally:
            self.keys.stop()
            self.out.end()
            self.current = None

    def _typed_ahead(self) -> None:
        """What was typed during the turn: a queued message is sent next (echoed as if typed);
        after an interrupt it is only put back in the prompt, so Esc never sends anything."""
        queued, text = self.keys.typed.take()
        if self.cancelled:  # Esc never sends: all of it waits in the next prompt
            self.draft = "\n".join(t for t in (*self.queued, *queued, text) if t)
            self.queued = []
            return
        self.queued += queued  # one by one: `/cost` then a question both run, in order
        if self.queued:
            self.keys.typed.text = text  # typing goes on while the queued inputs run
        else:
            self.draft = text

    def _next_queued(self) -> str:
        """The next typed-ahead input, echoed as if typed at the prompt."""
        line = self.queued.pop(0)
        self.session.history.append_string(line)
        print(f"{PROMPT}{visible(line)}", flush=True)
        return line

    async def turn(self, text: str) -> TurnEnd:
        """One user turn through the loop (commands call this too)."""
        words = text  # what pickers show: not the `!cmd` transcripts before it
        if self.pending:
            text = "\n\n".join([*self.pending, text])
            self.pending.clear()
        run = self.run
        assert run is not None, "a turn runs only once the session is ready (_ready)"
        return await run.turn(text, words=words)

    # -- background work -----------------------------------------------------------------
    def spawn(self, work: Awaitable[Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(work)
        self.bg.add(task)
        task.add_done_callback(self.bg.discard)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return task

    def _build(self) -> Opened:
        """In a thread: rich, the Run (client, tools, gate, hooks) — the heavy imports."""
        # deferred: ~300 ms (rich, openai, the whole session): loads after the prompt is drawn
        from agent.ui.repl_session import open_session

        return open_session(self, self.keys.typed.shown)

    async def _start(self) -> Run:
        self.opened = opened = await asyncio.to_thread(self._build)
        self.console, self.renderer = opened.console, opened.renderer
        await opened.ready(self)
        return opened.run

    async def _ready(self) -> None:
        assert self.ready is not None
        try:
            await self.ready
        except Exception as e:
            raise StartError(f"cannot start the session: {e}") from e

    async def refresh_paths(self) -> None:
        # deferred: ~100 ms (the tool modules): after the prompt is drawn
        from agent.ui.completion import project_paths

        self.paths = await project_paths(self.cfg.cwd)

    def commands_now(self) -> dict[str, Command]:
        """The loaded commands and, once the session runs, its MCP servers' prompts."""
        if self.ctx is None:
            return self.commands
        # deferred: ~60 ms (the command modules): loaded with the commands, after the prompt
        from agent.commands.registry import live

        return live(self.ctx)

    def resources_now(self) -> list[tuple[str, str]]:
        """What `@server:uri` completes to: the MCP servers' resources listed so far."""
        mcp = self.run.mcp if self.run is not None else None
        return mcp.mentionable() if mcp is not None else []

    def refresh_stats(self) -> None:
        if self.run is not None:
            self.stats = stats_of(self.run.agent)

    def at_prompt(self, on: bool) -> None:
        """Events printed while the prompt is up go above it (run_in_terminal)."""
        self.prompting = on
        if self.renderer is not None:
            self.renderer.at_prompt = self._above_prompt if on else None

    def _above_prompt(self, fn: Callable[[], None]) -> None:
        from prompt_toolkit.application import run_in_terminal

        self.spawn(run_in_terminal(fn))

    async def _close(self) -> None:
        for task in list(self.bg):
            task.cancel()
        await asyncio.gather(*self.bg, return_exceptions=True)
        if self.run is not None and self.opened is not None:
            await self.opened.close()
