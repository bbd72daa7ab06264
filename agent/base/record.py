"""The tool record and what passes through the dispatch pipeline: a tool, its context and
result, a parsed call, and the middleware signature every layer implements (seam 1).

The vocabulary of every layer above it; it imports nothing of the project at run time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.base.events import Sink

RESULT_CAP = 12_000  # characters of any tool result that may enter the context


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: text for the model, an error flag, an optional terminal summary."""

    output: str
    is_error: bool = False
    display: str | None = None  # one-line summary (or a diff) for the terminal, never sent


@dataclass
class ToolContext:
    """What a running tool may use: the workspace, the session id and an event sink."""

    cwd: Path
    session_id: str = ""
    sink: Sink | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # per-session state tools may keep


Run = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    """One model-facing tool: name, description, JSON Schema parameters, read-only flag, run."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Run
    read_only: bool = False

    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def error(what: str, *, can_retry: bool, hint: str = "") -> ToolResult:
    """An error result the model can act on: what failed, how to fix it, whether to retry."""
    text = f"Error: {what}"
    if hint:
        text += f"\nHint: {hint}"
    text += f"\ncan_retry: {'true' if can_retry else 'false'}"
    return ToolResult(text, is_error=True)


def cap(text: str, limit: int = RESULT_CAP, *, how_to_see_more: str = "") -> str:
    """Keep the head and tail of `text` within `limit` chars, with a marker saying what was cut."""
    if len(text) <= limit:
        return text
    more = f" {how_to_see_more}" if how_to_see_more else ""
    # The marker counts against the limit, so a capped text is never re-capped downstream.
    room = max(limit - len(f"\n[... {len(text)} characters cut ...{more}]\n"), 0)
    marker = f"\n[... {len(text) - room} characters cut ...{more}]\n"
    head = (room * 2) // 3
    return text[:head] + marker + text[len(text) - (room - head) :]


@dataclass
class Call:
    """A tool call ready to run: parsed arguments, or the reason they could not be parsed."""

    id: str
    name: str
    args: dict[str, Any]
    raw: str = ""
    problem: str = ""
    meta: dict[str, Any] = field(default_factory=dict)  # decision source etc., for audit


Next = Callable[[Call, ToolContext], Awaitable[ToolResult]]
Middleware = Callable[[Call, ToolContext, Next], Awaitable[ToolResult]]
