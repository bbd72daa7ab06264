"""The loop's bookkeeping: one turn's state, what the user saw of a reply, and what happens
after a step (Next: AGAIN, RETRY, or Done with the turn's end).

A turn that ends without a reply (interrupted, a failed request, the step limit) still leaves
an assistant message after the user's message or the tool results: strict chat templates
(Mistral, Gemma on vLLM/llama.cpp) reject two user messages in a row, or a user message right
after tool results. That message keeps the text the user already saw, and says why it stops.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.base.events import ErrorEvent, Event, Sink, TextDelta, TurnEnd
from agent.base.messages import FunctionCall, Message, ToolCallEntry, wire_name
from agent.base.record import Call

INTERRUPTED_MARK = "[interrupted by the user]"
INTERRUPTED = "Error: interrupted by the user before this tool call finished.\ncan_retry: false"


class Seen:
    """The sink a request streams to: passes every event on, and keeps the text shown of the
    reply being streamed (a retried attempt starts over, as the history never holds it)."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.text = ""

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.text += event.text
        elif isinstance(event, ErrorEvent) and event.retrying:
            self.text = ""
        self.sink.emit(event)


def no_reply(seen: str, mark: str) -> Message:
    """The assistant message closing a turn that got no (complete) reply."""
    text = seen.rstrip()
    return {"role": "assistant", "content": f"{text}\n\n{mark}" if text else mark}


def mark(end: TurnEnd) -> str:
    """Why a turn has no reply, as the placeholder reply says it."""
    if end.subtype == "error_max_turns":
        return f"[stopped: {end.error}]"
    return f"[no reply: {end.error or end.subtype}]"


def needs_reply(messages: list[Message]) -> bool:
    """The history ends with a user message or tool results: an assistant message must follow
    before the next user message."""
    return len(messages) > 1 and messages[-1].get("role") in ("user", "tool")


REPEAT_LIMIT = 3  # identical calls in one turn before the model is told to change course
STUCK_LIMIT = 3  # steps in a row of nothing but refused repeats: the model is in a loop


@dataclass
class TurnState:
    steps: int = 0
    last_text: str = ""
    recoveries: int = 0
    refit: int = -1  # the step retried after the provider said the context was full
    oversized: bool = False  # the request cannot fit even compacted: the turn is dropped
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    pending: list[Call] = field(default_factory=list)
    done: dict[str, Any] = field(default_factory=dict)
    shown: Seen | None = None  # the request in flight, and the text it has shown
    final: str = ""  # a tool ended the turn with this reply (ToolResult.final)
    stuck: int = 0  # steps in a row made only of calls refused as repeats

    def note_repeats(self, calls: list[Call]) -> None:
        """A call made more than REPEAT_LIMIT times this turn does not run again: the model is
        told to use the earlier result or change course. `stuck` counts the steps in a row
        that were nothing but such calls (a loop: the turn ends at STUCK_LIMIT)."""
        refused = 0
        for c in calls:
            key = (c.name, c.raw)
            self.seen[key] = self.seen.get(key, 0) + 1
            if self.seen[key] > REPEAT_LIMIT and not c.problem:
                refused += 1
                c.problem = (
                    f"this exact {c.name} call was already made {REPEAT_LIMIT} times this turn "
                    "with the same arguments; use its earlier result or try something different"
                )
        self.stuck = self.stuck + 1 if calls and refused == len(calls) else 0

    def looping(self) -> TurnEnd | None:
        """The end of a turn whose model only repeats itself (None while it does not)."""
        if self.stuck < STUCK_LIMIT:
            return None
        why = (
            f"the model made only calls it had already made {REPEAT_LIMIT} times, "
            f"{STUCK_LIMIT} steps in a row: stopped (a loop)"
        )
        return TurnEnd("error_max_turns", self.last_text, self.steps, why)


def wire(call: Call) -> str:
    """Arguments to keep in the history: the model's own text when it is valid JSON."""
    try:
        json.loads(call.raw or "{}")
    except ValueError:
        return json.dumps(call.args)  # providers may reject invalid JSON in the history
    return call.raw or "{}"


@dataclass(frozen=True)
class Done:
    """The turn ends here, as `end` says."""

    end: TurnEnd


class _Again:
    """Ask the model again: the next step (the reply's tools ran, or it was told what to fix)."""


class _Retry:
    """Send this step's request again: the history was made to fit the server's window."""


AGAIN, RETRY = _Again(), _Retry()
Next = _Again | _Retry | Done  # what happens after a step


def wire_calls(calls: list[Call]) -> list[ToolCallEntry]:
    """An assistant message's `tool_calls`, as the API takes them back."""
    return [_wire_call(c) for c in calls]


def _wire_call(c: Call) -> ToolCallEntry:
    fn: FunctionCall = {"name": wire_name(c.name), "arguments": wire(c)}
    return {"id": c.id, "type": "function", "function": fn}
