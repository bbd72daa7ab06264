"""Chat messages as they go over the wire and into the session: the names providers accept."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict


class FunctionCall(TypedDict):
    name: str
    arguments: str  # JSON text, as the model wrote it


class ToolCallEntry(TypedDict):
    """An assistant message's tool call, as chat-completions APIs take it back."""

    id: str
    type: str  # "function"
    function: FunctionCall


class Message(TypedDict, total=False):
    """One chat message of the history (every message has a role)."""

    role: str  # system | user | assistant | tool
    content: Any  # text, a list of content parts, or None (an assistant message with calls)
    tool_calls: list[ToolCallEntry]
    tool_call_id: str  # a tool message: the call it answers
    reasoning_content: str  # DeepSeek's reasoning, sent back where the provider needs it
    name: str


@dataclass
class ToolCall:
    """One tool call of a model reply, as streamed (or recovered from text): its arguments are
    the JSON text the model wrote, parsed later by dispatch."""

    id: str
    name: str
    arguments: str = ""


_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def wire_name(name: str) -> str:
    """The tool name to keep in the history: providers refuse the whole request when an old
    call's name is empty or not `[A-Za-z0-9_-]{1,64}` (a model may send one once)."""
    if _NAME.fullmatch(name):
        return name
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "unnamed_tool"
