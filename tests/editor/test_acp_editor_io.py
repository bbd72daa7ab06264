"""With an editor that offers them, the file tools use its buffers (unsaved changes are read
and edited, edits land in the editor) and bash runs in its terminals (shown live, killed on
timeout); without, the disk and the agent's own processes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp_client import EditorClient, ask, editor
from fake_openai import FakeOpenAI, text, tool_calls


def results(fake: FakeOpenAI) -> list[str]:
    return [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]


async def test_read_file_sees_the_unsaved_buffer(fake: FakeOpenAI, project: Path) -> None:
    notes = str(project / "notes.txt")
    client = EditorClient(buffers={notes: "the secret word is papaya (unsaved)\n"})
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("papaya"))
    async with editor(fake, project, client, fs=True) as (conn, sid):
        await ask(conn, sid, "what is the word?")
    [out] = results(fake)
    assert "papaya (unsaved)" in out and "mango" not in out
    assert "read from the editor's buffer" in out
    assert client.reads == [notes]


async def test_an_edit_applies_to_the_buffer_and_lands_in_the_editor(
    fake: FakeOpenAI, project: Path
) -> None:
    notes = str(project / "notes.txt")
    client = EditorClient(buffers={notes: "the secret word is papaya\n"})
    edit = {"path": "notes.txt", "old_string": "papaya", "new_string": "kiwi"}
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls([("edit_file", edit)]),
        text("done"),
    )
    async with editor(fake, project, client, "--permission-mode", "acceptEdits", fs=True) as (
        conn,
        sid,
    ):
        await ask(conn, sid, "change the word")
    assert client.writes == {notes: "the secret word is kiwi\n"}
    assert (project / "notes.txt").read_text() == "the secret word is kiwi\n"
    assert results(fake)[-1].startswith("Edited notes.txt: +1 -1")


async def test_without_fs_the_disk_is_used(fake: FakeOpenAI, project: Path) -> None:
    notes = str(project / "notes.txt")
    client = EditorClient(buffers={notes: "never seen"})
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("mango"))
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "what is the word?")
    assert "mango" in results(fake)[0] and client.reads == []


async def test_bash_runs_in_the_editor_s_terminal(fake: FakeOpenAI, project: Path) -> None:
    fake.script(
        tool_calls([("bash", {"command": "echo hello from $0; exit 3"})], ids=["call_t"]),
        text("ran"),
    )
    client = EditorClient()
    args = ("--permission-mode", "bypassPermissions")
    async with editor(fake, project, client, *args, terminal=True) as (conn, sid):
        await ask(conn, sid, "run it")
    assert client.commands == [["bash", "-c", "echo hello from $0; exit 3"]]
    shown = [u for u in client.of("tool_call_update") if u.tool_call_id == "call_t"]
    assert shown[0].content[0].type == "terminal" and shown[0].content[0].terminal_id == "term-1"
    [out] = results(fake)
    assert "hello from bash" in out and "[exit code 3 ·" in out
    assert client.released == ["term-1"]


async def test_a_terminal_command_that_runs_too_long_is_killed(
    fake: FakeOpenAI, project: Path
) -> None:
    fake.script(tool_calls([("bash", {"command": "sleep 30", "timeout": 1})]), text("slow"))
    client = EditorClient()
    args = ("--permission-mode", "bypassPermissions")
    async with editor(fake, project, client, *args, terminal=True) as (conn, sid):
        await ask(conn, sid, "wait")
    assert client.killed == ["term-1"] and client.released == ["term-1"]
    assert "timed out after 1 s" in results(fake)[0]


async def test_a_terminal_command_still_runs_in_the_sandbox(
    fake: FakeOpenAI, project: Path
) -> None:
    import sys

    import pytest

    from agent.sandbox.linux import find_bwrap, probe

    if not sys.platform.startswith("linux") or probe(find_bwrap()):
        pytest.skip("bubblewrap cannot run here")
    fake.script(tool_calls([("bash", {"command": "echo inside; touch /tmp/../outside.txt"})]),
                text("ran"))  # fmt: skip
    client = EditorClient()
    args = ("--sandbox", "workspace-write", "--permission-mode", "bypassPermissions")
    async with editor(fake, project, client, *args, terminal=True) as (conn, sid):
        await ask(conn, sid, "run it")
    [argv] = client.commands
    bwrap = next(a for a in argv if Path(a).name == "bwrap")  # after the seccomp shim's sh
    assert argv.index(bwrap) <= 5 and argv[-3:] == ["bash", "-c", argv[-1]]
    out = results(fake)[0]
    assert "inside" in out and "Read-only file system" in out


async def test_an_edit_asked_about_works_on_the_unsaved_buffer(
    fake: FakeOpenAI, project: Path
) -> None:
    notes = str(project / "notes.txt")
    client = EditorClient(buffers={notes: "the secret word is papaya\n"})
    edit = {"path": "notes.txt", "old_string": "papaya", "new_string": "kiwi"}
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls([("edit_file", edit)]),
        text("done"),
    )
    async with editor(fake, project, client, fs=True) as (conn, sid):  # Ask mode
        await ask(conn, sid, "change the word")
    assert len(client.asked) == 1  # asked, not refused for a text only the buffer holds
    assert client.writes == {notes: "the secret word is kiwi\n"}


async def test_an_edit_is_refused_when_the_buffer_changed_since_the_read(
    fake: FakeOpenAI, project: Path
) -> None:
    notes = str(project / "notes.txt")
    client = EditorClient(buffers={notes: "the secret word is papaya\n"})

    def typing(update: object) -> None:  # the user types once the model has read the file
        if getattr(update, "session_update", "") == "tool_call_update":
            client.buffers[notes] = "the secret word is papaya\nmy new line\n"

    client.on_update = typing
    edit = {"path": "notes.txt", "old_string": "papaya", "new_string": "kiwi"}
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls([("write_file", {"path": "notes.txt", "content": "kiwi\n"})]),
        tool_calls([("edit_file", edit)]),
        text("stopped"),
    )
    args = ("--permission-mode", "acceptEdits")
    async with editor(fake, project, client, *args, fs=True) as (conn, sid):
        await ask(conn, sid, "change the word")
    assert client.writes == {}
    out = results(fake)
    assert "changed in the editor since you last read it" in out[1]
    assert "changed in the editor since you last read it" in out[2]


async def test_mixed_line_endings_survive_an_edit_through_the_editor(
    fake: FakeOpenAI, project: Path
) -> None:
    (project / "mixed.txt").write_bytes(b"aaa\r\nbbb\nccc\r\n")
    client = EditorClient(buffers={str(project / "mixed.txt"): "aaa\nbbb\nccc\n"})
    fake.script(
        tool_calls([("read_file", {"path": "mixed.txt"})]),
        tool_calls(
            [("edit_file", {"path": "mixed.txt", "old_string": "bbb", "new_string": "BBB"})]
        ),
        text("done"),
    )
    args = ("--permission-mode", "acceptEdits")
    async with editor(fake, project, client, *args, fs=True) as (conn, sid):
        await ask(conn, sid, "shout")
    assert (project / "mixed.txt").read_bytes() == b"aaa\r\nBBB\nccc\r\n"


async def test_terminal_only_commands_are_refused_in_the_editor(
    fake: FakeOpenAI, project: Path
) -> None:
    client = EditorClient()
    async with editor(fake, project, client) as (conn, sid):
        reply = await ask(conn, sid, "/loop 1s hello")
        await asyncio.sleep(1.5)
    assert reply.stop_reason == "end_turn" and fake.requests == []
    assert "/loop needs the terminal" in client.said()
