"""How the program ends: its exit codes, the signals that end it like an exception, and a reader
that stops reading (`agent … | head -1`)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import IO, Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_MAX_TURNS, EXIT_INTERRUPTED = 0, 1, 2, 53, 130
# a spending cap stopped the run before a request (--max-budget-usd, --max-tokens-total); the
# final answer did not match --output-schema, also after its repair turn
EXIT_MAX_BUDGET, EXIT_MAX_TOKENS, EXIT_OUTPUT_SCHEMA = 54, 55, 56
# Typed alone at the REPL's prompt, these end it like /exit (never sent to the model).
EXIT_WORDS = frozenset({"exit", "quit", ":q", ":q!", ":wq"})
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell shows for a writer whose reader went away


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
