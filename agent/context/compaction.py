"""Compaction: replace older turns with a model-written working state when the context fills.

The cut is made at a user message (or, when the current turn alone is too big, before an
assistant message whose earlier tool calls are all answered), so no tool call is ever orphaned
and the kept messages — DeepSeek's reasoning_content included — go back verbatim. The result is
[system, summary (user), ack (assistant, when the kept part starts with a user message), kept…].
If the summary cannot be had, the oldest whole turns are dropped instead: never a broken history.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.base.events import Compacted, CompactTrigger, ErrorEvent, Event, Notice, Sink
from agent.base.messages import Message, text_of
from agent.base.record import cap
from agent.base.tokens import Meter, estimate_message
from agent.context.transcript import (
    ACK,
    CAPS,
    DROPPED_PREFIX,
    ENV,
    SUMMARY_PREFIX,
    env_block,
    is_marker,
    render_transcript,
)

if TYPE_CHECKING:
    from agent.config.load import Config

# One request without tools (the summarisation): the reply's text, "" when it had tool calls.
# The caller (agent.core.loop) counts its cost.
# Ask the model without tools: (its text, whether the output limit cut it off)
Ask = Callable[[list[Message], Sink], Awaitable[tuple[str, bool]]]
# The PreCompact hook: (trigger, focus) -> what it adds to the instructions.
PreCompact = Callable[[CompactTrigger, str], Awaitable[list[str]]]
SHORTER = (
    "Your previous summary was cut off at the output limit. Write it again, complete, in "
    "under 400 words."
)
REQUEST_HEADER = "## The request being worked on (the user's words, verbatim)"
IN_TURN_NOTE = (
    "The transcript ends in the middle of the user's latest request, which is kept verbatim "
    "after your summary: in Open todos, say which of its steps are done and which remain."
)


class NoSummary(Exception):
    """The model gave no usable summary."""


@dataclass
class Conversation:
    """What compaction works on, never the Agent itself: the history (rewritten in place), the
    tool schemas and meter that size it, where notices go, how to ask the model, the hook."""

    messages: list[Message]
    schemas: list[dict[str, Any]]
    meter: Meter
    sink: Sink
    ask: Ask
    pre_compact: PreCompact | None = None

    def size(self) -> int:
        return self.meter.now(self.messages, self.schemas)


@dataclass(frozen=True)
class Policy:
    """When to compact and what to keep (settings compactThreshold, compactKeepTurns)."""

    context_limit: int
    threshold: float = 0.8
    keep_turns: int = 2

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        s = cfg.settings
        threshold = float(s.get("compactThreshold", cls.threshold))
        threshold = threshold / 100 if threshold > 1 else threshold  # 80 means 80%
        threshold = min(max(threshold, 0.1), 1.0)
        keep = max(int(s.get("compactKeepTurns", cls.keep_turns)), 1)
        return cls(cfg.provider.context_limit, threshold, keep)

    @property
    def trigger(self) -> int:
        return int(self.context_limit * self.threshold)

    @property
    def keep_budget(self) -> int:
        """Tokens the verbatim tail may use: half the trigger, so a compaction really frees room."""
        return self.trigger // 2


def should_compact(tokens: int, policy: Policy) -> bool:
    """True when a request carrying `tokens` would pass the threshold."""
    return tokens > policy.trigger


def closed(messages: list[Message]) -> bool:
    """Every tool call has its result right after it, and every result has its call."""
    open_ids: set[str] = set()
    for m in messages:
        if m["role"] == "tool":
            if m.get("tool_call_id") not in open_ids:
                return False
            open_ids.discard(m["tool_call_id"])
            continue
        if open_ids:
            return False
        open_ids = {c["id"] for c in m.get("tool_calls") or []}
    return not open_ids


def is_valid(messages: list[Message]) -> bool:
    """A request any provider accepts: system first, calls paired, no assistant run-ons."""
    if not messages or messages[0]["role"] != "system" or not closed(messages):
        return False
    roles = [m["role"] for m in messages[1:]]
    return bool(roles) and roles[0] == "user" and "assistant assistant" not in " ".join(roles)


def split_point(messages: list[Message], keep_turns: int, budget: int | None = None) -> int:
    """Index where the verbatim tail starts (0 = nothing worth compacting).

    Keeps the last `keep_turns` user turns, fewer when they alone exceed `budget` tokens; when
    even the last turn is too big, cuts inside it before an assistant message.
    """
    starts = [i for i in range(1, len(messages)) if messages[i]["role"] == "user"]
    if not starts:
        return 0
    tail = [0] * (len(messages) + 1)
    for i in range(len(messages) - 1, 0, -1):
        tail[i] = tail[i + 1] + estimate_message(messages[i])
    cut = 0
    for k in range(min(max(keep_turns, 1), len(starts)), 0, -1):
        cut = starts[-k]
        if budget is None or tail[cut] <= budget:
            break
    else:
        steps = [
            i
            for i in range(cut + 1, len(messages))
            if messages[i]["role"] == "assistant" and closed(messages[cut:i])
        ]
        cut = next(
            (i for i in steps if budget is None or tail[i] <= budget), steps[-1] if steps else cut
        )
    worth = any(not is_marker(m) for m in messages[1:cut])
    return cut if worth else 0


def open_request(messages: list[Message], cut: int) -> str:
    """The user's request that started the turn `cut` falls inside ("" when `cut` starts a
    turn): compaction keeps it word for word."""
    if cut >= len(messages) or messages[cut]["role"] == "user":
        return ""
    for i in range(cut - 1, 0, -1):
        if messages[i]["role"] == "user" and not is_marker(messages[i]):
            return ENV.sub("", text_of(messages[i])).strip()
    return ""


def rebuild(messages: list[Message], cut: int, summary: str | None) -> list[Message]:
    """[system, summary, ack?, kept…]; `summary` None = the older turns were dropped. A cut
    inside a turn keeps the request that started it verbatim, after the summary."""
    old = messages[1:cut]
    turns = sum(1 for m in old if m["role"] == "user" and not is_marker(m))
    if summary is not None:
        body = f"{SUMMARY_PREFIX}\n\n{env_block(old)}{summary.strip()}"
    else:
        body = (
            f"{DROPPED_PREFIX} {turns} earlier user turn(s) are gone; ask the user if you "
            f"need details from them.\n\n{env_block(old)}"
        ).rstrip()
    request = open_request(messages, cut)
    if request:
        body += f"\n\n{REQUEST_HEADER}\n{cap(request, CAPS['summary'])}"
    out: list[Message] = [messages[0], {"role": "user", "content": body}]
    kept = messages[cut:]
    if kept and kept[0]["role"] == "user":
        out.append({"role": "assistant", "content": ACK})
    return out + kept


class _Quiet:
    """Sink for the summarisation request: show retries, not the summary text."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    def emit(self, event: Event) -> None:
        if isinstance(event, ErrorEvent):
            self.sink.emit(event)


async def _summarise(conv: Conversation, old: list[Message], limit: int, notes: list[str]) -> str:
    """Ask the model (no tools) for the working state; raises when there is none."""

    prompt = (Path(__file__).parents[1] / "prompts" / "compact.md").read_text(encoding="utf-8")
    # about half the window in characters: the request must fit with room for the answer
    user = f"<transcript>\n{render_transcript(old, limit * 2)}\n</transcript>"
    for note in notes:
        user += f"\n\n{note}"
    request: list[Message] = [
        {"role": "system", "content": prompt},
        {"role": "user", "content": user},
    ]
    text, cut = await conv.ask(request, _Quiet(conv.sink))
    if cut:  # a summary cut off would lose its last sections silently: once more, shorter
        request[1]["content"] = f"{user}\n\n{SHORTER}"
        text, cut = await conv.ask(request, _Quiet(conv.sink))
        if cut:
            raise NoSummary("the summary was cut off at the output limit twice")
    if not text.strip():
        raise NoSummary("the model returned no summary")
    return cap(text.strip(), CAPS["summary"])


async def compact(
    conv: Conversation, policy: Policy, focus: str = "", trigger: CompactTrigger = "manual"
) -> bool:
    """Summarise older turns into a working state; True if the history was compacted."""
    msgs = conv.messages
    cut = split_point(msgs, policy.keep_turns, policy.keep_budget)
    if not cut or not is_valid(rebuild(msgs, cut, "")):  # never pay for an unusable summary
        if trigger == "manual":
            conv.sink.emit(Notice("nothing to compact yet: the conversation is short"))
        return False
    pre = conv.size()
    conv.sink.emit(Notice(f"compacting the conversation ({pre:,} tokens, {trigger})"))
    notes = [f"Focus especially on: {focus}"] if focus else []
    if open_request(msgs, cut):
        notes.append(IN_TURN_NOTE)
    if conv.pre_compact is not None:
        notes += await conv.pre_compact(trigger, focus)
    summary: str | None
    try:
        summary = await _summarise(conv, msgs[1:cut], policy.context_limit, notes)
    except Exception as e:  # any failure falls back to dropping whole turns
        conv.sink.emit(Notice(f"summarising failed ({e}); dropping the oldest turns instead"))
        summary = None
    conv.meter.reset()  # the summarisation request's usage is not this history's size
    new = rebuild(msgs, cut, summary)
    msgs[:] = new
    conv.sink.emit(Compacted(trigger, pre, conv.size(), messages=new))
    return True


async def auto_compact(conv: Conversation, policy: Policy | None) -> bool:
    """Compact when the next request would pass the threshold (called before each step)."""
    if policy is None or not should_compact(conv.size(), policy):
        return False
    return await compact(conv, policy, trigger="auto")


async def fit(
    conv: Conversation, policy: Policy | None, limit: int | None
) -> tuple[bool, Policy | None]:
    """The provider said the request does not fit: learn its real window (or, when it did not
    say, take the rejected size as an upper bound) and compact now. Returns whether it
    compacted (not when auto-compaction is off or nothing is left to compact) and the policy
    to keep using."""
    if policy is None:
        return False, None
    sent = conv.size()
    known = limit or int(sent * 0.9)
    if known < policy.context_limit:
        policy = replace(policy, context_limit=known)
        said = f"is {known:,} tokens" if limit else f"is under {sent:,} tokens"
        conv.sink.emit(Notice(f"the model's context window {said}; using that from now on"))
    return await compact(conv, policy, trigger="auto"), policy
