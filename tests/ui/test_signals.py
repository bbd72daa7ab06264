"""SIGTERM and SIGHUP end the agent cleanly: MCP servers are stopped, not orphaned, whether the
signal comes while one-shot waits for servers or while the REPL sits at its prompt."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from fake_openai import FakeOpenAI, tool_calls
from helpers import AGENT_CMD, MCP_SERVERS, alive
from pty_term import Term, plain_repl

SILENT = str(MCP_SERVERS / "silent.py")

pytestmark = pytest.mark.usefixtures("fake")


@pytest.fixture
def silent_server(fake_env: dict[str, str], tmp_path: Path) -> Path:
    """A user-level MCP server that never answers (so start-up waits on it); returns its
    pid file."""
    pidfile = tmp_path / "silent.pid"
    settings = {
        "mcpServers": {
            "silent": {
                "command": sys.executable,
                "args": [SILENT],
                "env": {"MCP_SILENT_PIDFILE": str(pidfile)},
                "timeout": 60,
            }
        }
    }
    home = Path(fake_env["HOME"]) / ".agent"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings))
    return pidfile


def server_pid(pidfile: Path) -> int:
    deadline = time.monotonic() + 20
    while not (pidfile.exists() and pidfile.read_text()):
        assert time.monotonic() < deadline, "the MCP server never started"
        time.sleep(0.05)
    return int(pidfile.read_text())


def gone(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)


# The REPL's runner with a session that starts a command and is sent SIGTERM `steps` turns of
# the event loop later: while asyncio still connects the command's pipes.
STARTING = """
import asyncio, os, signal
from agent.tools.shell.bash import execute_argv
from agent.ui.process import exit_on_signals, run_session

async def session() -> int:
    command = asyncio.ensure_future(execute_argv(["sleep", "{marker}"], ".", 120))
    for _ in range({steps}):
        await asyncio.sleep(0)
    os.kill(os.getpid(), signal.SIGTERM)
    await command
    return 0

exit_on_signals()
raise SystemExit(run_session(session()))
"""


def running(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (a zombie has none)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("steps", [1, 2, 3, 5])
def test_sigterm_while_a_command_is_starting_ends_the_session(tmp_path: Path, steps: int) -> None:
    """Raised wherever the program was, SystemExit left asyncio's clean-up to cancel the task
    connecting the new command's pipes, and the program waited for that command forever
    (CPython gh-125502): the REPL never exited. The signal must cancel the session instead."""
    marker = f"97.{steps}5"  # a sleep no other process runs
    script = STARTING.replace("{marker}", marker).replace("{steps}", str(steps))
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path)
    try:
        code = proc.wait(timeout=30)  # a hang is for ever: any bound tells them apart
        left = running(marker)
    except subprocess.TimeoutExpired:
        code, left = None, []
    finally:
        proc.kill()
        proc.wait()
        for pid in running(marker):
            os.kill(pid, signal.SIGKILL)
    assert code == 128 + signal.SIGTERM, "the session did not end on SIGTERM"
    assert not left, "the starting command outlived the session"


def test_sigterm_while_one_shot_waits_for_servers(
    fake_env: dict[str, str], tmp_path: Path, silent_server: Path
) -> None:
    proc = subprocess.Popen(
        [*AGENT_CMD, "hi"],
        env=fake_env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pid = server_pid(silent_server)
    time.sleep(0.3)  # settled into waiting for the server
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert gone(pid), "orphaned MCP server"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["term", "hup"])
def test_signal_at_the_repl_prompt(
    fake_env: dict[str, str], tmp_path: Path, silent_server: Path, sig: int
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    term = Term(fake_env, project)
    try:
        term.wait_for("shift-tab", where="bottom")
        pid = server_pid(silent_server)
        os.kill(term.child.pid, sig)
        assert term.wait_exit() == 128 + sig
    finally:
        term.close()
    assert gone(pid), "orphaned MCP server"


@pytest.mark.parametrize("plain", [False, True], ids=["repl", "plain"])
def test_sigterm_during_a_turn_ends_the_repl_and_its_command(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, plain: bool
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    pidfile = tmp_path / "sleep.pid"
    cmd = f"echo $$ > {pidfile}; exec sleep 60"
    fake.script(tool_calls([("bash", {"command": cmd})]))
    args = ("--permission-mode", "bypassPermissions")
    if plain:
        child = plain_repl(fake_env, project, *args)
        child.expect("> ", timeout=30)
        child.send("run it\r")
        pid = server_pid(pidfile)
        kids = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
        agent_pid = next(
            int(k) for k in kids if b"agent" in Path(f"/proc/{k}/cmdline").read_bytes()
        )
        os.kill(agent_pid, signal.SIGTERM)
        child.expect(pexpect.EOF, timeout=30)
        child.close()
    else:
        term = Term(fake_env, project, *args)
        try:
            term.wait_for("shift-tab", where="bottom")
            term.type("run it")
            pid = server_pid(pidfile)
            os.kill(term.child.pid, signal.SIGTERM)
            # at once; the command, if waited for, would take a minute (60 s, then -1 here)
            assert term.wait_exit(timeout=30) == 128 + signal.SIGTERM
        finally:
            term.close()
    assert gone(pid), "the turn's shell command outlived the agent"
