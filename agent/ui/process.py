"""How the program ends: its exit codes, and the signals that end it like an exception."""

from __future__ import annotations

from typing import Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_MAX_TURNS, EXIT_INTERRUPTED = 0, 1, 2, 53, 130


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
