"""An ACP client of the package's own, driving `agent --acp` in a subprocess against the
scripted model: it records the updates, answers permission requests as the test says, and
(when the test offers it) serves file reads and writes as an editor's buffers would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from acp.stdio import spawn_agent_process
from fake_openai import FakeOpenAI


@dataclass
class EditorClient:
    """What an editor does, recorded: updates by kind, permission requests, file traffic."""

    answer: str = "allow_once"  # the option kind picked; "cancel" = the cancelled outcome
    buffers: dict[str, str] = field(default_factory=dict)  # path -> unsaved editor text
    updates: list[Any] = field(default_factory=list)
    asked: list[tuple[Any, list[Any]]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: dict[str, str] = field(default_factory=dict)
    on_update: Callable[[Any], None] | None = None
    terminals: dict[str, Any] = field(default_factory=dict)
    commands: list[list[str]] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        if self.on_update is not None:
            self.on_update(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        if self.answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        pick = next(o for o in options if o.kind == self.answer)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=pick.option_id)
        )

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        text = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        self.writes[path] = content
        self.buffers[path] = content
        await asyncio.to_thread(Path(path).write_text, content, encoding="utf-8")  # saved
        return WriteTextFileResponse()

    # terminals: real processes, as an editor runs them
    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, cwd: str | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:  # fmt: skip
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        tid = f"term-{len(self.terminals) + 1}"
        self.terminals[tid] = proc
        self.commands.append([command, *(args or [])])
        return CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id].wait()
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        proc = self.terminals[terminal_id]
        assert proc.stdout is not None
        data = await proc.stdout.read() if proc.returncode is not None else b""
        return TerminalOutputResponse(output=data.decode(), truncated=False)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        self.killed.append(terminal_id)
        proc = self.terminals[terminal_id]
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        self.released.append(terminal_id)

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def said(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))


def acp_env(fake: FakeOpenAI, home: Path) -> dict[str, str]:
    import os

    home.mkdir(exist_ok=True)
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY")
        and not k.startswith(("AGENT_", "OPENAI_", "DEEPSEEK_"))
        and not k.startswith("XDG_")
    }
    return {
        **keep,
        "AGENT_BASE_URL": fake.base_url,
        "AGENT_API_KEY": "k",
        "AGENT_MODEL": "fake-model",
        "AGENT_SANDBOX": "off",
        "HOME": str(home),
        "AGENT_STATE_DIR": os.environ["AGENT_STATE_DIR"],
        "AGENT_CACHE_DIR": os.environ["AGENT_CACHE_DIR"],
    }


@contextlib.asynccontextmanager
async def editor(
    fake: FakeOpenAI,
    project: Path,
    client: EditorClient,
    *args: str,
    fs: bool = False,
    terminal: bool = False,
    mcp: list[Any] | None = None,
) -> AsyncIterator[tuple[Any, str]]:
    """`agent --acp` started, initialized, with one new session: (connection, session id)."""
    env = acp_env(fake, project.parent / "home")
    cmd = ("-m", "agent", "--acp", "--trust-project", *args)
    spawn = spawn_agent_process(lambda _: client, sys.executable, *cmd, env=env, cwd=project)
    async with spawn as (conn, _process):
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal
        )
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
        new = await conn.new_session(cwd=str(project), mcp_servers=mcp or [])
        yield conn, new.session_id


async def ask(conn: Any, session_id: str, text: str) -> Any:
    return await conn.prompt(session_id=session_id, prompt=[text_block(text)])


def last_user(fake: FakeOpenAI) -> str:
    msgs = fake.requests[-1]["messages"]
    return json.dumps([m for m in msgs if m["role"] == "user"][-1]["content"])
