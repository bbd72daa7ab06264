"""The Python Claude Agent SDK's `ClaudeSDKClient` with `cli_path` pointing at `agent` (issue
44): one long-lived session over stream-json, interrupted mid-turn and going on, its model and
permission mode changed between turns."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
)
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import holds
from sdk_host import STEP, Sdk, drain, dump, final, said, user_texts

pytestmark = pytest.mark.timeout(180)  # each exchange is bounded by STEP (60 s) on its own

# How Claude Code says a turn ended by an interrupt: its result subtype (or the agent's own
# one-shot subtype), and the SDK's `terminal_reason` for a stream or tools cut short.
INTERRUPTED_SUBTYPES = ("error_during_execution", "error_interrupted")
INTERRUPTED_REASONS = ("aborted_streaming", "aborted_tools")


async def turn(client: ClaudeSDKClient, prompt: str) -> list[Any]:
    with anyio.fail_after(STEP):
        await client.query(prompt)
    return await drain(client.receive_response())


async def test_an_interrupt_ends_the_turn_and_the_session_goes_on(
    fake: FakeOpenAI, sdk: Sdk
) -> None:
    long = "a long answer that never ends"
    fake.script(text(long, pieces=6, stall_after=2, stall_seconds=STEP), text("still here"))
    async with ClaudeSDKClient(options=sdk.options()) as client:
        with anyio.fail_after(STEP):
            await client.query("talk for a long time")
        assert await holds(lambda: len(fake.requests) == 1, STEP)  # streaming, and held
        with anyio.fail_after(STEP):
            await client.interrupt()  # answered (a control_response), not left to time out
        first = await drain(client.receive_response())
        second = await turn(client, "are you there?")
    stopped = final(first)
    assert stopped.subtype != "success", dump(first)
    assert stopped.is_error or stopped.subtype in INTERRUPTED_SUBTYPES, stopped
    assert stopped.subtype in INTERRUPTED_SUBTYPES or stopped.terminal_reason in (
        INTERRUPTED_REASONS
    ), stopped
    assert long not in said(first)  # the held rest of the answer never came
    again = final(second)
    assert again.subtype == "success", sdk.log()
    assert said(second) == "still here"
    assert again.session_id == stopped.session_id  # the same session, not a new one
    asked = user_texts(fake.requests[1])
    assert asked[0].endswith("talk for a long time") and asked[-1].endswith("are you there?")


async def test_set_model_changes_the_model_of_the_next_request(fake: FakeOpenAI, sdk: Sdk) -> None:
    fake.script(text("one"), text("two", model="other-model"))  # the server names it too
    async with ClaudeSDKClient(options=sdk.options()) as client:
        first = await turn(client, "first question")
        with anyio.fail_after(STEP):
            await client.set_model("other-model")
        second = await turn(client, "second question")
    assert final(first).subtype == "success" and final(second).subtype == "success", sdk.log()
    assert [r["model"] for r in fake.requests] == ["fake-model", "other-model"]
    [answer] = [m for m in second if isinstance(m, AssistantMessage)]
    assert answer.model == "other-model"
    assert user_texts(fake.requests[1])[0].endswith("first question")  # same conversation


async def test_set_permission_mode_applies_to_the_next_turn(fake: FakeOpenAI, sdk: Sdk) -> None:
    """In `default` a write asks the program's `can_use_tool` (which says no); after
    `set_permission_mode("acceptEdits")` the next write in the project is not asked about."""
    fake.script(
        tool_calls([("write_file", {"path": "first.txt", "content": "1"})], ids=["call_1"]),
        text("I was told no."),
        tool_calls([("write_file", {"path": "second.txt", "content": "2"})], ids=["call_2"]),
        text("Written."),
    )
    asked: list[str] = []

    async def can_use_tool(
        name: str, args: dict[str, Any], ctx: Any
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append(args.get("path", ""))
        return PermissionResultDeny(message="no writes yet")

    async with ClaudeSDKClient(options=sdk.options(can_use_tool=can_use_tool)) as client:
        first = await turn(client, "write the first file")
        with anyio.fail_after(STEP):
            await client.set_permission_mode("acceptEdits")
        second = await turn(client, "write the second file")
    assert final(first).subtype == "success" and final(second).subtype == "success", sdk.log()
    assert asked == ["first.txt"]
    assert not (sdk.project / "first.txt").exists()
    assert (sdk.project / "second.txt").read_text() == "2"


async def test_claude_codes_auto_mode_and_an_unknown_one(fake: FakeOpenAI, sdk: Sdk) -> None:
    """`auto` (Claude Code's classifier mode) is the default mode here; a mode that is none
    is refused with its name, and the session goes on."""
    fake.script(text("still fine"))
    async with ClaudeSDKClient(options=sdk.options()) as client:
        with anyio.fail_after(STEP):
            await client.set_permission_mode("auto")
        with anyio.fail_after(STEP), pytest.raises(Exception, match="unknown permission mode"):
            await client.set_permission_mode("yolo")  # type: ignore[arg-type]
        answer = await turn(client, "are you there?")
    assert final(answer).subtype == "success", sdk.log()
    assert said(answer) == "still fine"
