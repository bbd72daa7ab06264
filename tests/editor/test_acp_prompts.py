"""What an editor puts in a prompt: attached buffers (embedded resources), file links, pasted
images; and the MCP servers it passes with a session."""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from pathlib import Path

from acp import embedded_text_resource, image_block, resource_block, resource_link_block, text_block
from acp.schema import EnvVariable, McpServerStdio
from acp_client import EditorClient, ask, editor
from fake_openai import FakeOpenAI, text, tool_calls

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
DEMO = str(Path(__file__).parents[1] / "mcp_servers" / "demo.py")


async def test_attached_buffers_and_links_join_the_message(fake: FakeOpenAI, project: Path) -> None:
    (project / "app.py").write_text("print('on disk')\n")
    buffer = embedded_text_resource(f"file://{project}/app.py", "print('unsaved edit')\n")
    fake.script(text("seen"))
    async with editor(fake, project, EditorClient()) as (conn, sid):
        await conn.prompt(
            session_id=sid,
            prompt=[
                text_block("compare"),
                resource_block(buffer),
                resource_link_block("notes.txt", f"file://{project}/notes.txt"),
            ],
        )
    sent = fake.requests[0]["messages"][-1]["content"]
    assert "compare @notes.txt" in sent
    assert "<file path=\"app.py\">\nprint('unsaved edit')\n</file>" in sent
    assert '<file path="notes.txt">\nthe secret word is mango\n</file>' in sent


async def test_a_pasted_image_goes_to_a_model_that_takes_images(
    fake: FakeOpenAI, project: Path
) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text(json.dumps({"tools": {"images": True}}))
    fake.script(text("a red dot"))
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        data = base64.b64encode(PNG).decode()
        await conn.prompt(
            session_id=sid, prompt=[text_block("what is this?"), image_block(data, "image/png")]
        )
    content = fake.requests[0]["messages"][-1]["content"]
    assert isinstance(content, list) and content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"] == "data:image/png;base64," + data


async def test_the_editor_s_mcp_servers_are_started(fake: FakeOpenAI, project: Path) -> None:
    server = McpServerStdio(name="demo", command=sys.executable, args=[DEMO], env=[
        EnvVariable(name="MCP_DEMO_MARKER", value=str(project / "started"))])  # fmt: skip
    client = EditorClient()
    async with editor(fake, project, client, mcp=[server]) as (conn, sid):
        for _ in range(100):  # connected in the background; /mcp says when
            before = len(client.said())
            await ask(conn, sid, "/mcp")
            if "connected" in client.said()[before:]:
                break
            await asyncio.sleep(0.2)
        fake.script(tool_calls([("mcp__demo__echo", {"text": "hi"})]), text("echoed"))
        await ask(conn, sid, "echo hi")
    assert (project / "started").exists()
    announced = [
        {c.name for c in u.available_commands} for u in client.of("available_commands_update")
    ]
    assert "mcp__demo__review" not in announced[0]  # the server was not up at session/new
    assert "mcp__demo__review" in announced[-1]  # told again once its prompts arrived
    tools = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert "mcp__demo__echo" in tools
    assert "echo: hi" in fake.requests[-1]["messages"][-1]["content"]
