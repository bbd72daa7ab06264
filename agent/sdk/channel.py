"""Both directions of the SDK's stdio: JSON lines in (a line that is not a JSON object is said
on stderr and skipped), JSON lines out (one writer, whole lines), and the control requests the
agent sends the program, each waiting for its `control_response` by request id."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import IO, Any

from agent.base.visible import visible
from agent.editor.wire import STEP, Lines, TooLong

Json = dict[str, Any]


class ControlError(Exception):
    """The program answered a control request with an error (or not at all)."""


class Channel:
    """stdin and stdout of a session driven by an SDK."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.pending: dict[str, asyncio.Future[Json]] = {}
        self.ids = itertools.count(1)
        self.closed = False  # stdin ended: no answer will come to a request

    def write(self, message: Json) -> None:
        """One message, one line (written whole: nothing else writes to stdout)."""
        try:
            self.out.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
            self.out.flush()
        except (OSError, ValueError):  # the program is gone: what is left ends at stdin's EOF
            self.closed = True

    async def request(self, body: Json, timeout: float | None = None) -> Json:
        """Send a control request to the program and wait for its response's body."""
        if self.closed:
            raise ControlError("the program closed its end of the session")
        rid = f"agent_{next(self.ids)}"
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self.pending[rid] = future
        self.write({"type": "control_request", "request_id": rid, "request": body})
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise ControlError(f"no answer to {body.get('subtype')} in {timeout:g} s") from None
        finally:
            self.pending.pop(rid, None)

    def answered(self, response: Json) -> None:
        """A `control_response` from the program: the waiting request gets it."""
        future = self.pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(ControlError(str(response.get("error") or "error")))
        else:
            body = response.get("response")
            future.set_result(body if isinstance(body, dict) else {})

    def reply(self, request_id: str, body: Json | None = None, error: str = "") -> None:
        """Answer one of the program's control requests."""
        response: Json = {"request_id": request_id}
        if error:
            response.update(subtype="error", error=error)
        else:
            response.update(subtype="success", response=body or {})
        self.write({"type": "control_response", "response": response})

    def end(self) -> None:
        """stdin ended: the requests still waiting will not be answered."""
        self.closed = True
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ControlError("the program closed its end of the session"))


async def messages(
    read: Callable[[], Awaitable[bytes]], err: IO[str] = sys.stderr
) -> AsyncIterator[Json]:
    """The JSON objects of the program's lines; a broken line is said on stderr and skipped."""
    lines = Lines(read)
    while True:
        line = await lines.next()
        if line is None:
            return
        if isinstance(line, TooLong):
            err.write("agent: a stream-json line over 16 MB was skipped\n")
            continue
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as e:
            err.write(f"agent: skipped a line that is not JSON: {visible(str(e))}\n")
            continue
        if not isinstance(message, dict):
            err.write("agent: skipped a stream-json line that is not a JSON object\n")
            continue
        yield message


def stdin_reader() -> Callable[[], Awaitable[bytes]]:
    """Reads of stdin that do not block the loop (a thread per read: stdin may be anything)."""
    fd = sys.stdin.fileno()

    async def read() -> bytes:
        import os

        return await asyncio.to_thread(os.read, fd, STEP)

    return read
