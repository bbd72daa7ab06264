"""/add-dir, /agents, /optimizer and /copy on a live session against the fake server."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import command_output as said

from agent.base.record import Call
from agent.commands import clipboard
from agent.commands.registry import Ctx
from agent.config.load import Flags

MakeCtx = Callable[..., Ctx]  # the `session` fixture (tests/commands/conftest.py)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


# -- /add-dir -------------------------------------------------------------------------------
async def test_add_dir_lets_the_live_session_work_there(
    session: MakeCtx, fake: FakeOpenAI, tmp_path: Path, project: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.txt").write_text("elsewhere\n")
    ctx = session(Flags(permission_mode="acceptEdits"))
    gate = ctx.run.gate
    read = Call("c1", "read_file", {"path": str(other / "a.txt")})
    assert gate.decide(read)[0].kind == "ask"  # outside the workspace
    assert "no added directories" in await said(ctx, "/add-dir")
    assert "does not exist" in await said(ctx, f"/add-dir {tmp_path / 'missing'}")
    assert "is not a directory" in await said(ctx, f"/add-dir {other / 'a.txt'}")
    assert "in the workspace already" in await said(ctx, "/add-dir .")
    shown = await said(ctx, "/add-dir ../other")  # relative to the working directory
    assert f"added {other}" in shown
    assert gate.decide(read)[0].kind == "allow"
    assert str(other) in ctx.agent.ctx.added_dirs
    assert f"{other}  (this session)" in await said(ctx, "/add-dir")
    # the model's edit there goes through unasked, as in the project (acceptEdits)
    fake.script(
        tool_calls([("write_file", {"path": str(other / "new.txt"), "content": "hi\n"})]),
        text("written"),
    )
    await ctx.turn("write it")
    assert (other / "new.txt").read_text() == "hi\n"


# -- /agents --------------------------------------------------------------------------------
async def test_agents_lists_the_definitions_and_shows_one(
    session: MakeCtx, home: Path, project: Path
) -> None:
    mine = home / ".agent" / "agents"
    mine.mkdir(parents=True)
    (mine / "helper.md").write_text("---\ndescription: Helps out.\n---\nYou help.\n")
    theirs = project / ".agent" / "agents"
    theirs.mkdir(parents=True)
    (theirs / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a change\n  for bugs.\ntools: read_file, grep\n"
        "---\nYou review code carefully.\n"
    )
    ctx = session(Flags(trust_project=True))
    shown = await said(ctx, "/agents")
    rows = {ln.split()[0]: ln for ln in shown.splitlines() if ln.startswith("  ")}
    assert "built-in" in rows["general"]
    assert "~/.agent/agents/helper.md" in rows["helper"] and "Helps out." in rows["helper"]
    assert ".agent/agents/reviewer.md" in rows["reviewer"]
    one = await said(ctx, "/agents reviewer")
    assert "reviewer (.agent/agents/reviewer.md)" in one
    assert "tools: read_file, grep" in one and "You review code carefully." in one
    assert "no agent nope (agents: general, helper, reviewer)" in await said(ctx, "/agents nope")


# -- /optimizer -----------------------------------------------------------------------------
async def test_optimizer_takes_the_outline_tools_away_and_back(
    session: MakeCtx, fake: FakeOpenAI
) -> None:
    ctx = session()
    before = list(ctx.agent.tools)
    sent = [s["function"]["name"] for s in ctx.agent.schemas]  # the rare tools wait: not sent
    assert {"outline", "symbols"} <= set(sent)
    assert "optimizer: on" in await said(ctx, "/optimizer")
    off = await said(ctx, "/optimizer off")
    assert "no longer offered outline, symbols" in off and "cold prompt cache" in off
    assert "optimizer: off" in await said(ctx, "/optimizer")
    fake.script(text("one"), text("two"))
    await ctx.turn("hello")
    offered = tool_names(fake.requests[-1])
    assert "outline" not in offered and "symbols" not in offered and "read_file" in offered
    assert "already" in await said(ctx, "/optimizer off")
    assert "usage" in await said(ctx, "/optimizer maybe")
    assert "offered outline, symbols" in await said(ctx, "/optimizer on")
    assert list(ctx.agent.tools) == before  # in their place: the same tools list as at start
    await ctx.turn("again")
    assert tool_names(fake.requests[-1]) == sent


# -- /copy ----------------------------------------------------------------------------------
@pytest.fixture
def no_ssh(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SSH_TTY", "SSH_CONNECTION", "WAYLAND_DISPLAY", "TMUX"):
        monkeypatch.delenv(name, raising=False)


def fake_xclip(folder: Path) -> Path:
    """An `xclip` that keeps what it is given in `clip.txt` beside it."""
    folder.mkdir()
    out = folder / "clip.txt"
    script = folder / "xclip"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(out)!r}, 'wb').write(sys.stdin.buffer.read())\n"
    )
    script.chmod(0o755)
    return out


@pytest.mark.usefixtures("no_ssh")
async def test_copy_gives_an_answer_to_the_clipboard_program(
    session: MakeCtx, fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clip = fake_xclip(tmp_path / "bin")
    monkeypatch.setattr(clipboard, "TIMEOUT", 60.0)  # a Python start on a loaded machine
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    ctx = session()
    assert "no answer to copy yet" in await said(ctx, "/copy")
    fake.script(text("the first answer"), text("второй"))
    await ctx.turn("one")
    await ctx.turn("two")
    shown = await said(ctx, "/copy")
    assert "copied the last answer (6 characters) with xclip" in shown
    assert clip.read_text(encoding="utf-8") == "второй"
    assert "answer 2 from the end" in await said(ctx, "/copy 2")
    assert clip.read_text() == "the first answer"
    assert "only 2 answers so far" in await said(ctx, "/copy 3")
    assert "usage" in await said(ctx, "/copy last")


async def test_copy_over_ssh_sends_osc52_to_the_terminal(
    session: MakeCtx, fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_xclip(tmp_path / "bin")  # found, but over ssh it would fill the remote clipboard
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
    tty = tmp_path / "tty"
    tty.write_bytes(b"")
    monkeypatch.setattr(clipboard, "TTY", str(tty))
    ctx = session()
    fake.script(text("over ssh"))
    await ctx.turn("hi")
    shown = await said(ctx, "/copy")
    assert "copied the last answer (8 characters) with an OSC 52 escape" in shown
    assert tty.read_bytes() == b"\x1b]52;c;b3ZlciBzc2g=\x07"
    assert not (tmp_path / "bin" / "clip.txt").exists()


@pytest.mark.usefixtures("no_ssh")
async def test_copy_with_no_way_to_copy_says_so(
    session: MakeCtx, fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)  # no display: no clipboard program serves
    monkeypatch.setattr(clipboard, "TTY", str(tmp_path / "no-terminal"))
    ctx = session()
    fake.script(text("kept"))
    await ctx.turn("hi")
    shown = await said(ctx, "/copy")
    assert "not copied: no clipboard program" in shown and "OSC 52" in shown
