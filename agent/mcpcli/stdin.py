"""What `agent mcp serve` reads: stdin through agent.editor.wire, handed to the SDK's
stdio_server as its `stdin`. Lines are bounded (a longer one is read past, never held); a line
that is not a JSON-RPC message the SDK accepts gets a JSON-RPC error (Parse error or Invalid
Request, id null) instead of the SDK's silence, and the session goes on.

Giving stdio_server its stdin means claiming fd 0 here as it would: the wire keeps a private
duplicate and fd 0 points at /dev/null, so commands the tools run read an empty stdin.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from agent.editor.wire import INVALID_REQUEST, STEP, Lines, TooLong, check, error

log = logging.getLogger("agent.mcpcli")
QUEUED = 64  # error responses waiting for stdout before reading stops for them


def accepted(line: bytes | TooLong) -> str | dict[str, Any] | None:
    """The line to hand the SDK, the error response it gets instead, or None (a blank line)."""
    checked = check(line)
    if checked.message is None:
        return checked.error
    try:
        types.jsonrpc_message_adapter.validate_python(checked.message, by_name=False)
    except ValidationError as exc:
        details = exc.errors()
        why = "not a JSON-RPC message"
        if details:  # the first thing wrong, where: `JSONRPCRequest.jsonrpc: Field required`
            why = ".".join(str(p) for p in details[0]["loc"]) + ": " + details[0]["msg"]
        return error(INVALID_REQUEST, f"Invalid Request: {why[:300]}")
    return json.dumps(checked.message)


class GuardedStdin:
    """An async iterator of the well-formed lines, for stdio_server; the error responses the
    others get wait in a queue that `answer` writes out."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lines = Lines(self._read)
        self.queue, self.queued = anyio.create_memory_object_stream[dict[str, Any]](QUEUED)

    async def _read(self) -> bytes:
        return await anyio.to_thread.run_sync(os.read, self.fd, STEP, abandon_on_cancel=True)

    def __aiter__(self) -> GuardedStdin:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.lines.next()
            if line is None:
                raise StopAsyncIteration
            out = accepted(line)
            if isinstance(out, str):
                return out
            if out is not None:
                log.warning("%s", out["error"]["message"])
                await self.queue.send(out)

    async def answer(self, write: Any) -> None:
        """Write the error responses as they come (until cancelled)."""
        async for reply in self.queued:
            await write.send(SessionMessage(types.JSONRPCError.model_validate(reply)))


@contextlib.contextmanager
def claimed() -> Iterator[int]:
    """A private duplicate of fd 0 for the wire, fd 0 itself on /dev/null meanwhile."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield wire
    finally:
        os.dup2(wire, 0)  # `wire` stays open: a reading thread may still be blocked on it
