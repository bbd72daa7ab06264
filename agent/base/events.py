"""Events the loop emits, and the Sink protocol every observer implements.

The loop never prints and never writes files: renderers, the session store and the JSON writers
are sinks that receive these events.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from agent.base.failure import Failure
from agent.base.messages import Message
from agent.config.frozen import Frozen, field

# Why the conversation was made smaller: by itself near the window's end (auto), by /compact
# (manual), or old tool results replaced by stubs (clear: agent.context.clearing)
CompactTrigger = Literal["auto", "manual", "clear"]
# How a turn ended, as the JSON result's `subtype` says it (SPEC: output formats)
EndSubtype = Literal[
    "success", "error_max_turns", "error_during_execution", "error_interrupted",
    "error_max_budget_usd", "error_max_tokens_total", "error_output_schema",
]  # fmt: skip


class TextDelta(Frozen):
    text: str


class ReasoningDelta(Frozen):
    text: str


class AssistantMessage(Frozen):
    """One complete assistant reply, as it was added to the history."""

    text: str
    reasoning: str
    tool_calls: list[dict[str, Any]]  # [{"id", "name", "args"}]
    usage: dict[str, int] | None = None
    finish_reason: str = ""  # "length": the output token limit cut it off


class TurnStart(Frozen):
    """A user turn begins; `msg_index` is the history length before its message; `words` are
    the user's own (what pickers show: no environment block, map, hook context or `!cmd`
    transcript the message carries; "" = the prompt itself)."""

    prompt: str
    msg_index: int
    words: str = ""


class MessageAdded(Frozen):
    """A message was appended to the history (the session store records it)."""

    message: Message


class ToolStart(Frozen):
    id: str
    name: str
    args: dict[str, Any]


class ToolEnd(Frozen):
    id: str
    name: str
    args: dict[str, Any]
    output: str
    is_error: bool
    duration_ms: int
    display: str | None = None
    failure: Failure | None = None  # why it failed (kind, the exception): --verbose shows it
    shown: str = ""  # output to show under the summary line (ToolResult.shown)


class PermissionDenied(Frozen):
    id: str
    name: str
    args: dict[str, Any]
    reason: str


class Usage(Frozen):
    """Token usage of one request, as the API reported it."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None  # USD at the model's price; None when the price is unknown


class ErrorEvent(Frozen):
    """A failed request; `retrying` when it is sent again. `discard` when text or reasoning
    deltas of the failed attempt were already emitted: the retry streams the reply from its
    start, so renderers drop (or mark as abandoned) what they showed of it."""

    message: str
    retrying: bool
    discard: bool = False


class Notice(Frozen):
    """A warning or progress line for the user (stderr in one-shot mode)."""

    message: str


class SubagentProgress(Notice):
    """A subagent's one-line progress (started, a tool call, done); a Notice to plain sinks."""

    task_id: str = ""
    agent: str = ""  # the definition's name, or "" for the default subagent
    kind: str = ""  # started | tool_call | tool_error | done | failed
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)


class TodoChanged(Frozen):
    """The session's todo list changed; `items` is the whole new list."""

    items: list[dict[str, Any]]


class Compacted(Frozen):
    """The history was compacted or its old tool results cleared; `messages` is the new history
    (the session store records it)."""

    trigger: CompactTrigger
    pre_tokens: int
    post_tokens: int
    messages: list[Message] | None = None
    cleared: int = 0  # tool results replaced by stubs (trigger "clear")

    def text(self) -> str:
        """One line for the terminal."""
        what = "compacted context"
        if self.trigger == "clear":
            what = f"cleared {self.cleared} old tool result{'s' * (self.cleared != 1)}"
        return f"{what}: {self.pre_tokens:,} → {self.post_tokens:,} tokens"


class HistoryReplaced(Frozen):
    """The loop replaced the conversation (without its system prompt): a turn too large to
    send was taken back out. The session store records it like a rewind."""

    messages: list[Message]
    reason: str


class TurnEnd(Frozen):
    """The loop finished a user turn (one or more model steps)."""

    subtype: EndSubtype
    text: str
    num_turns: int
    error: str | None = None
    truncated: bool = False  # the last reply was cut at the output token limit


Event = (
    TextDelta
    | ReasoningDelta
    | AssistantMessage
    | MessageAdded
    | TurnStart
    | ToolStart
    | ToolEnd
    | PermissionDenied
    | Usage
    | ErrorEvent
    | Notice
    | Compacted
    | HistoryReplaced
    | TurnEnd
    | TodoChanged
)


class Sink(Protocol):
    def emit(self, event: Event) -> None: ...


class FanOut:
    """Sends every event to each sink in order."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = list(sinks)

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink.emit(event)


class Recorder:
    """A sink that keeps every event (tests, subagents, benchmarks)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
