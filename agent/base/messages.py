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


IMAGE_TOKENS = 1_000  # what one image part is counted as (providers bill ~85-1,600 by size)


def text_of(m: Message) -> str:
    """A message's text: its content, or the text parts of a list with each image as
    `[image]` (what transcripts, reports and estimates read; never the image's data)."""
    content = m.get("content")
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) if p.get("type") == "text" else "[image]"
            for p in content
            if isinstance(p, dict)
        )
    return str(content or "")


def images_in(m: Message) -> int:
    content = m.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")


def image_message(note: str, urls: list[str]) -> Message:
    """A user message carrying images a tool read (tool messages take text only)."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": note}]
    parts += [{"type": "image_url", "image_url": {"url": u}} for u in urls]
    return {"role": "user", "content": parts}
