"""JSON-RPC over a language server's stdin and stdout (the LSP base protocol: a
`Content-Length` header, then the JSON), on plain dicts.

Why not pygls/lsprotocol: measured (2026-12), its client refused the `initialize` answers of
ty, pyrefly and `ruff server` (newer capabilities its typed structuring does not know) and
stopped reading; a language server's messages are read here as data, and only the fields used
are looked at. Every request has a time limit; a message over MAX_MESSAGE bytes ends the
connection (a server gone wrong must not fill the memory); what the server prints on stderr
goes to its log file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

MAX_MESSAGE = 32 * 1024 * 1024
Handler = Callable[[Any], Any]


class LspError(Exception):
    """A request failed: the server answered with an error, timed out or is gone."""


class Connection:
    """One server process and the requests in flight to it."""

    def __init__(self, proc: asyncio.subprocess.Process, log: IO[bytes] | None = None) -> None:
        self.proc = proc
        self.log = log
        self.notes: dict[str, Handler] = {}  # server notifications by method
        self.answers: dict[str, Handler] = {}  # server requests by method (else null)
        self._next = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def spawn(cls, argv: list[str], cwd: Path, env: dict[str, str], log: Path) -> Connection:
        out = await asyncio.to_thread(_log_file, log)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=out,
                cwd=cwd,
                env=env,
                start_new_session=True,  # its own group: ended whole, never by the user's ^C
                limit=MAX_MESSAGE,
            )
        except OSError:
            out.close()
            raise
        return cls(proc, out)

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None and not self._reader.done()

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        if not self.alive:
            raise LspError("the language server is not running")
        self._next += 1
        ident = self._next
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = waiter
        try:
            await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
            return await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            await self.notify("$/cancelRequest", {"id": ident})
            raise LspError(f"{method}: no answer within {timeout:g} s") from None
        finally:
            self._waiting.pop(ident, None)

    async def notify(self, method: str, params: Any) -> None:
        if self.alive:
            await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=False).encode()
        stdin = self.proc.stdin
        if stdin is None:
            return
        try:
            stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await stdin.drain()
        except (ConnectionError, RuntimeError) as e:
            raise LspError(f"the language server stopped reading: {e}") from None

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while (message := await _frame(stdout)) is not None:
                await self._take(message)
        except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a broken frame: the server is of no more use
        finally:
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(LspError("the language server exited"))

    async def _take(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:  # an answer
            waiter = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
            if waiter is not None and not waiter.done():
                if "error" in message:
                    error = message["error"] or {}
                    waiter.set_exception(LspError(str(error.get("message", error))))
                else:
                    waiter.set_result(message.get("result"))
        elif "id" in message:  # the server asks (workspace/configuration, registrations…)
            handler = self.answers.get(method)
            result = handler(message.get("params")) if handler is not None else None
            await self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif (note := self.notes.get(method)) is not None:
            note(message.get("params"))

    async def close(self, timeout: float = 3.0) -> None:
        """`shutdown` and `exit`, then the process group ended if it lingers."""
        with contextlib.suppress(LspError):
            await self.request("shutdown", None, timeout)
            await self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, 9)
            await self.proc.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        if self.log is not None:
            self.log.close()


def _log_file(log: Path) -> IO[bytes]:
    log.parent.mkdir(parents=True, exist_ok=True)
    return open(log, "ab")  # closed with the connection


async def _frame(stream: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length = -1
    while True:
        line = await stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if not 0 <= length <= MAX_MESSAGE:
        raise ValueError(f"a message of {length} bytes")
    message = json.loads(await stream.readexactly(length))
    if not isinstance(message, dict):
        raise ValueError("not a JSON-RPC message")
    return message
