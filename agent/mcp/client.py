"""MCP connections: one long-lived task per server, on a private event loop in a daemon thread.

Each server's task enters its async context managers (log file, transport, ClientSession) and
leaves them itself, as anyio requires; everyone else talks to it through its inbox (a memory
stream: "tools", "resources" or "prompts" to list again, "lost", "stop") or by scheduling a
call on the loop and awaiting the future. The agent's loop never blocks on a server: it may be
idle (REPL prompt), busy, or not even started yet (one-shot start-up). A server that does not
finish `initialize` and listing what it offers within its timeout is marked "timeout" at once
and torn down in the background. Transports: stdio, streamable HTTP, SSE. A server that dies
after it was connected is restarted once, by the next call that needs it (`revive`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import __version__
from agent.base.record import RESULT_CAP, ToolResult
from agent.config import safefile
from agent.config.statedir import ensure_home, project_state
from agent.mcp.catalog import State, declared, listing
from agent.mcp.config import ServerSpec
from agent.mcp.results import Failed, call_failed, explain, refused, to_result, unavailable
from agent.mcp.transports import open_transport

if TYPE_CHECKING:
    from agent.sandbox.runtime import Sandbox

CLOSE_TIMEOUT = 10.0  # seconds to stop every server (stdio: EOF, then SIGTERM, then SIGKILL)
CHANGED = {f"notifications/{k}/list_changed": k for k in ("tools", "resources", "prompts")}


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
        self._generation = 0  # of the current attempt: a stale task's changes are ignored
        self._stopping = False
        self._log_start = 0
        self.lives = 1  # automatic restarts left after dying mid-session (reconnect: 1 again)
        self._connected_once = False  # this attempt reached "connected"
        self._reviving = asyncio.Lock()

    # -- on the MCP loop ------------------------------------------------------------------
    def start(self) -> None:
        self.state = replace(self.state, status="pending", error="")
        self.settled.clear()
        self.ready = asyncio.Event()
        self._stopping = self._connected_once = False
        self._generation += 1
        self._task = asyncio.get_running_loop().create_task(self._serve(self._generation))

    async def restart(self) -> None:
        """Stop, start, and return once the new attempt has settled."""
        await self.stop()
        self.start()
        await self.ready.wait()

    async def revive(self) -> None:
        """Before a request: a server that died after it was connected is restarted, once a
        session (a manual reconnect gives it that chance again); then it answers or stays
        failed. Concurrent requests share one restart."""
        async with self._reviving:
            if self.state.status == "failed" and self._connected_once and self.lives > 0:
                self.lives -= 1
                await self.restart()

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
        done, _ = await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
        if not done:  # a hung server: cancel the attempt outright, and wait for it to end
            if self._scope is not None:
                self._scope.cancel()
            task.cancel()
            await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)

    async def call(self, tool: str, args: dict[str, Any], room: int = RESULT_CAP) -> ToolResult:
        timeout = self.spec.tool_timeout
        try:
            result = await self.request(
                lambda s: s.call_tool(tool, args, read_timeout_seconds=timeout), tool
            )
        except Failed as e:
            return e.result
        return to_result(self.spec.name, result, room)

    async def request(
        self, ask: Callable[[Any], Awaitable[Any]], what: str, timed: bool = False
    ) -> Any:
        """`ask(session)`'s answer; Failed says why there is none (`timed`: within the
        server's toolTimeout, for requests without a timeout of their own)."""
        import anyio
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        session, state, name = self._session, self.state, self.spec.name
        if session is None or state.status != "connected":
            raise Failed(unavailable(name, state.status, state.error))
        try:
            with anyio.fail_after(self.spec.tool_timeout if timed else None):
                return await ask(session)
        except MCPError as e:
            kind = {REQUEST_TIMEOUT: "timeout", CONNECTION_CLOSED: "closed"}.get(e.code, "")
            if kind == "closed" and not self._stopping and session is self._session:
                # failed now: the next call revives it
                self._settle("failed", "the server closed the connection" + self._log_tail())
            raise Failed(refused(name, what, kind, e.message, self.spec.tool_timeout)) from None
        except TimeoutError:
            raise Failed(refused(name, what, "timeout", "", self.spec.tool_timeout)) from None
        except Exception as e:  # a transport or validation failure must not end the session
            why = f"{what} failed: {type(e).__name__}: {e}"
            raise Failed(call_failed(name, why, can_retry=False)) from None

    async def _serve(self, gen: int) -> None:
        """The owner task of attempt `gen`; once a newer attempt has started (a reconnect
        that gave up waiting for this one), nothing it does touches the connection's state."""
        import anyio

        timer = asyncio.get_running_loop().call_later(self.spec.timeout, self._on_timeout, gen)
        send, inbox = anyio.create_memory_object_stream[str](64)
        try:
            with anyio.CancelScope() as scope:
                if gen == self._generation:
                    self._inbox, self._scope = send, scope
                await self._run(inbox, timer, gen)
        except Exception as e:  # every failure becomes the server's status
            if gen == self._generation:
                self._settle("failed", explain(e) + self._log_tail())
        finally:
            timer.cancel()
            send.close()
            inbox.close()
            if gen == self._generation:
                self._session = self._inbox = self._scope = None
                if self.state.status in ("pending", "connected"):
                    why = "stopped" if self._stopping else "the connection ended"
                    why += "" if self._stopping else self._log_tail()
                    self._settle("closed" if self._stopping else "failed", why)
                self.settled.set()
                self.ready.set()

    async def _run(self, inbox: Any, timer: asyncio.TimerHandle, gen: int) -> None:
        import anyio

        async with contextlib.AsyncExitStack() as stack:
            session = await self._open(stack, gen)
            kinds = declared(await session.initialize())
            for kind in kinds:
                await self._list(session, kind, gen)
            timer.cancel()
            if gen != self._generation:
                return
            self._session, self._connected_once = session, True
            self._settle("connected", "")
            async for cmd in inbox:
                if cmd == "stop":
                    return
                if cmd == "lost":
                    raise ConnectionError("the server closed the connection (did it exit?)")
                if cmd in kinds:  # its list_changed notification
                    with anyio.fail_after(self.spec.timeout):
                        await self._list(session, cmd, gen)

    async def _open(self, stack: contextlib.AsyncExitStack, gen: int) -> Any:
        import anyio
        from mcp import ClientSession
        from mcp.types import Implementation

        # Never through a link (a refused log fails this connection, saying why); private:
        # a server's stderr may show tokens.
        home = ensure_home()
        self._log = stack.enter_context(safefile.open_append(home, self.log_path, 0o600))
        self._log_start = self._log.tell()
        self._note(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} connecting ({self.spec.transport})")
        transport = await open_transport(self.spec, self.root, self.box, self._log, stack)
        read, write = await stack.enter_async_context(transport)
        to_session, from_transport = anyio.create_memory_object_stream[Any](0)
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)
        group.start_soon(self._forward, read, to_session, gen)

        async def on_message(message: Any) -> None:
            await self._on_message(message, gen)

        session = ClientSession(
            from_transport,
            write,
            message_handler=on_message,
            client_info=Implementation(name="agent", version=__version__),
        )
        return await stack.enter_async_context(session)

    async def _forward(self, source: Any, sink: Any, gen: int) -> None:
        """Pass messages on to the session; the transport's end means the server is gone."""
        import anyio

        async with sink:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for item in source:
                    await sink.send(item)
        self._post("lost", gen)

    async def _on_message(self, message: Any, gen: int) -> None:
        kind = CHANGED.get(getattr(message, "method", None) or "")
        if kind is not None:
            self._post(kind, gen)
        elif isinstance(message, Exception):
            self._note(f"transport error: {message!r}")

    async def _list(self, session: Any, kind: str, gen: int) -> None:
        """List one kind again; only a failing tools/list fails the connection."""
        try:
            found = await listing(session, kind)
        except Exception as e:
            if kind == "tools":
                raise
            self._note(f"{kind}/list failed: {explain(e)}")
            return
        if gen != self._generation:
            return
        self.state = replace(self.state, **{kind: found})  # type: ignore[arg-type]
        self._changed()

    def _on_timeout(self, gen: int) -> None:
        if gen == self._generation and self.state.status == "pending":
            why = f"no answer to initialize within {self.spec.timeout:g}s"
            self._settle("timeout", why + self._log_tail())
            if self._scope is not None:
                self._scope.cancel()

    def _settle(self, status: str, why: str) -> None:
        if self.state.status == "timeout" or self.state.status == status == "failed":
            return  # the first explanation is the one to keep (and was said)
        self.state = replace(self.state, status=status, error=why)
        if why:
            self._note(f"{status}: {why}")
        self.settled.set()
        self.ready.set()
        self._changed()

    def _post(self, command: str, gen: int | None = None) -> None:
        """Send `command` to the current attempt's task (`gen`: only if it is that attempt's)."""
        import anyio

        if gen is not None and gen != self._generation:
            return
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
