"""The loopback listener an OAuth login redirects to, and showing the user where to log in.

`Loopback` listens on 127.0.0.1 (the port of the last login when it is free: the authorization
server registered that redirect URI) and answers one `GET /callback?code=…&state=…` — only one
whose `state` is the login's own, so another local process or a web page cannot end the login
with a code of its choosing. It reads nothing but the request line, and keeps nothing it was
sent except the code, state and error of the matching request. Nothing here imports the `mcp`
SDK or logs what it receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
MAX_REQUEST_LINE = 8192
READ_TIMEOUT = 10.0  # seconds a connection may take to send its request line
PAGE = (
    "<!doctype html><meta charset=utf-8><title>agent</title>"
    "<body style='font-family:sans-serif'><p>{}</p></body>"
)


class Loopback:
    """`async with Loopback(port) as cb:` — `cb.redirect_uri`, then `await cb.result(...)`."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.state: str | None = None  # the login's `state`: set before the browser opens
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> Loopback:
        self._answer = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        except OSError:  # the last login's port is taken: any port (a new registration)
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()

    def expect(self, authorization_url: str) -> None:
        """Remember the `state` of the URL the user is sent to; other callbacks are refused."""
        self.state = _query(authorization_url).get("state")

    async def result(self, timeout: float) -> dict[str, str]:
        """The callback's `code`, `state`, `iss` or `error`/`error_description`."""
        assert self._answer is not None, "use Loopback as an async context manager"
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no answer from the browser within {timeout:g}s") from None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
            status, text = self._take(line[:MAX_REQUEST_LINE].decode("latin-1"))
            body = PAGE.format(text).encode("utf-8")
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
                "Connection: close\r\n\r\n"
            )
            writer.write(head.encode("ascii") + body)
            await writer.drain()
        except (OSError, asyncio.TimeoutError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _take(self, request_line: str) -> tuple[str, str]:
        parts = request_line.split()
        if len(parts) < 2 or parts[0] != "GET" or urlsplit(parts[1]).path != CALLBACK_PATH:
            return "404 Not Found", "Not found."
        query = _query(parts[1])
        answer = self._answer
        if answer is None or answer.done():
            return "410 Gone", "This login has already finished; you can close this tab."
        if self.state is None or query.get("state") != self.state:
            return "400 Bad Request", "This is not the login the agent is waiting for."
        if "code" not in query and "error" not in query:
            return "400 Bad Request", "The answer carries no authorization code."
        answer.set_result(query)
        if "error" in query:
            return "200 OK", "Login refused. You can close this tab and return to the agent."
        return "200 OK", "Logged in. You can close this tab and return to the agent."


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items() if v}


def has_display(env: dict[str, str] | Any = None) -> bool:
    """Whether a browser can be opened here: macOS and Windows always, elsewhere an X11 or
    Wayland display (not over plain SSH, not in a container without one)."""
    env = os.environ if env is None else env
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def first_redirect(data: dict[str, Any]) -> str | None:
    """The redirect URI a stored client registration names first (None: none stored)."""
    client = data.get("client")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    return str(uris[0]) if isinstance(uris, list) and uris else None


def port_of(uri: str | None) -> int:
    """The port of a redirect URI, to listen on it again (0: any free port)."""
    try:
        return (urlsplit(uri).port or 0) if uri else 0
    except ValueError:
        return 0
