"""The Python Claude Agent SDK's `query()` with `cli_path` pointing at `agent` (issue 44): a
text answer the SDK's parser takes whole (thinking included), the system prompt options, tool
calls approved and denied by `can_use_tool`, a PreToolUse hook callback that blocks, an
in-process SDK MCP tool, a resumed session, and partial messages when asked."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    StreamEvent,
    SystemMessage,
    ThinkingBlock,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    tool,
)
from fake_openai import FakeOpenAI, text, tool_calls
from sdk_host import (
    Sdk,
    assert_system_prompt,
    blocks,
    dump,
    final,
    said,
    system_option,
    tool_names,
    tool_results,
    user_texts,
)

pytestmark = pytest.mark.timeout(180)  # each exchange is bounded by STEP (60 s) on its own


async def test_a_text_answer_with_its_thinking(fake: FakeOpenAI, sdk: Sdk) -> None:
    fake.script(text("Hello from the agent.", pieces=3, reasoning="Let me think."))
    messages = await sdk.ask("say hello")
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert messages[0] is init, dump(messages)
    # the SDK's parser requires `signature` on a thinking block (MessageParseError without)
    [thinking] = blocks(messages, ThinkingBlock)
    assert thinking.thinking == "Let me think." and isinstance(thinking.signature, str)
    assert said(messages) == "Hello from the agent."
    result = final(messages)
    assert result.subtype == "success" and not result.is_error, sdk.log()
    assert result.result == "Hello from the agent."
    assert result.session_id and result.session_id == init.data["session_id"]
    assert result.num_turns >= 1
    assert result.usage is not None and result.usage["output_tokens"] == 5  # the fake's usage
    assert result.total_cost_usd is None or result.total_cost_usd >= 0  # no price known
    [request] = fake.requests
    assert user_texts(request)[-1].endswith("say hello")


@pytest.mark.parametrize("form", ["custom", "preset_append"])
async def test_the_system_prompt_options(fake: FakeOpenAI, sdk: Sdk, form: str) -> None:
    """`system_prompt="..."` is `--system-prompt`: it replaces the built-in prompt's response
    format and example, as `--system-prompt-file` does (docs: its role and rules for the
    tools stay); a preset with `append` is `--append-system-prompt`, added to the whole."""
    fake.script(text("Bonjour."))
    result = final(await sdk.ask("greet me", system_prompt=system_option(form)))
    assert result.subtype == "success", sdk.log()
    assert_system_prompt(form, fake.requests[0])


@pytest.mark.parametrize("allow", [True, False])
async def test_can_use_tool_approves_or_denies_a_call(
    fake: FakeOpenAI, sdk: Sdk, allow: bool
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "made.txt", "content": "hello\n"})], ids=["call_w"]),
        text("done" if allow else "I was not allowed to."),
    )
    asked: list[tuple[str, dict[str, Any], ToolPermissionContext]] = []

    async def can_use_tool(
        name: str, args: dict[str, Any], ctx: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((name, args, ctx))
        if allow:
            return PermissionResultAllow()
        return PermissionResultDeny(message="not in this project, please")

    messages = await sdk.ask("make the file", can_use_tool=can_use_tool)
    [(name, args, ctx)] = asked
    assert name in ("write_file", "Write") and args["content"] == "hello\n", asked
    assert ctx.tool_use_id == "call_w"
    made = sdk.project / "made.txt"
    sent = tool_results(fake.requests[1])["call_w"]
    result = final(messages)
    assert result.subtype == "success", sdk.log()
    ran = [b for m in messages if isinstance(m, UserMessage) and isinstance(m.content, list)
           for b in m.content if isinstance(b, ToolResultBlock)]  # fmt: skip
    assert [b.tool_use_id for b in ran] == ["call_w"], dump(messages)
    if allow:
        assert made.read_text() == "hello\n"
        assert not ran[0].is_error, ran
        assert not result.permission_denials
    else:
        assert not made.exists() and ran[0].is_error
        assert "not in this project, please" in sent  # the program's words reach the model
        denials = result.permission_denials or []
        assert [d["tool_use_id"] for d in denials] == ["call_w"], result
        assert denials[0]["tool_name"] in ("write_file", "Write")


@pytest.mark.parametrize("shape", ["permissionDecision", "decision"])
async def test_a_pre_tool_use_hook_callback_blocks_a_call(
    fake: FakeOpenAI, sdk: Sdk, shape: str
) -> None:
    """The hook is asked before the permission callback, and its deny stands: the command
    never runs, the program is not asked, and the model reads the hook's reason."""
    fake.script(
        tool_calls([("bash", {"command": "touch hooked.txt"})], ids=["call_h"]),
        text("blocked, as you wished"),
    )
    seen: list[tuple[dict[str, Any], str | None]] = []
    asked: list[str] = []
    reason = "no shell commands in this test"

    async def pre_tool_use(data: Any, tool_use_id: str | None, context: Any) -> Any:
        seen.append((dict(data), tool_use_id))
        if shape == "decision":
            return {"decision": "block", "reason": reason}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }

    async def can_use_tool(name: str, args: dict[str, Any], ctx: Any) -> PermissionResultAllow:
        asked.append(name)
        return PermissionResultAllow()

    hooks: Any = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]}
    messages = await sdk.ask("make a file with touch", hooks=hooks, can_use_tool=can_use_tool)
    [(data, tool_use_id)] = seen
    assert data["hook_event_name"] == "PreToolUse"
    assert data["tool_name"].lower() == "bash"
    assert data["tool_input"]["command"] == "touch hooked.txt"
    assert tool_use_id == "call_h"
    assert asked == []
    assert not (sdk.project / "hooked.txt").exists()
    assert reason in tool_results(fake.requests[1])["call_h"]
    assert final(messages).subtype == "success", sdk.log()


async def test_an_in_process_sdk_mcp_tool(fake: FakeOpenAI, sdk: Sdk) -> None:
    calls: list[dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"the sum is {args['a'] + args['b']:g}"}]}

    fake.script(
        tool_calls([("mcp__calc__add", {"a": 2, "b": 3})], ids=["call_m"]),
        text("2 + 3 = 5"),
    )
    servers: Any = {"calc": create_sdk_mcp_server("calc", tools=[add])}
    messages = await sdk.ask("add 2 and 3", mcp_servers=servers, allowed_tools=["mcp__calc__add"])
    assert calls == [{"a": 2, "b": 3}], sdk.log()
    assert "mcp__calc__add" in tool_names(fake.requests[0])  # listed before the first request
    assert "the sum is 5" in tool_results(fake.requests[1])["call_m"]
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init", dump(messages)
    statuses = {s["name"]: s["status"] for s in init.data.get("mcp_servers", [])}
    assert statuses.get("calc") == "connected", init.data
    assert final(messages).subtype == "success"


async def test_a_resumed_session_carries_the_conversation(fake: FakeOpenAI, sdk: Sdk) -> None:
    fake.script(text("I will remember mango."), text("The word was mango."))
    first = final(await sdk.ask("remember the word mango"))
    assert first.subtype == "success" and first.session_id, sdk.log()
    second = final(await sdk.ask("what was the word?", resume=first.session_id))
    assert second.subtype == "success", sdk.log()
    assert second.session_id == first.session_id
    history = fake.requests[1]["messages"]
    said_before = [m.get("content") for m in history if m["role"] == "assistant"]
    assert "I will remember mango." in said_before
    users = user_texts(fake.requests[1])
    assert users[0].endswith("remember the word mango") and users[-1].endswith("what was the word?")


async def test_partial_messages_when_asked(fake: FakeOpenAI, sdk: Sdk) -> None:
    fake.script(text("Hello there, my friend.", pieces=4))
    messages = await sdk.ask("greet me", include_partial_messages=True)
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    deltas = [
        e["delta"]["text"]
        for e in events
        if e.get("type") == "content_block_delta" and e["delta"].get("type") == "text_delta"
    ]
    assert "".join(deltas) == "Hello there, my friend.", events
    assert len(deltas) == 4  # streamed as the model sent it, not one block at the end
    assert said(messages) == "Hello there, my friend."  # the whole message still comes
    assert final(messages).subtype == "success"
