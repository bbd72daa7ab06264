"""`session/load`: a saved session's history sent back to the editor as the updates it would
have seen — the user's messages, the answers and reasoning, each tool call with its result."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from acp import (
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_user_message_text,
)
from acp.schema import ToolCallProgress, ToolCallStart

from agent.base.messages import Message, text_of
from agent.base.record import Tool
from agent.editor.updates import OUTPUT_SHOWN, kind_of
from agent.ui.render import summarize_args

# What the agent added to the user's words (the first message's blocks, attached files).
_ADDED = re.compile(r"<(env|repo-map|skills)>\n.*?\n</\1>\s*", re.S)


def user_words(text: str) -> str:
    return _ADDED.sub("", text).strip()


def updates(history: list[Message], tools: dict[str, Tool]) -> Iterator[Any]:
    """The session updates that show `history` (no system prompt) in the editor."""
    for m in history:
        role = m.get("role")
        if role == "user":
            words = user_words(text_of(m))
            if words:
                yield update_user_message_text(words)
        elif role == "assistant":
            reasoning = m.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                yield update_agent_thought_text(reasoning)
            said = text_of(m)
            if said:
                yield update_agent_message_text(said)
            for call in m.get("tool_calls") or []:
                yield _call(call, tools)
        elif role == "tool":
            call_id = str(m.get("tool_call_id", ""))
            output = text_of(m)
            yield ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=call_id,
                status="failed" if output.startswith("Error:") else "completed",
                content=[tool_content(text_block(output[:OUTPUT_SHOWN]))],
            )


def _call(call: Any, tools: dict[str, Tool]) -> ToolCallStart:
    fn = call.get("function") or {}
    name = str(fn.get("name", "tool"))
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        args = {}
    args = args if isinstance(args, dict) else {}
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=str(call.get("id", "")),
        title=f"{name} {summarize_args(args)}",
        kind=kind_of(tools.get(name)),  # type: ignore[arg-type]
        status="completed",
        raw_input=args,
    )
