"""MCP connections: one long-lived task per server, on a private event loop in a daemon thread.

Each server's task enters its async context managers (log file, transport, ClientSession) and
leaves them itself, as anyio requires; everyone else talks to it through its inbox (a memory
stream: "relist", "lost", "stop") or by scheduling a call on the loop and awaiting the future.
The agent's loop never blocks on a server: it may be idle (REPL prompt), busy, or not even
started yet (one-shot start-up). A server that does not finish `initialize` and `tools/list`
within its timeout is marked "timeout" at once and torn down in the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import __version__
from agent.base.record import RESULT_CAP, ToolResult
from agent.config import safefile
from agent.config.statedir import ensure_home, project_state
from agent.mcp.config import ServerSpec
from agent.mcp.results import call_failed, to_result, unavailable

if TYPE_CHECKING:
    from agent.sandbox.runtime import Sandbox

CLOSE_TIMEOUT = 10.0  # seconds to stop every server (stdio: EOF, then SIGTERM, then SIGKILL)
MAX_PAGES = 50  # tools/list pages read per listing
MODEL_KEYS = ("AGENT_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY")  # not handed to servers


@dataclass(frozen=True)
class ToolInfo:
    """One tool as the server listed it (plain data, safe to read from any thread)."""

    name: str
    description: str
    schema: dict[str, Any]
    read_only: bool


@dataclass(frozen=True)
class State:
    """Replaced as a whole on the MCP thread; readers take one reference."""

    status: str = "pending"  # pending | connected | failed | timeout | closed
    error: str = ""
    tools: tuple[ToolInfo, ...] = ()


class Connection:
    """One server: its state, its owner task and the session while connected."""

    def __init__(
        self,
        spec: ServerSpec,
        root: Path,
        changed: Callable[[], None],
        box: Sandbox | None = None,  # stdio servers run inside it (sandbox.mcp)
    ) -> None:
        self.box = box
        self.spec = spec
        self.root = root
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", spec.name)
        self.log_path = project_state(root) / f"mcp-{name}.log"  # outside the project
        self.state = State()
        self.settled = threading.Event()  # set when the state leaves "pending"
        self.ready = asyncio.Event()  # the same, for the MCP loop
        self._changed = changed
        self._session: Any = None
        self._inbox: Any = None
        self._scope: Any = None
        self._log: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._log_start = 0

    # -- on the MCP loop ------------------------------------------------------------------
    def start(self) -> None:
        self.state = replace(self.state, status="pending", error="")
        self.settled.clear()
        self.ready = asyncio.Event()
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._serve())

    async def stop(self) -> None:
        """End the session and its process; returns when the owner task has finished."""
        task, self._stopping = self._task, True
        if task is None or task.done():
            return
        if self._session is not None:
            self._post("stop")  # a clean exit (HTTP sessions get their DELETE)
        elif self._scope is not None:
            self._scope.cancel()
        else:
            task.cancel()
        await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)

    async def call(self, tool: str, args: dict[str, Any], room: int = RESULT_CAP) -> ToolResult:
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        session, state = self._session, self.state
        if session is None or state.status != "connected":
            return unavailable(self.spec.name, state.status, state.error)
        try:
            result = await session.call_tool(
                tool, args, read_timeout_seconds=self.spec.tool_timeout
            )
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:
                return call_failed(
                    self.spec.name,
                    f"{tool} did not answer within {self.spec.tool_timeout:g}s",
                    can_retry=False,
                    hint="the call was cancelled; do not retry blindly",
                )
            if e.code == CONNECTION_CLOSED:
                why = "the server closed the connection during the call (it may have crashed)"
                return unavailable(self.spec.name, "failed", why)
            return call_failed(self.spec.name, f"{tool} failed: {e.message}", can_retry=True)
        except Exception as e:  # a transport or validation failure must not end the session
            return call_failed(
                self.spec.name, f"{tool} failed: {type(e).__name__}: {e}", can_retry=False
            )
        return to_result(self.spec.name, result, room)

    async def _serve(self) -> None:
        import anyio

        timer = asyncio.get_running_loop().call_later(self.spec.timeout, self._on_timeout)
        send, inbox = anyio.create_memory_object_stream[str](64)
        self._inbox = send
        try:
            with anyio.CancelScope() as self._scope:
                await self._run(inbox, timer)
        except Exception as e:  # every failure becomes the server's status
            self._settle("failed", _explain(e) + self._log_tail())
        finally:
            timer.cancel()
            self._session = self._inbox = self._scope = None
            send.close()
            inbox.close()
            if self.state.status in ("pending", "connected"):
                why = "stopped" if self._stopping else "the connection ended" + self._log_tail()
                self._settle("closed" if self._stopping else "failed", why)
            self.settled.set()
            self.ready.set()

    async def _run(self, inbox: Any, timer: asyncio.TimerHandle) -> None:
        import anyio

        async with contextlib.AsyncExitStack() as stack:
            session = await self._open(stack)
            await session.initialize()
            await self._list(session)
            timer.cancel()
            self._session = session
            self._settle("connected", "")
            async for cmd in inbox:
                if cmd == "stop":
                    return
                if cmd == "lost":
                    raise ConnectionError("the server closed the connection (did it exit?)")
                with anyio.fail_after(self.spec.timeout):  # "relist": tools/list_changed
                    await self._list(session)

    async def _open(self, stack: contextlib.AsyncExitStack) -> Any:
        import anyio
        from mcp import ClientSession
        from mcp.types import Implementation

        # Never through a link (a refused log fails this connection, saying why); private:
        # a server's stderr may show tokens.
        home = ensure_home()
        self._log = stack.enter_context(safefile.open_append(home, self.log_path, 0o600))
        self._log_start = self._log.tell()
        self._note(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} connecting ({self.spec.transport})")
        read, write = await stack.enter_async_context(await self._transport(stack))
        to_session, from_transport = anyio.create_memory_object_stream[Any](0)
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)
        group.start_soon(self._forward, read, to_session)
        session = ClientSession(
            from_transport,
            write,
            message_handler=self._on_message,
            client_info=Implementation(name="agent", version=__version__),
        )
        return await stack.enter_async_context(session)

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        s = self.spec
        if s.transport == "http":
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(create_mcp_http_client(headers=s.headers))
            return streamable_http_client(s.url, http_client=http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = {k: v for k, v in os.environ.items() if k not in MODEL_KEYS} | s.env
        cwd = self.root / s.cwd if s.cwd else None
        argv = [s.command, *s.args]
        if self.box is not None:
            argv = self.box.wrap(argv, cwd or self.root)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
        return stdio_client(params, errlog=self._log)

    async def _forward(self, source: Any, sink: Any) -> None:
        """Pass messages on to the session; the transport's end means the server is gone."""
        import anyio

        async with sink:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for item in source:
                    await sink.send(item)
        self._post("lost")

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", "") == "notifications/tools/list_changed":
            self._post("relist")
        elif isinstance(message, Exception):
            self._note(f"transport error: {message!r}")

    async def _list(self, session: Any) -> None:
        from mcp.types import PaginatedRequestParams

        tools: list[Any] = []
        cursor = None
        for _ in range(MAX_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        self.state = replace(self.state, tools=tuple(_info(t) for t in tools))
        self._changed()

    def _on_timeout(self) -> None:
        if self.state.status == "pending":
            why = f"no answer to initialize within {self.spec.timeout:g}s"
            self._settle("timeout", why + self._log_tail())
            if self._scope is not None:
                self._scope.cancel()

    def _settle(self, status: str, why: str) -> None:
        if self.state.status == "timeout":
            return  # the timeout's message explains more than the teardown's
        self.state = replace(self.state, status=status, error=why)
        if why:
            self._note(f"{status}: {why}")
        self.settled.set()
        self.ready.set()
        self._changed()

    def _post(self, command: str) -> None:
        import anyio

        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError, AttributeError):
            self._inbox.send_nowait(command)

    def _note(self, line: str) -> None:
        with contextlib.suppress(Exception):
            self._log.write(line + "\n")
            self._log.flush()

    def _log_tail(self) -> str:
        """The server's last stderr line of this attempt, to explain a failure."""
        try:
            with self.log_path.open(encoding="utf-8", errors="replace") as f:
                f.seek(self._log_start)
                lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("---")]
        except OSError:
            return ""
        return f" (stderr: {lines[-1][:300]})" if lines else ""


def _info(tool: Any) -> ToolInfo:
    ann = getattr(tool, "annotations", None)
    read_only = bool(ann and ann.read_only_hint is True and ann.destructive_hint is not True)
    schema = dict(getattr(tool, "input_schema", None) or {})
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    description = tool.description or getattr(tool, "title", None) or tool.name
    return ToolInfo(tool.name, description, schema, read_only)


def _explain(e: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap them in groups)."""
    while getattr(e, "exceptions", None):  # an ExceptionGroup
        e = e.exceptions[0]  # type: ignore[attr-defined]
    text = str(e) or type(e).__name__
    return text if isinstance(e, OSError) else f"{type(e).__name__}: {text}"
