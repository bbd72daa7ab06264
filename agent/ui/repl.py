"""The interactive REPL: a prompt_toolkit prompt, the loop behind it, slash commands, `!shell`.

The prompt is drawn first; the Run (client, tools, MCP servers), the command registry, the file
list for `@` completion and the `openai` import load in the background. A turn runs as a task:
Esc or Ctrl-C cancels it and the loop leaves a valid history. Falls back to the plain REPL
(repl_basic) when stdin/stdout is not a terminal or prompt_toolkit cannot start.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
import time
from collections.abc import AsyncIterator, Coroutine
from typing import TYPE_CHECKING, Any

from agent import __version__
from agent.config.settings import user_dir
from agent.ui import line_repl as repl_basic
from agent.ui.keys import PROMPT, Interrupts, make_session, next_mode, stats_of, toolbar_text
from agent.ui.process import EXIT_FAIL, EXIT_OK, TERMINATING

if TYPE_CHECKING:  # annotations only
    from agent.app import Run
    from agent.config.load import Config

CTRL_C_WINDOW = 3.0  # seconds within which a second Ctrl-C on an empty prompt exits


class StartError(Exception):
    """The session could not be set up (shown, then the REPL exits 1)."""


def run_repl(args: Any) -> int:

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return repl_basic.run_repl(args)
    loaded = repl_basic.load(args)  # the trust question, the -c/-r choice
    if isinstance(loaded, int):
        return loaded
    cfg, resume_id = loaded
    try:
        repl = Repl(cfg, resume_id)
    except Exception as e:  # prompt_toolkit cannot drive this terminal
        print(f"agent: {e}; using the plain prompt", file=sys.stderr)
        return repl_basic.run_repl(args)
    return asyncio.run(repl.main())


class Repl:
    """One interactive session."""

    def __init__(self, cfg: Config, resume_id: str | None = None) -> None:
        # deferred: ~100 ms (the tool modules): after the prompt is drawn
        from agent.ui.completion import ReplCompleter

        self.cfg = cfg
        self.resume_id = resume_id
        self.start_mode = self._mode = cfg.permission_mode
        self.run: Run | None = None
        self.ctx: Any = None
        self.console: Any = None
        self.renderer: Any = None
        self.commands: dict[str, Any] = {}
        self.paths: list[str] = []
        self.pending: list[str] = []  # !command notes for the next message
        self.queued = ""  # a message typed (and sent with Enter) while the last turn ran
        self.draft = ""  # text typed while the last turn ran: the next prompt starts with it
        self.cancelled = False  # the last busy period was interrupted
        self.current: asyncio.Future[Any] | None = None
        self.bg: set[asyncio.Future[Any]] = set()
        self.ready: asyncio.Future[Any] | None = None
        self.prompting = False
        self.ctrl_c = 0.0
        self.stats = (0.0, 0.0, 0.0)
        self.keys = Interrupts(self.cancel_turn)
        completer = ReplCompleter(lambda: self.commands, lambda: self.paths)
        self.session = make_session(self, completer, user_dir() / "history")

    # -- the main loop -------------------------------------------------------------------
    async def main(self) -> int:
        print(
            f"agent {__version__} · {self.cfg.model} · {self.cfg.cwd}\n"
            "/help lists commands · Esc or Ctrl-C stops a turn · Ctrl-D exits",
            flush=True,
        )
        self.ready = self._spawn(self._start())
        code = EXIT_OK
        try:
            while not (self.ctx is not None and self.ctx.exit):
                line, self.queued = self.queued or await self._read(), ""
                if line is None:
                    break
                if line.strip():
                    await self._handle(line)
                    self._typed_ahead()
        except StartError as e:
            print(f"agent: {e}", file=sys.stderr)
            code = EXIT_FAIL
        finally:
            await self._close()
        return code

    async def _read(self) -> str | None:
        """The next input; None = exit (Ctrl-D, or Ctrl-C twice on an empty prompt)."""
        while True:
            self._refresh_stats()
            self._at_prompt(True)
            try:
                draft, self.draft = self.draft, ""
                return str(await self.session.prompt_async(PROMPT, default=draft))
            except EOFError:
                return None
            except KeyboardInterrupt:
                now = time.monotonic()
                if now - self.ctrl_c < CTRL_C_WINDOW:
                    return None
                self.ctrl_c = now
                print("(press Ctrl-C again to exit)", flush=True)
            finally:
                self._at_prompt(False)

    async def _handle(self, line: str) -> None:
        # deferred: commands (~60 ms) and mentions (~55 ms) load after the prompt is drawn
        from agent.commands.registry import dispatch, parse
        from agent.context.mentions import attach, bang

        await self._ready()
        text = line.strip()
        if text.startswith("!"):
            work = bang(text[1:].strip(), self.cfg.cwd, self.renderer.line, self.pending)
            await self.busy(work, "running")
        elif parse(text) is not None:
            await self.busy(dispatch(self.ctx, text), "working")
        else:
            await self.busy(self.turn(attach(line, self.cfg.cwd)), "thinking")
        self._spawn(self._refresh_paths())

    async def busy(self, work: Coroutine[Any, Any, Any], label: str) -> None:
        """Run a turn or command as a task that Esc / Ctrl-C cancels; the session survives."""
        task = asyncio.ensure_future(work)
        self.current, self.cancelled = task, False
        self.renderer.begin(label)
        self.keys.start()
        try:
            await task
        except asyncio.CancelledError:
            if not task.cancelled() or TERMINATING:
                raise  # we were cancelled ourselves (shutdown, SIGTERM)
            self.cancelled = True
            if not self.renderer.interrupted:
                self.renderer.line("⎿ interrupted", "dim")
        except Exception as e:  # a failing command must not end the session
            self.renderer.line(f"error: {type(e).__name__}: {e}", "red")
        finally:
            self.keys.stop()
            self.renderer.end()
            self.current = None

    def _typed_ahead(self) -> None:
        """What was typed during the turn: a queued message is sent next (echoed as if typed);
        after an interrupt it is only put back in the prompt, so Esc never sends anything."""
        queued, text = self.keys.typed.take()
        if self.cancelled or not queued:
            self.draft = "\n".join(t for t in (queued, text) if t)
            return
        self.queued = queued
        self.keys.typed.text = text  # typing goes on while the queued message runs
        self.session.history.append_string(queued)
        print(f"{PROMPT}{queued}", flush=True)

    async def turn(self, text: str) -> Any:
        """One user turn through the loop (commands call this too)."""
        if self.pending:
            text = "\n\n".join([*self.pending, text])
            self.pending.clear()
        run = self.run
        assert run is not None, "a turn runs only once the session is ready (_ready)"
        return await run.agent.run_turn(run.user_message(text))

    # -- what the prompt, the asker and the keys call --------------------------------------
    @property
    def mode(self) -> str:
        return str(self.run.gate.mode) if self.run is not None else self._mode

    def cycle_mode(self) -> None:
        self._mode = next_mode(self.mode, self.start_mode)
        if self.run is not None:
            self.run.gate.mode = self._mode
            self.run.hooks.mode = self._mode
            recorder = getattr(self.run, "recorder", None)
            if recorder is not None and hasattr(recorder, "change"):
                recorder.change("mode", self._mode)

    def toolbar(self) -> Any:
        model = self.run.agent.llm.model if self.run is not None else self.cfg.model
        return toolbar_text(model, self.mode, *self.stats)

    def cancel_turn(self) -> None:
        if self.current is not None and not self.current.done():
            self.current.cancel()

    def keep_typed(self, text: str) -> None:
        if self.prompting:  # asked while idle: it is the prompt's text
            self.session.default_buffer.insert_text(text.replace("\r", "\n"))
        else:
            self.keys.typed.feed(text.encode())

    def last_key(self) -> float:
        return self.keys.last_key

    @contextlib.asynccontextmanager
    async def asking(self) -> AsyncIterator[None]:
        """The terminal to a permission prompt: from a turn (its spinner and key reader stop)
        or from a background run while the prompt is up (the prompt steps aside)."""
        from prompt_toolkit.application import in_terminal

        busy = self.current is not None and not self.current.done()
        if busy:
            self.renderer.pause()
            self.keys.stop()
        self.renderer.hold()
        try:
            if self.prompting:
                async with in_terminal():
                    yield
            else:
                yield
        finally:
            if busy:
                self.keys.start()
            self.renderer.release()
            if busy:
                self.renderer.resume()

    # -- background work -----------------------------------------------------------------
    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(work)
        self.bg.add(task)
        task.add_done_callback(self.bg.discard)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return task

    def _build(self) -> Any:
        """In a thread: rich, the Run (client, tools, gate, hooks) — the heavy imports."""
        # deferred: ~300 ms (rich, openai, the whole session): loads after the prompt is drawn
        from agent.ui.repl_session import open_session

        run, self.console, self.renderer = open_session(self, self.keys.typed.shown)
        return run

    async def _start(self) -> Any:
        run = await asyncio.to_thread(self._build)  # imports agent.ui.repl_session in the thread
        # deferred: loaded by _build in its thread, never on the loop that draws the prompt
        from agent.ui.repl_session import command_context

        self._at_prompt(self.prompting)  # from now on the renderer prints above the prompt
        self.ctx = await command_context(self, run)
        run.gate.mode = run.hooks.mode = self._mode  # Shift-Tab may have been pressed already
        self.run = run
        await run.start()
        self._spawn(asyncio.to_thread(importlib.import_module, "openai"))
        self._spawn(self._refresh_paths())
        self._refresh_stats()
        if self.prompting:
            buf = self.session.default_buffer
            if buf.text.startswith("/"):  # typed before the commands were loaded
                buf.start_completion(select_first=False)
            self.session.app.invalidate()
        return run

    async def _ready(self) -> None:
        assert self.ready is not None
        try:
            await self.ready
        except Exception as e:
            raise StartError(f"cannot start the session: {e}") from e

    async def _refresh_paths(self) -> None:
        # deferred: ~100 ms (the tool modules): after the prompt is drawn
        from agent.ui.completion import project_paths

        self.paths = await project_paths(self.cfg.cwd)

    def _refresh_stats(self) -> None:
        if self.run is not None:
            self.stats = stats_of(self.run.agent)

    def _at_prompt(self, on: bool) -> None:
        """Events printed while the prompt is up go above it (run_in_terminal)."""
        self.prompting = on
        if self.renderer is not None:
            self.renderer.at_prompt = self._above_prompt if on else None

    def _above_prompt(self, fn: Any) -> None:
        from prompt_toolkit.application import run_in_terminal

        self._spawn(_awaited(run_in_terminal(fn)))

    async def _close(self) -> None:
        for task in list(self.bg):
            task.cancel()
        await asyncio.gather(*self.bg, return_exceptions=True)
        if self.run is not None:
            # deferred: ~300 ms (rich, the session): at the top it would load before the prompt
            from agent.ui.repl_session import close_session

            await close_session(self.run)


async def _awaited(aw: Any) -> Any:
    return await aw
