"""The MCP servers of a session: start them in the background, route calls, report, close.

The connections run on a private event loop in a daemon thread (see agent.mcp_client), so the
agent's own loop never waits on a server and the REPL can sit at its prompt while servers
connect, send notifications or die. Calls cross over as futures. A server that died during the
session is restarted once, by the next request that needs it (Connection.revive).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.base.record import RESULT_CAP, ToolResult
from agent.mcp.client import CLOSE_TIMEOUT, Connection
from agent.mcp.config import ServerSpec
from agent.mcp.results import Failed, unavailable

if TYPE_CHECKING:
    from agent.sandbox.runtime import Sandbox


class Manager:
    """All servers of a session: starts them, answers calls, reports statuses, closes them."""

    def __init__(self, specs: list[ServerSpec], root: Path, box: Sandbox | None = None) -> None:
        self.conns = {s.name: Connection(s, root, self._bump, box) for s in specs}
        self.version = 0  # bumped on every state or tool-list change
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True)
        self._closed = False

    def start(self) -> None:
        self._thread.start()
        self._submit(self._each(lambda c: c.start()))
        atexit.register(self.close)  # no orphans, whichever way the program ends

    def wait(self, timeout: float | None = None) -> None:
        """Block until every server has connected, failed or timed out (bounded)."""
        longest = max((c.spec.timeout for c in self.conns.values()), default=0.0)
        deadline = time.monotonic() + (longest + 1 if timeout is None else timeout)
        for c in self.conns.values():
            c.settled.wait(max(0.0, deadline - time.monotonic()))

    def statuses(self) -> list[dict[str, Any]]:
        out = []
        for name, c in self.conns.items():
            st = c.state
            item: dict[str, Any] = {"name": name, "status": st.status, "tools": len(st.tools)}
            if st.resources:
                item["resources"] = len(st.resources)
            if st.prompts:
                item["prompts"] = len(st.prompts)
            if st.error:
                item["error"] = st.error
            out.append(item)
        return out

    async def call(
        self, server: str, tool: str, args: dict[str, Any], room: int = RESULT_CAP
    ) -> ToolResult:
        """Call one tool; its text is cut to `room` characters (ToolContext.result_room)."""
        conn = self.conns[server]
        if self._closed:
            return unavailable(server, "closed", "the session is shutting down")

        async def call() -> ToolResult:
            await conn.revive()
            return await conn.call(tool, args, room)

        return await asyncio.wrap_future(self._submit(call()))

    async def read_resource(self, server: str, uri: str, wait: bool = False) -> Any:
        """The server's `resources/read` result (`wait`: for a server still connecting, as
        long as its connect timeout); Failed says why there is none."""
        return await self._request(server, lambda s: s.read_resource(uri), f"reading {uri}", wait)

    async def get_prompt(self, server: str, name: str, args: dict[str, str]) -> Any:
        """The server's `prompts/get` result; Failed says why there is none."""
        return await self._request(
            server, lambda s: s.get_prompt(name, args or None), f"prompt {name}", True
        )

    async def _request(self, server: str, ask: Callable[[Any], Any], what: str, wait: bool) -> Any:
        conn = self.conns[server]
        if self._closed:
            raise Failed(unavailable(server, "closed", "the session is shutting down"))

        async def request() -> Any:
            if wait and conn.state.status == "pending":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(conn.ready.wait(), conn.spec.timeout)
            await conn.revive()
            return await conn.request(ask, what, timed=True)

        return await asyncio.wrap_future(self._submit(request()))

    async def reconnect(self, server: str) -> dict[str, Any]:
        """Stop and start one server (it may be restarted once more if it dies again);
        returns its status once it settles."""
        conn = self.conns[server]
        conn.lives = 1
        await asyncio.wrap_future(self._submit(conn.restart()))
        return next(s for s in self.statuses() if s["name"] == server)

    def close(self) -> None:
        """Stop every server and the loop thread (idempotent; also runs at exit)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            atexit.unregister(self.close)
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._submit(self._shutdown()).result(CLOSE_TIMEOUT + 2)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(CLOSE_TIMEOUT)
        if not self._thread.is_alive():
            self._loop.close()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    async def _shutdown(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.conns.values()), return_exceptions=True)
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in rest:
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    async def _each(self, fn: Callable[[Connection], None]) -> None:
        for c in self.conns.values():
            fn(c)

    def _bump(self) -> None:
        self.version += 1

    def _submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)
