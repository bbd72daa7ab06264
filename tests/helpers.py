"""Build an in-process Agent wired to the fake server, with small tools defined here."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zygote

from agent.base.events import Recorder
from agent.base.record import Tool, ToolContext, ToolResult
from agent.config.load import Flags
from agent.core.dispatch import Dispatcher
from agent.core.llm import LLM
from agent.core.loop import Agent
from agent.permissions.gate import Gate
from agent.ui.startup import configure


async def _echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("echo:" + json.dumps(args, sort_keys=True))


async def _slow(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    await asyncio.sleep(float(args.get("seconds", 0.2)))
    return ToolResult(f"slept {args.get('seconds')}")


async def _touch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    (ctx.cwd / args["path"]).write_text("touched")
    return ToolResult(f"touched {args['path']}")


OPEN: list[Agent] = []  # closed by the `_isolated` fixture before the event loop ends
OBJ = {"type": "object"}
ECHO = Tool(
    "echo",
    "Echo the arguments.",
    {
        **OBJ,
        "properties": {"text": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["text"],
    },
    _echo,
    read_only=True,
)
SLOW = Tool(
    "slow", "Sleep.", {**OBJ, "properties": {"seconds": {"type": "number"}}}, _slow, read_only=True
)
TOUCH = Tool(
    "touch",
    "Create a file.",
    {**OBJ, "properties": {"path": {"type": "string"}}, "required": ["path"]},
    _touch,
)
TOOLS = {t.name: t for t in (ECHO, SLOW, TOUCH)}


def make_agent(
    fake: Any,
    tmp_path: Path,
    *,
    settings: dict[str, Any] | None = None,
    flags: Flags | None = None,
    env: dict[str, str] | None = None,
    mode: str = "bypassPermissions",
    max_steps: int = 10,
) -> tuple[Agent, Recorder]:
    """An Agent over the real openai client against `fake`; fast retries unless overridden."""
    (tmp_path / ".agent").mkdir(exist_ok=True)
    merged = {"retry": {"baseDelay": 0.01, "maxDelay": 0.05}, **(settings or {})}
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps(merged))
    base_env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    cfg = configure(flags or Flags(trust_project=True), {**base_env, **(env or {})}, tmp_path)
    rec = Recorder()
    gate = Gate(TOOLS, cfg.permissions, mode, rec)
    agent = Agent(
        llm=LLM(cfg),
        tools=TOOLS,
        dispatcher=Dispatcher(TOOLS, (gate,)),
        sink=rec,
        ctx=ToolContext(cwd=tmp_path),
        system_prompt="You are a test.",
        max_steps=max_steps,
    )
    OPEN.append(agent)
    return agent, rec


async def close_all() -> None:
    while OPEN:
        await OPEN.pop().llm.aclose()


def of_type(rec: Recorder, kind: type) -> list[Any]:
    return [e for e in rec.events if isinstance(e, kind)]


AGENT_CMD = [sys.executable, "-m", "agent"]


def run_agent(
    env: dict[str, str], cwd: Path, *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m agent ARGS` as a user runs it: own process, stdin /dev/null unless given
    (forked from a warm zygote: see tests/zygote.py)."""
    z = zygote.zygote()
    if z is not None and z.fits(env) and z.lock.acquire(blocking=False):
        try:
            return z.run(env, cwd, list(args), stdin, timeout)
        finally:
            z.lock.release()
    return subprocess.run(
        [*AGENT_CMD, *args], env=env, cwd=cwd, input=stdin, capture_output=True, text=True,
        timeout=timeout, stdin=None if stdin is not None else subprocess.DEVNULL,
    )  # fmt: skip


def user_settings(env: dict[str, str], data: dict[str, Any]) -> None:
    """The user's own settings file in the home of `env` (a subprocess's environment)."""
    d = Path(env["HOME"]) / ".agent"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.json").write_text(json.dumps(data))


MCP_SERVERS = Path(__file__).parent / "mcp_servers"  # small MCP servers the tests start
# A shell step that returns once whoever reads the command's stdout has read all of it (a
# minute at most): a test interrupting a command after its output waits for this, not a time.
OUTPUT_READ = (
    f"{sys.executable} -c 'import array, fcntl, termios, time\n"
    'unread = array.array("i", [1])\n'
    "for _ in range(6000):\n"
    "    fcntl.ioctl(1, termios.FIONREAD, unread)\n"
    "    if not unread[0]: break\n"
    "    time.sleep(0.01)'"
)


async def holds(check: Callable[[], bool], within: float = 20.0) -> bool:
    """Whether `check()` comes to hold within `within` seconds (looked at every 50 ms): a wait
    for an event, bounded far above what it takes on a busy machine."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def alive(pid: int) -> bool:
    """Running (a killed orphan may linger as a zombie until init reaps it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def user_texts(body: dict[str, Any]) -> list[str]:
    """The user messages of one request the fake server received."""
    return [str(m["content"]) for m in body["messages"] if m["role"] == "user"]


def answering(choice: str = "y") -> tuple[list[Any], Any]:
    """An asker that records each permission request and answers `choice` to it."""
    from agent.permissions.request import Answer, AskRequest

    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer(choice)

    return asked, asker


def refusing() -> tuple[list[Any], Any]:
    """An asker that records each permission request and says no to it."""
    from agent.permissions.request import Answer, AskRequest

    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("n")

    return asked, asker


class Clock:
    """`time.perf_counter` as a test sets it: `advance` is a wait that takes no real time, so
    a duration the code measures is exactly what the test says happened, on any machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)  # still a wait: other tasks run meanwhile


async def command_output(ctx: Any, line: str) -> str:
    """Run a slash-command line in an in-process session (`ctx` on a StringIO console); what
    it printed (only the new output)."""
    from agent.commands.registry import dispatch

    before = len(ctx.console.file.getvalue())
    assert await dispatch(ctx, line)
    return str(ctx.console.file.getvalue()[before:])
