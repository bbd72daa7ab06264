"""`agent --acp` driven by the ACP package's own client against the scripted model: streamed
text and thoughts, tool calls with permission requests answered both ways, modes, commands,
cancel, a saved session loaded again, and malformed requests."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from acp import RequestError
from acp_client import EditorClient, acp_env, ask, editor
from fake_openai import FakeOpenAI, text, tool_calls


async def test_a_prompt_streams_text_and_thoughts(fake: FakeOpenAI, project: Path) -> None:
    fake.script(text("Hello from the agent.", pieces=4, reasoning="Let me think."))
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        reply = await ask(conn, sid, "say hello")
    assert reply.stop_reason == "end_turn"
    assert client.said() == "Hello from the agent."
    assert len(client.of("agent_message_chunk")) == 4  # streamed, not one block at the end
    thought = "".join(u.content.text for u in client.of("agent_thought_chunk"))
    assert thought == "Let me think."
    [commands] = client.of("available_commands_update")
    names = {c.name for c in commands.available_commands}
    assert {"compact", "cost", "init"} <= names and "exit" not in names and "resume" not in names
    first = fake.requests[0]["messages"][1]["content"]
    assert "<env>" in first and first.endswith("say hello")


@pytest.mark.parametrize("answer", ["allow_once", "reject_once"])
async def test_a_command_asks_the_editor(fake: FakeOpenAI, project: Path, answer: str) -> None:
    fake.script(
        tool_calls([("bash", {"command": "touch made.txt"})], ids=["call_a"]),
        text("done"),
    )
    client = EditorClient(answer=answer)
    async with editor(fake, project, client) as (conn, sid):
        reply = await ask(conn, sid, "make the file")
    assert reply.stop_reason == "end_turn"
    [(call, options)] = client.asked
    assert call.tool_call_id == "call_a" and "touch made.txt" in call.title
    kinds = [o.kind for o in options]
    assert kinds == ["allow_once", "allow_always", "reject_once"]
    [start] = client.of("tool_call")
    assert start.tool_call_id == "call_a" and start.kind == "execute"
    [end] = client.of("tool_call_update")
    made = (project / "made.txt").exists()
    if answer == "allow_once":
        assert made and end.status == "completed"
    else:
        assert not made and end.status == "failed"
        result = fake.requests[-1]["messages"][-1]["content"]
        assert "the user said no" in result


async def test_allow_always_is_remembered_like_the_repl(fake: FakeOpenAI, project: Path) -> None:
    fake.script(
        tool_calls([("bash", {"command": "touch one.txt"})]),
        tool_calls([("bash", {"command": "touch two.txt"})]),
        text("done"),
    )
    client = EditorClient(answer="allow_always")
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "make two files")
    assert len(client.asked) == 1  # the second touch was covered by the remembered rule
    local = json.loads((project / ".agent" / "settings.local.json").read_text())
    assert "bash(touch:*)" in local["permissions"]["alwaysAllow"]
    assert (project / "one.txt").exists() and (project / "two.txt").exists()


async def test_an_edit_arrives_as_a_diff(fake: FakeOpenAI, project: Path) -> None:
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls(
            [("edit_file", {"path": "notes.txt", "old_string": "mango", "new_string": "kiwi"})]
        ),
        text("changed"),
    )
    client = EditorClient()
    async with editor(fake, project, client, "--permission-mode", "acceptEdits") as (conn, sid):
        await ask(conn, sid, "change the word")
    edit = next(u for u in client.of("tool_call") if u.kind == "edit")
    assert edit.locations[0].path == str(project / "notes.txt")
    done = next(u for u in client.of("tool_call_update") if u.tool_call_id == edit.tool_call_id)
    [diff] = [c for c in done.content if c.type == "diff"]
    assert diff.path == str(project / "notes.txt")
    assert diff.old_text == "the secret word is mango\n"
    assert diff.new_text == "the secret word is kiwi\n"
    read = next(u for u in client.of("tool_call") if u.kind == "read")
    assert read.title == "read_file notes.txt"


async def test_the_todo_list_is_the_editor_s_plan(fake: FakeOpenAI, project: Path) -> None:
    fake.script(
        tool_calls([("todo", {"action": "add", "text": "Read the code"})]),
        tool_calls([("todo", {"action": "add", "text": "Fix the bug"})]),
        tool_calls([("todo", {"action": "update", "id": "1", "status": "in_progress"})]),
        text("planned"),
    )
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "plan it")
    plan = client.of("plan")[-1]
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Read the code", "in_progress"),
        ("Fix the bug", "pending"),
    ]


async def test_modes_are_the_permission_modes(fake: FakeOpenAI, project: Path) -> None:
    fake.script(tool_calls([("write_file", {"path": "new.txt", "content": "x"})]), text("no"))
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        await ask(conn, sid, "write it")
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
    assert not (project / "new.txt").exists() and client.asked == []
    assert "plan mode allows read-only tools only" in fake.requests[-1]["messages"][-1]["content"]
    assert [u.current_mode_id for u in client.of("current_mode_update")] == ["plan"]


async def test_a_slash_command_prints_into_the_panel(fake: FakeOpenAI, project: Path) -> None:
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        reply = await ask(conn, sid, "/cost")
    assert reply.stop_reason == "end_turn"
    assert "tokens" in client.said().lower()
    assert fake.requests == []  # a command that runs no turn sends nothing to the model


async def test_cancel_stops_the_turn_and_the_session_goes_on(
    fake: FakeOpenAI, project: Path
) -> None:
    fake.script(text("a long answer that never ends", pieces=6, stall_after=2, stall_seconds=30))
    fake.script(text("still here"))
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        started = asyncio.Event()
        client.on_update = lambda u: (
            started.set() if u.session_update == "agent_message_chunk" else None
        )
        pending = asyncio.ensure_future(ask(conn, sid, "talk"))
        await asyncio.wait_for(started.wait(), 20)
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(pending, 20)
        assert reply.stop_reason == "cancelled"
        client.on_update = None
        again = await ask(conn, sid, "are you there?")
    assert again.stop_reason == "end_turn" and client.said().endswith("still here")
    history = fake.requests[-1]["messages"]
    assert [m["role"] for m in history[1:]] == ["user", "assistant", "user"]


async def test_a_saved_session_loads_with_its_history(fake: FakeOpenAI, project: Path) -> None:
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})], ids=["call_r"]),
        text("The word is mango."),
        text("You asked about the word."),
    )
    first = EditorClient()
    async with editor(fake, project, first) as (conn, sid):
        await ask(conn, sid, "what is the word?")
    second = EditorClient()
    async with editor(fake, project, second) as (conn, _):
        loaded = await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        assert loaded.modes.current_mode_id == "default"
        # the history; the commands are announced beside it (in the order the client's
        # library hands notifications on: under load not always the order they came)
        history = [u for u in second.updates if u.session_update != "available_commands_update"]
        kinds = [u.session_update for u in history]
        assert kinds[:4] == ["user_message_chunk", "tool_call", "tool_call_update",
                             "agent_message_chunk"]  # fmt: skip
        assert history[0].content.text == "what is the word?"  # without the env block
        assert second.said() == "The word is mango."
        await ask(conn, sid, "what did I ask?")
        listed = await conn.list_sessions(cwd=str(project))
    assert "what is the word?" in json.dumps(fake.requests[-1]["messages"])
    assert sid in [s.session_id for s in listed.sessions]
    with pytest.raises(RequestError):
        async with editor(fake, project, EditorClient()) as (conn, _):
            await conn.load_session(cwd=str(project), session_id="nope", mcp_servers=[])


async def test_malformed_requests_get_errors_and_the_agent_keeps_serving(
    fake: FakeOpenAI, project: Path
) -> None:
    env = acp_env(fake, project.parent / "home")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent", "--acp",
        cwd=project, env=env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    lines = [
        b"this is not json\n",
        b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"nothing":1}}\n',
        b'{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}\n',
    ]
    proc.stdin.write(b"".join(lines))
    await proc.stdin.drain()
    got: dict[int, dict[str, object]] = {}
    while 3 not in got:
        line = await asyncio.wait_for(proc.stdout.readline(), 20)
        assert line, "the agent closed its output"
        message = json.loads(line)  # stdout holds JSON-RPC and nothing else
        if "id" in message and message["id"] is not None:
            got[message["id"]] = message
    proc.stdin.close()
    await asyncio.wait_for(proc.wait(), 20)
    assert got[1]["error"]["code"] == -32602  # type: ignore[index]
    assert got[2]["error"]["code"] == -32601  # type: ignore[index]
    assert got[3]["result"]["agentCapabilities"]["loadSession"] is True  # type: ignore[index]


def test_acp_takes_no_prompt(fake_env: dict[str, str], project: Path) -> None:
    from helpers import run_agent

    proc = run_agent(fake_env, project, "--acp", "hello")
    assert proc.returncode == 2 and "--acp takes no prompt" in proc.stderr


@pytest.mark.parametrize(
    ("turns", "args", "reason"),
    [
        ([text("cut off mid", finish="length")], (), "max_tokens"),
        ([text("I cannot help with that.", finish="content_filter")], (), "refusal"),
        ([tool_calls([("read_file", {"path": "notes.txt"})])], ("--max-turns", "1"),
         "max_turn_requests"),
    ],
)  # fmt: skip
async def test_stop_reasons(
    fake: FakeOpenAI, project: Path, turns: list[object], args: tuple[str, ...], reason: str
) -> None:
    fake.script(*turns)  # type: ignore[arg-type]
    async with editor(fake, project, EditorClient(), *args) as (conn, sid):
        reply = await ask(conn, sid, "go")
    assert reply.stop_reason == reason


async def test_a_failed_turn_is_an_error_and_the_session_goes_on(
    fake: FakeOpenAI, project: Path
) -> None:
    from fake_openai import error

    fake.script(error(400, "the request was malformed"), text("fine now"))
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        with pytest.raises(RequestError) as failed:
            await ask(conn, sid, "first")
        again = await ask(conn, sid, "second")
    assert "the request was malformed" in str(failed.value.data)
    assert again.stop_reason == "end_turn" and client.said().endswith("fine now")


async def test_an_edit_s_permission_request_shows_its_diff(fake: FakeOpenAI, project: Path) -> None:
    edit = {"path": "notes.txt", "old_string": "mango", "new_string": "kiwi"}
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls([("edit_file", edit)], ids=["call_e"]),
        text("changed"),
    )
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "change the word")
    [(call, options)] = client.asked
    shown = call.content[0].content.text
    assert call.tool_call_id == "call_e" and "```diff\n" in shown
    assert "-the secret word is mango" in shown and "+the secret word is kiwi" in shown
    assert [o.name for o in options][1].startswith("Always allow")
    assert (project / "notes.txt").read_text() == "the secret word is kiwi\n"
