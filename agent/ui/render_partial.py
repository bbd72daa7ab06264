"""`--include-partial-messages` in stream-json: each assistant message as it streams, in Claude
Code's `stream_event` lines — the Anthropic streaming events (message_start,
content_block_start / _delta / _stop, message_delta, message_stop) built from the reply's
reasoning and text deltas as they come, and its tool calls once the reply is whole (the loop
has them only then). A retried reply closes what was streamed of it (message_stop) and starts
over."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent.base.events import AssistantMessage, ErrorEvent, Event, ReasoningDelta, TextDelta
from agent.base.ids import uuid4

Line = dict[str, Any]
# our delta kind -> (the block's type, the field its text goes in, the delta's type)
KINDS = {
    "text": ("text", "text", "text_delta"),
    "thinking": ("thinking", "thinking", "thinking_delta"),
}


class Partial:
    """The stream events of one session's assistant messages, written with `write`."""

    def __init__(self, write: Callable[[Line], None], session_id: Callable[[], str]) -> None:
        self.write, self.session_id = write, session_id
        self.message_id = ""  # the open message's ("" when none is open)
        self.index = -1  # the open content block's (-1 before the first)
        self.block = ""  # the open block's kind: text | thinking ("" when none is open)
        self.streamed: set[str] = set()  # the kinds the open message streamed

    def see(self, event: Event, next_id: str, model: str) -> None:
        """Stream events for `event`; `next_id`: the id the message being streamed will have."""
        if isinstance(event, TextDelta) and event.text:
            self._delta("text", event.text, next_id, model)
        elif isinstance(event, ReasoningDelta) and event.text:
            self._delta("thinking", event.text, next_id, model)
        elif isinstance(event, ErrorEvent) and self.message_id:  # the reply starts over
            self._stop_block()
            self._event({"type": "message_stop"})
            self._reset()

    def close(self, event: AssistantMessage, stop: str, message_id: str, model: str) -> None:
        """The rest of the message (what was not streamed: its tool calls), then its end."""
        self._open(message_id, model)
        self._stop_block()
        for kind, text in (("thinking", event.reasoning), ("text", event.text)):
            if text and kind not in self.streamed:  # a reply that came whole (a tool's answer)
                self._delta(kind, text, message_id, model)
                self._stop_block()
        for call in event.tool_calls:
            self.index += 1
            block = {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}}
            self._event(
                {"type": "content_block_start", "index": self.index, "content_block": block}
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call["args"])}
            self._event({"type": "content_block_delta", "index": self.index, "delta": delta})
            self._event({"type": "content_block_stop", "index": self.index})
        usage = {"output_tokens": (event.usage or {}).get("output_tokens", 0)}
        end = {"stop_reason": stop, "stop_sequence": None}
        self._event({"type": "message_delta", "delta": end, "usage": usage})
        self._event({"type": "message_stop"})
        self._reset()

    def _delta(self, kind: str, text: str, message_id: str, model: str) -> None:
        self._open(message_id, model)
        block_type, field, delta_type = KINDS[kind]
        if self.block != kind:
            self._stop_block()
            self.index += 1
            self.block = kind
            block: Line = {"type": block_type, field: ""}
            if kind == "thinking":
                block["signature"] = ""
            self._event(
                {"type": "content_block_start", "index": self.index, "content_block": block}
            )
        self.streamed.add(kind)
        delta = {"type": delta_type, field: text}
        self._event({"type": "content_block_delta", "index": self.index, "delta": delta})

    def _open(self, message_id: str, model: str) -> None:
        if self.message_id:
            return
        self.message_id = message_id
        message: Line = {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }  # fmt: skip
        self._event({"type": "message_start", "message": message})

    def _stop_block(self) -> None:
        if self.block:
            self._event({"type": "content_block_stop", "index": self.index})
            self.block = ""

    def _reset(self) -> None:
        self.message_id, self.index, self.block = "", -1, ""
        self.streamed = set()

    def _event(self, event: Line) -> None:
        self.write(
            {
                "type": "stream_event",
                "uuid": uuid4(),
                "session_id": self.session_id(),
                "event": event,
                "parent_tool_use_id": None,
            }
        )
