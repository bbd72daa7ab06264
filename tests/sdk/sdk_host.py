"""What the SDK tests share: the options pointing the Claude Agent SDK at the agent, and
readings of what the scripted model was sent (the fixtures are in conftest.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    Message,
    ResultMessage,
    TextBlock,
    query,
)

STEP = 60  # seconds any one exchange with the SDK may take on a loaded machine


@dataclass
class Sdk:
    """What a test needs to point the SDK at the agent: `options(...)` builds the
    ClaudeAgentOptions; `stderr` collects the agent's stderr lines."""

    cli: Path
    project: Path
    env: dict[str, str]
    stderr: list[str] = field(default_factory=list)

    def options(self, **kw: Any) -> ClaudeAgentOptions:
        kw.setdefault("cwd", self.project)
        kw.setdefault("env", dict(self.env))
        kw.setdefault("stderr", self.stderr.append)
        return ClaudeAgentOptions(cli_path=self.cli, **kw)

    async def ask(self, prompt: str, **kw: Any) -> list[Message]:
        """`query(prompt=..., options=...)` run to its end: every message it yielded."""
        out: list[Message] = []
        with anyio.fail_after(STEP):
            async for message in query(prompt=prompt, options=self.options(**kw)):
                out.append(message)
        return out

    def log(self) -> str:
        """The agent's stderr, for assertion messages."""
        return "agent stderr:\n" + "\n".join(self.stderr[-40:])


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    """The tool results one request to the model carried: call id -> content."""
    return {
        m["tool_call_id"]: content_text(m["content"])
        for m in body["messages"]
        if m["role"] == "tool"
    }


def content_text(content: Any) -> str:
    """A message's content as text (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def user_texts(body: dict[str, Any]) -> list[str]:
    return [content_text(m["content"]) for m in body["messages"] if m["role"] == "user"]


CUSTOM = "You are a terse assistant who answers in one word."
PRESET = {"type": "preset", "preset": "claude_code", "append": "Always answer in French."}


def system_option(form: str) -> Any:
    """The SDK's `system_prompt` / `systemPrompt` option: a string, or the preset appended to."""
    return CUSTOM if form == "custom" else PRESET


def assert_system_prompt(form: str, body: dict[str, Any]) -> None:
    """The request's system prompt is what `system_option(form)` asks for."""
    system = system_text(body)
    if form == "custom":
        assert CUSTOM in system
        assert "# Response format" not in system  # agent/prompts/system.md's, replaced
    else:
        assert "Always answer in French." in system and "# Response format" in system
    assert "# Rules" in system  # kept either way


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(content_text(m["content"]) for m in body["messages"] if m["role"] == "system")


def tool_names(body: dict[str, Any]) -> list[str]:
    """The functions a request offered the model."""
    return [t["function"]["name"] for t in body.get("tools") or []]


def blocks(messages: list[Any], kind: type) -> list[Any]:
    """The content blocks of one kind in the assistant messages."""
    return [b for m in messages if isinstance(m, AssistantMessage) for b in m.content
            if isinstance(b, kind)]  # fmt: skip


def said(messages: list[Any]) -> str:
    """What the assistant messages said (their text blocks)."""
    return "".join(b.text for b in blocks(messages, TextBlock))


def final(messages: list[Any]) -> ResultMessage:
    """The ResultMessage that must close the messages of a turn."""
    assert messages and isinstance(messages[-1], ResultMessage), dump(messages)
    return messages[-1]


def dump(messages: list[Any]) -> str:
    """The SDK messages, one a line, for assertion messages."""
    return "\n".join(repr(m)[:400] for m in messages)


async def drain(messages: AsyncIterator[Message]) -> list[Message]:
    """A ClaudeSDKClient's `receive_response()` to its ResultMessage, bounded."""
    out: list[Message] = []
    with anyio.fail_after(STEP):
        async for m in messages:
            out.append(m)
    return out


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
