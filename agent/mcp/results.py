"""MCP tool results → ToolResult: text joined, images/audio as placeholders, resources as text.

Works on the SDK's result objects by attribute (`content`, `structured_content`, `is_error`), so
this module imports nothing from `mcp`.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from agent.base.record import RESULT_CAP, ToolResult, cap, error

_MORE = (
    "the MCP tool returned more than fits in a result; call it asking for less (a narrower "
    "query, a page or a limit, if it has one)"
)

TEXTUAL = ("text/", "application/json", "application/xml", "application/yaml", "+json", "+xml")


def to_result(server: str, result: Any, room: int = RESULT_CAP) -> ToolResult:
    """The model-facing text of one `tools/call` result, cut to `room` characters (the result
    cap, or more when the loop saves long results)."""
    parts = [block_text(b) for b in (getattr(result, "content", None) or [])]
    text = "\n".join(p for p in parts if p)
    structured = getattr(result, "structured_content", None)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False, default=str)
    if getattr(result, "is_error", False):
        text = f"Error from the MCP server {server!r}: {text or 'no details given'}"
        return ToolResult(cap(text, room, how_to_see_more=_MORE), is_error=True)
    text = text or "(the tool returned no content)"
    return ToolResult(cap(text, room, how_to_see_more=_MORE))


class Failed(Exception):
    """A request that did not get an answer; `result` says why, for the model."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.output)
        self.result = result


def reason(result: ToolResult) -> str:
    """An error result's first line, for a person (no "Error:", no retry advice)."""
    return result.output.split("\n", 1)[0].removeprefix("Error: ")


def unavailable(server: str, status: str, why: str) -> ToolResult:
    """The answer of a tool whose server is not connected: what, why, and what to do."""
    if status == "pending":
        return error(
            f"the MCP server {server!r} is still connecting",
            can_retry=True,
            hint="try again in a moment, or continue without it",
        )
    detail = f" ({status}: {why})" if why else f" ({status})"
    return error(
        f"the MCP server {server!r} is not connected{detail}; its tools are unavailable",
        can_retry=False,
        hint=f"continue without it; the user can run `/mcp reconnect {server}`",
    )


def explain(e: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap them in groups)."""
    while getattr(e, "exceptions", None):  # an ExceptionGroup
        e = e.exceptions[0]  # type: ignore[attr-defined]
    text = str(e) or type(e).__name__
    return text if isinstance(e, OSError) else f"{type(e).__name__}: {text}"


def call_failed(server: str, what: str, *, can_retry: bool, hint: str = "") -> ToolResult:
    return error(f"MCP server {server!r}: {what}", can_retry=can_retry, hint=hint)


def refused(server: str, what: str, kind: str, message: str, timeout: float) -> ToolResult:
    """A request that got no answer: `kind` "timeout" (after `timeout` s), "closed" (the
    connection went during the call), or "" (the server's error `message`)."""
    if kind == "timeout":
        return call_failed(
            server,
            f"{what} did not answer within {timeout:g}s",
            can_retry=False,
            hint="the call was cancelled; do not retry blindly",
        )
    if kind == "closed":
        why = "the server closed the connection during the call (it may have crashed)"
        return unavailable(server, "failed", why)
    return call_failed(server, f"{what} failed: {message}", can_retry=True)


def block_text(b: Any) -> str:
    """One content block (of a tool result or a prompt message) as text."""
    kind = getattr(b, "type", "")
    if kind == "text":
        return str(getattr(b, "text", ""))
    if kind in ("image", "audio"):
        mime = getattr(b, "mime_type", "") or "unknown type"
        return f"[{kind}: {mime}, {size_text(getattr(b, 'data', ''))}; not shown to the model]"
    if kind == "resource":
        return resource_text(getattr(b, "resource", None))
    if kind == "resource_link":
        name = getattr(b, "name", "") or ""
        return f"[resource link: {name} {getattr(b, 'uri', '')}]".replace("  ", " ")
    return f"[{kind or 'unknown'} content; not shown]"


def resource_text(r: Any) -> str:
    if r is None:
        return "[empty resource]"
    uri, mime = str(getattr(r, "uri", "")), getattr(r, "mime_type", None) or ""
    text = getattr(r, "text", None)
    blob = getattr(r, "blob", None)
    if text is None and textual(mime):
        text = _decode(blob)
    label = f"[resource {uri}{f' ({mime})' if mime else ''}]"
    if text is not None:
        return f"{label}\n{text}"
    return f"{label}: {size_text(blob or '')} of binary data; not shown"


def textual(mime: str) -> bool:
    return mime.startswith("text/") or any(t in mime for t in TEXTUAL[1:])


def _decode(blob: str | None) -> str | None:
    if not blob:
        return None
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def size_text(data: str) -> str:
    """The decoded size of base64 `data`, human-readable."""
    n = len(data.rstrip("=")) * 3 // 4
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"
