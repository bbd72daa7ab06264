"""After the model's last reply of a turn: a Stop hook that blocks, or checks that fail after
the turn's edits (agent.hooks.checks), send their reason back as a new user message and the
turn goes on — a few times each, then it stops with a notice."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.base.events import Notice, Sink, TurnEnd
from agent.hooks.checks import Checks
from agent.hooks.hooks import Hooks

STOP_HOOK_LIMIT = 3  # times a Stop hook may send the model back to work in one turn


async def send_back(
    end: TurnEnd,
    hooks: Hooks | None,
    checks: Checks | None,
    sink: Sink,
    again: Callable[[str], Awaitable[TurnEnd]],
) -> TurnEnd:
    """The turn's end, after as many rounds as the hooks and checks asked for (`again` adds
    their reason as a user message and runs the model's steps)."""
    blocks = rounds = 0
    while end.subtype == "success":
        out = await hooks.stop(end.text, blocks > 0) if hooks is not None else None
        if out is not None and out.blocked:
            if blocks >= STOP_HOOK_LIMIT:
                sink.emit(Notice(f"a Stop hook blocked {blocks} times; stopping anyway"))
                break
            blocks, why = blocks + 1, out.reason or "Continue."
        else:
            why = await checks.after_turn() if checks is not None else ""
            if not why or checks is None:
                break
            if rounds >= checks.rounds:
                sink.emit(Notice(f"checks still fail after {rounds} rounds; stopping"))
                break
            rounds += 1
        end = await again(why)
    return end
