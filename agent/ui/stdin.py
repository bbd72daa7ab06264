"""The prompt of a run from its words and piped stdin: None opens the REPL. Light on purpose:
the command line reads it before it knows which front end to load."""

from __future__ import annotations

import select
import sys

STDIN_WAIT = 3.0  # seconds to wait for piped context when a prompt is also given


def _read_stdin() -> str:
    data = sys.stdin.buffer.read()
    return data.decode("utf-8", errors="replace")


def read_prompt(words: list[str]) -> str | None:
    """The prompt from arguments and/or stdin; None means "open the REPL"."""
    if words == ["-"]:
        return _read_stdin()
    tty = sys.stdin is None or sys.stdin.closed or sys.stdin.isatty()
    if not words:
        return None if tty else _read_stdin()
    wait = len(words) > 1 and words[-1] == "-"  # `slow | agent "review this" -`: wait for it
    prompt = " ".join(words[:-1] if wait else words)
    if tty:
        return prompt
    try:  # a prompt plus piped data: attach it, but never hang on a silent open pipe
        ready, _, _ = select.select([sys.stdin], [], [], None if wait else STDIN_WAIT)
    except (OSError, ValueError):
        ready = []
    if not ready:
        print(
            f"agent: nothing arrived on stdin within {STDIN_WAIT:g} s; going on without it "
            '(add `-` to wait for it: cmd | agent "question" -)',
            file=sys.stderr,
        )
    context = _read_stdin() if ready else ""
    if context.strip():
        return f"{prompt}\n\n<stdin>\n{context.rstrip()}\n</stdin>"
    return prompt
