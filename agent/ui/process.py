"""How the program ends: its exit codes, the signals that end it (like an exception, or, while
a session's event loop runs, by cancelling the session), and a reader that stops reading
(`agent … | head -1`)."""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import IO, TYPE_CHECKING, Any, NoReturn

from agent.base.words import wrapped

if TYPE_CHECKING:
    from asyncio import Future

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_MAX_TURNS, EXIT_INTERRUPTED = 0, 1, 2, 53, 130
# a spending cap stopped the run before a request (--max-budget-usd, --max-tokens-total); the
# final answer did not match --output-schema, also after its repair turn
EXIT_MAX_BUDGET, EXIT_MAX_TOKENS, EXIT_OUTPUT_SCHEMA = 54, 55, 56
# Typed alone at the REPL's prompt, these end it like /exit (never sent to the model).
EXIT_WORDS = frozenset({"exit", "quit", ":q", ":q!", ":wq"})
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell shows for a writer whose reader went away
# Every exit code, in a word (--help) and what it means: the reference
# (docs/reference/exit-codes.md) and the --help line are made from it
EXIT_CODES = (
    (EXIT_OK, "ok", "success"),
    (EXIT_FAIL, "run failed", "the run failed: an API error after its retries, a fatal error"),
    (EXIT_USAGE, "usage/config", "bad usage or configuration: an unknown flag, an invalid "
                 "settings file, no API key in a one-shot run"),
    (EXIT_MAX_TURNS, "turn limit", "the turn limit was reached (--max-turns, maxTurns)"),
    (EXIT_MAX_BUDGET, "budget (USD)", "stopped by --max-budget-usd before a request"),
    (EXIT_MAX_TOKENS, "token budget", "stopped by --max-tokens-total before a request"),
    (EXIT_OUTPUT_SCHEMA, "answer not matching --output-schema", "the answer does not match "
                         "--output-schema, also after its repair turn"),
    (129, "hangup", "SIGHUP (a closed terminal): MCP servers, background commands and a "
          "--worktree are shut down or settled first"),
    (EXIT_INTERRUPTED, "interrupted", "a one-shot turn interrupted (Ctrl-C, SIGINT, SIGTERM "
                       "during a turn): the session is saved"),
    (EXIT_PIPE, "output closed", "stdout's reader went away (`agent … | head -1`): stopped as "
                "if interrupted, the session saved, no traceback"),
    (143, "terminated", "SIGTERM outside a one-shot turn (the REPL, MCP servers starting): shut "
          "down as for 129"),
)  # fmt: skip


def exits_said(width: int) -> str:
    """--help's paragraph on the REPL and the exit codes, in a word each, `width` wide."""
    codes = ", ".join(f"{code} {word}" for code, word, _ in EXIT_CODES)
    return wrapped(f"With no prompt and a terminal, opens the REPL. Exit codes: {codes}.", width)


TERMINATING: list[int] = []  # the signal that is ending the program, once one has come


def exit_on_signals() -> None:
    """SIGTERM and SIGHUP (a closed terminal) end the program like an exception would: every
    `finally` and exit handler runs, so MCP servers, background shells and a --worktree are
    shut down or settled instead of being orphaned. The exit code is 128 + the signal."""
    import signal

    def leave(signum: int, frame: Any) -> None:
        signal.signal(signum, signal.SIG_IGN)  # a second one must not interrupt the cleanup
        TERMINATING.append(signum)  # a cancelled turn is then the exit, not an Esc
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, leave)


@contextlib.contextmanager
def signals_cancel(task: Future[Any]) -> Iterator[None]:
    """While the block runs on `task`'s event loop, SIGTERM and SIGHUP cancel `task` through
    that loop (TERMINATING says which came; a second one is ignored) instead of raising
    SystemExit wherever the program happens to be. Raised in the middle of the loop, that
    exception leaves every task half-run for the clean-up to cancel, the standard library's
    own among them: a subprocess whose pipes were still being connected then never finishes
    closing and the program never exits (CPython gh-125502). Cancelling the one task lets
    everything unwind in order: a starting command is killed, every `finally` runs."""
    import signal

    loop = task.get_loop()

    def stop(signum: int) -> None:
        if not TERMINATING:
            TERMINATING.append(signum)
            task.cancel()

    before: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        handler = signal.getsignal(sig)
        handler = signal.SIG_DFL if handler is None else handler  # None: set outside Python
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not main
            loop.add_signal_handler(sig, stop, sig)
            before[sig] = handler
    try:
        yield
    finally:
        for number, handler in before.items():
            loop.remove_signal_handler(number)  # which leaves SIG_DFL: put back what was there
            signal.signal(number, signal.SIG_IGN if TERMINATING else handler)


def run_session(main: Coroutine[Any, Any, int]) -> int:
    """`asyncio.run(main)` for an interactive session: SIGTERM and SIGHUP cancel `main` (see
    signals_cancel) and, once it has unwound, the exit code is 128 + the signal."""
    import asyncio  # deferred: ~40 ms: cli.py imports this module, --version included

    async def guarded() -> int:
        task, code = asyncio.ensure_future(main), EXIT_FAIL
        with signals_cancel(task):
            try:
                code = await task
            except asyncio.CancelledError:
                if not TERMINATING:
                    raise
        return 128 + TERMINATING[0] if TERMINATING else code

    return asyncio.run(guarded())


class PipeOut(io.TextIOBase):
    """stdout for a one-shot run that survives its reader leaving: the first write to a closed
    pipe points stdout at /dev/null (so nothing fails again, not even the flush at exit) and
    calls `on_broken` — the run stops as if interrupted, its session saved — and the program
    exits with EXIT_PIPE, without a traceback."""

    def __init__(self, out: IO[str]) -> None:
        super().__init__()
        self.out = out
        self.broken = False
        self.on_broken: Callable[[], object] | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self.out.write(text)
            except (BrokenPipeError, ValueError):
                self._close()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.out.flush()
            except (BrokenPipeError, ValueError):
                self._close()

    def isatty(self) -> bool:
        return not self.broken and self.out.isatty()

    def fileno(self) -> int:
        return self.out.fileno()

    def _close(self) -> None:
        self.broken = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.out.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass
        if self.on_broken is not None:
            self.on_broken()


def leave(code: int) -> NoReturn:
    """End the process once the run is over: output flushed, exit handlers run (background
    processes killed, MCP servers closed, the sandbox's placeholders swept), then no interpreter
    teardown. Freeing every object of a session and its libraries one by one took ~110 ms of
    a one-shot answer's time after its last byte; nothing in it is kept (the session file and
    the audit log are written as they go, the repository map's cache as each batch is read)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone, a stream closed
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)
