"""stream-json as the Claude Agent SDK reads it (issue 44, item 3): every kind of line a run
writes goes through the real Python SDK's parser (`claude_agent_sdk`, the test extra) and
comes out as the message type a program written against the SDK expects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, error, text, tool_calls
from helpers import run_agent

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk._internal.message_parser import parse_message  # noqa: E402


def parsed(out: str) -> list[Any]:
    return [parse_message(json.loads(line)) for line in out.splitlines()]


def test_every_message_of_a_run_parses_as_the_sdk_expects(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(
        error(503, "busy", headers={"Retry-After": "0"}),
        tool_calls(
            [("read_file", {"path": "notes.txt"}), ("write_file", {"path": "x", "content": "y"})],
            text="Let me read.",
            reasoning="I should look.",
        ),
        text("The word is mango.", reasoning="Found it.", pieces=3, finish="length"),
    )
    r = run_agent(fake_env, project, "--output-format", "stream-json", "--verbose",
                  "--include-partial-messages", "word?", timeout=60)  # fmt: skip
    assert r.returncode == 0, r.stderr
    messages = parsed(r.stdout)
    kinds = [type(m).__name__ for m in messages if not isinstance(m, sdk.StreamEvent)]
    assert kinds == [
        "SystemMessage",  # init
        "SystemMessage",  # api_retry
        "AssistantMessage",
        "UserMessage",  # the tools' results: read_file's, and write_file denied (a one-shot
        "UserMessage",  # run never asks)
        "AssistantMessage",
        "SystemMessage",  # notice: cut at the output token limit
        "ResultMessage",
    ]
    init, retry = messages[0], messages[1]
    assert init.subtype == "init" and init.data["permissionMode"] == "default"
    assert {"cwd", "tools", "mcp_servers", "model", "apiKeySource", "slash_commands"} <= set(
        init.data
    )
    assert retry.subtype == "api_retry"
    first, second = [m for m in messages if isinstance(m, sdk.AssistantMessage)]
    assert [type(b).__name__ for b in first.content] == [
        "ThinkingBlock", "TextBlock", "ToolUseBlock", "ToolUseBlock",
    ]  # fmt: skip
    assert first.content[0].thinking == "I should look." and first.stop_reason == "tool_use"
    assert first.content[2].input == {"path": "notes.txt"} and first.model == "fake-model"
    results = {b.tool_use_id: b for m in messages if isinstance(m, sdk.UserMessage)
               for b in m.content}  # fmt: skip
    read, write = (results[b.id] for b in first.content[2:])
    assert isinstance(read, sdk.ToolResultBlock) and "mango" in read.content
    assert write.is_error and not read.is_error
    assert [type(b).__name__ for b in second.content] == ["ThinkingBlock", "TextBlock"]
    end = messages[-1]
    assert (end.subtype, end.is_error, end.result) == ("success", False, "The word is mango.")
    assert end.session_id == init.data["session_id"] and end.num_turns == 2
    assert end.total_cost_usd is None and end.usage["input_tokens"] > 0
    assert end.permission_denials == [
        {"tool_name": "write_file", "tool_use_id": first.content[3].id,
         "tool_input": {"path": "x", "content": "y"}},
    ]  # fmt: skip
    assert all(json.loads(line)["uuid"] for line in r.stdout.splitlines())


def test_partial_messages_are_the_anthropic_stream_events(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(
        tool_calls([("glob", {"pattern": "*.txt"})], text="Looking.", reasoning="Hm.", pieces=2),
        text("Done here.", pieces=3),
        text("plain"),
    )
    r = run_agent(fake_env, project, "--output-format", "stream-json",
                  "--include-partial-messages", "list", timeout=60)  # fmt: skip
    assert r.returncode == 0, r.stderr
    messages = parsed(r.stdout)
    i = next(n for n, m in enumerate(messages) if isinstance(m, sdk.AssistantMessage))
    events = [m.event for m in messages[1:i]]
    assert all(isinstance(m, sdk.StreamEvent) for m in messages[1:i])
    assert [e["type"] for e in events] == [
        "message_start",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_stop",  # the tool call
        "message_delta", "message_stop",
    ]  # fmt: skip
    assert events[0]["message"]["id"] == messages[i].message_id
    blocks = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert blocks[0] == {"type": "thinking", "thinking": "", "signature": ""}
    assert blocks[1] == {"type": "text", "text": ""}
    assert blocks[2]["type"] == "tool_use" and blocks[2]["name"] == "glob"
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert "".join(d.get("thinking", "") for d in deltas) == "Hm."
    assert "".join(d.get("text", "") for d in deltas) == "Looking."
    assert json.loads(deltas[-1]["partial_json"]) == {"pattern": "*.txt"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    streamed = "".join(
        m.event["delta"].get("text", "")
        for m in messages[i + 1 :]
        if isinstance(m, sdk.StreamEvent) and m.event["type"] == "content_block_delta"
    )
    assert streamed == "Done here."
    assert all(m.session_id == messages[0].data["session_id"] for m in messages[1:i])
    plain = run_agent(fake_env, project, "--output-format", "stream-json", "q", timeout=60)
    assert '"stream_event"' not in plain.stdout  # only when asked


def test_a_run_that_fails_at_start_ends_with_a_result_the_sdk_reads(
    fake_env: dict[str, str], project: Path
) -> None:
    r = run_agent(fake_env, project, "--output-format", "stream-json", "--from-the-future", "q")
    assert r.returncode == 2
    [end] = parsed(r.stdout)
    assert isinstance(end, sdk.ResultMessage) and end.is_error
    assert end.subtype == "error_during_execution"
