"""JSON-RPC over stdio, one message a line, from a peer that may send anything: lines are read
at most MAX_LINE bytes at a time (a longer one is dropped as it streams, never held), and a
line that is not a JSON-RPC message is answered with the error JSON-RPC 2.0 names for it —
Parse error (-32700) or Invalid Request (-32600), with a null id — while the session goes on.

Shared by `agent --acp` (agent.editor.stdio) and `agent mcp serve` (agent.mcpcli.serve): their
libraries ended the session on a line of `[]`, `null` or `"text"`, or answered nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

MAX_LINE = 16 << 20  # bytes of one message (JSON takes up to ~12 times that once parsed)
STEP = 1 << 16  # bytes read at a time
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class TooLong:
    """A line over MAX_LINE bytes: read past, not kept."""


TOO_LONG = TooLong()


class Lines:
    """Lines of a byte stream (without their newline), each at most `limit` bytes: a longer
    one comes out as TOO_LONG once its end is found; None at the end of the stream."""

    def __init__(self, read: Callable[[], Awaitable[bytes]], limit: int = MAX_LINE) -> None:
        self.read, self.limit = read, limit
        self.buf = bytearray()
        self.dropping = False  # inside a line over the limit
        self.searched = 0  # bytes of buf known to hold no newline

    async def next(self) -> bytes | TooLong | None:
        while True:
            at = self.buf.find(b"\n", self.searched)
            if at >= 0:
                line = bytes(self.buf[:at])
                del self.buf[: at + 1]
                self.searched = 0
                if self.dropping or len(line) > self.limit:
                    self.dropping = False
                    return TOO_LONG
                return line
            if len(self.buf) > self.limit:
                self.buf.clear()  # the rest of this line is read past
                self.dropping = True
            self.searched = len(self.buf)
            chunk = await self.read()
            if not chunk:  # the end: what is left is a last line without its newline
                line, self.buf, self.searched = bytes(self.buf), bytearray(), 0
                if self.dropping:
                    self.dropping = False
                    return TOO_LONG
                return line or None
            self.buf += chunk


@dataclass(frozen=True)
class Checked:
    """One line looked at: the message to handle, or the error response to send (or neither:
    a blank line)."""

    message: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


def error(code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _shape(msg: dict[str, Any]) -> str:
    """Why an object is not a request, a notification or a response ("" when it is one)."""
    has_id = "id" in msg
    ident = msg.get("id")
    if has_id and (isinstance(ident, bool) or not isinstance(ident, (str, int, type(None)))):
        return "its id must be a string, a number or null"
    if "method" in msg:
        return "" if isinstance(msg["method"], str) else "its method must be a string"
    if has_id and ("result" in msg or "error" in msg):
        return ""  # a response to a request of ours
    return "it has no method (a request or notification) and no result or error (a response)"


def check(line: bytes | TooLong) -> Checked:
    """A line as a JSON-RPC message, or the error response it gets."""
    if isinstance(line, TooLong):
        why = f"a message over {MAX_LINE >> 20} MB was read past, not parsed"
        return Checked(error=error(INVALID_REQUEST, f"Invalid Request: {why}"))
    if not line.strip():
        return Checked()
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as exc:  # RecursionError: [[[[… nested too deep
        why = str(exc).splitlines()[0][:200] if str(exc) else "nested too deeply"
        return Checked(error=error(PARSE_ERROR, f"Parse error: not JSON ({why})"))
    if not isinstance(msg, dict):
        why = "batches are not supported" if isinstance(msg, list) and msg else _kind(msg)
        return Checked(error=error(INVALID_REQUEST, f"Invalid Request: not an object ({why})"))
    why = _shape(msg)
    if why:
        return Checked(error=error(INVALID_REQUEST, f"Invalid Request: {why}"))
    return Checked(message=msg)
