"""OAuth for HTTP and SSE MCP servers, through the SDK's OAuth client provider.

Connecting (agent.mcp.client asks `auth_for`): a server with stored tokens gets the provider,
which sends the access token, refreshes it when it has expired (the new tokens are stored) and,
when the server still refuses, raises LoginRequired instead of starting a browser login; a
server without tokens gets a probe that turns a 401 into LoginRequired. Either way the server's
status says "run /mcp login NAME". A server given its own `Authorization` header gets neither.

Logging in (`login`, run by `/mcp login NAME`): the same provider with a loopback redirect
(agent.mcp.loopback): discovery, dynamic client registration, the authorization URL shown to
the user, the code exchanged for tokens, then one `initialize` to prove they work. The tokens
are stored only when they were obtained (agent.mcp.tokens). Importing this module imports the
`mcp` SDK: it is imported only when an HTTP server connects or a login runs.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from agent import __version__
from agent.mcp.config import ServerSpec
from agent.mcp.loopback import Loopback, first_redirect, port_of
from agent.mcp.tokens import TokenFile, own_authorization

LOGIN_TIMEOUT = 300.0  # seconds for the whole login, the user's time in the browser included
_SDK_LOG = logging.getLogger("mcp.client.auth.oauth2")


class LoginRequired(PermissionError):
    """The server wants OAuth and there is no usable login (an OSError: shown as its text)."""

    def __init__(self, name: str, expired: bool = False) -> None:
        why = "the saved login was refused or has expired" if expired else "authorization required"
        super().__init__(f"{why}: run /mcp login {name} in an interactive session (agent)")


class Storage:
    """The SDK's TokenStorage over a TokenFile; `save=False` keeps changes in memory (a login
    stores its result only once it has one)."""

    def __init__(self, file: TokenFile, data: dict[str, Any], save: bool = True) -> None:
        self.file = file
        self.data = data
        self._save = save
        self.obtained = False  # tokens arrived through this storage

    @property
    def expires_at(self) -> float | None:
        value = self.data.get("expires_at")
        return float(value) if isinstance(value, (int, float)) else None

    async def get_tokens(self) -> OAuthToken | None:
        raw = self.data.get("tokens")
        with contextlib.suppress(ValueError):
            return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        expires = tokens.expires_in
        self.data["expires_at"] = time.time() + int(expires) if expires is not None else None
        self.obtained = True
        # tokens just issued are the newest there are: they replace what the file holds
        self._update(
            lambda now: now.update(tokens=self.data["tokens"], expires_at=self.data["expires_at"])
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self.data.get("client")
        with contextlib.suppress(ValueError):
            return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.data["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._update(lambda now: now.update(client=self.data["client"]))

    def reload(self) -> bool:
        """Take the tokens the file holds now when they are not the ones in memory (another
        connection or session refreshed them since this one read the file): True when so."""
        if not self._save:
            return False
        with self.file.locked():
            now = self.file.load()
        tokens = now.get("tokens")
        if not isinstance(tokens, dict) or tokens == self.data.get("tokens"):
            return False
        self.data = now
        return True

    def refresh_next(self) -> None:
        """The server refused an access token before its time (revoked, or a server restart):
        mark it expired, so that the next connection refreshes it instead of sending it again
        (on a 401 the SDK goes straight to a browser login, which the background cannot do).
        Only the stored expiry changes, and only while the file still holds the refused tokens:
        newer ones another connection stored meanwhile are left alone."""
        refused = self.data.get("tokens")
        if not isinstance(refused, dict):
            return

        def mark(now: dict[str, Any]) -> bool:
            if now.get("tokens") != refused or now.get("expires_at") == 1:
                return False
            now["expires_at"] = 1  # long past (0 would mean "never expires" to the SDK)
            return True

        self.data["expires_at"] = 1
        self._update(mark)

    def _update(self, change: Callable[[dict[str, Any]], Any]) -> None:
        """Apply `change` to what the file holds now (under its lock), not to this storage's
        copy from connect time: another connection may have stored newer tokens since."""
        if not self._save:
            return

        def apply(now: dict[str, Any]) -> bool:
            return change(now) is not False

        self.file.update(apply)


class Provider(OAuthClientProvider):
    """The SDK's provider, also knowing when stored tokens expire: the SDK keeps that only in
    memory, so without this a later run would send an expired token, get a 401 and want a new
    browser login where a refresh would do."""

    def __init__(self, spec: ServerSpec, storage: Storage, redirect_uri: str, **kw: Any) -> None:
        metadata = OAuthClientMetadata(
            client_name="agent",
            software_id="agent",
            software_version=__version__,
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        super().__init__(spec.url, metadata, storage, **kw)
        self.storage = storage

    async def _initialize(self) -> None:
        self.storage.reload()
        await super()._initialize()
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = self.storage.expires_at

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, after taking the stored tokens when another connection or session
        refreshed them: refresh tokens rotate, so refreshing with the one read at connect time
        would be refused (and a refused refresh ends in "log in again")."""
        if self._initialized and not self.context.is_token_valid() and self.storage.reload():
            self.context.current_tokens = await self.storage.get_tokens()
            self.context.token_expiry_time = self.storage.expires_at
        flow = super()._auth_flow(request)
        try:
            step = await flow.__anext__()
            while True:
                response = yield step
                step = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


class _Probe(httpx2.Auth):
    """No tokens: a 401 means "log in first" rather than a vague failure."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        response = yield request
        if response.status_code == 401:
            raise LoginRequired(self.name)


def auth_for(spec: ServerSpec) -> httpx2.Auth | None:
    """The httpx2 auth of a background connection to an HTTP or SSE server."""
    if own_authorization(spec.headers):
        return None
    file = TokenFile(spec.name, spec.url)
    data = file.load()
    if not isinstance(data.get("tokens"), dict):
        return _Probe(spec.name)
    redirect = first_redirect(data) or "http://127.0.0.1/callback"

    async def refuse(*_: Any) -> Any:  # the SDK wants a browser login: not in the background
        storage.refresh_next()
        raise LoginRequired(spec.name, expired=True)

    _quiet_sdk_log()
    storage = Storage(file, data)
    return Provider(spec, storage, redirect, redirect_handler=refuse, callback_handler=refuse)


async def login(
    spec: ServerSpec,
    show: Callable[[str], Awaitable[None]],
    seconds: float = LOGIN_TIMEOUT,
) -> bool:
    """Log in to the server (the user authorizes at the URL `show` is given); True when tokens
    were obtained and stored, False when the server never asked for any. Raises on failure."""
    _quiet_sdk_log()
    file = TokenFile(spec.name, spec.url)
    old = file.load()
    async with Loopback(port_of(first_redirect(old))) as cb:
        # a registration names its redirect URI: keep it only while that is still ours
        client = old.get("client") if first_redirect(old) == cb.redirect_uri else None
        storage = Storage(file, {"client": client} if client else {}, save=False)

        async def redirect(url: str) -> None:
            cb.expect(url)
            await show(url)

        async def callback() -> AuthorizationCodeResult:
            answer = await cb.result(seconds)
            if "error" in answer:
                why = answer.get("error_description") or answer["error"]
                raise PermissionError(f"the authorization server refused: {why}")
            return AuthorizationCodeResult(
                code=answer["code"], state=answer.get("state"), iss=answer.get("iss")
            )

        provider = Provider(
            spec, storage, cb.redirect_uri, redirect_handler=redirect, callback_handler=callback
        )
        try:
            await handshake(spec, provider, seconds)
        finally:
            if storage.obtained:
                file.save(storage.data)
    return storage.obtained


async def handshake(spec: ServerSpec, auth: httpx2.Auth, seconds: float) -> None:
    """Open the transport with `auth` and `initialize` once (the SDK's own errors, unwrapped)."""
    from mcp import ClientSession

    try:
        with anyio.fail_after(seconds + spec.timeout):  # the browser's own limit comes first
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(await _transport(spec, auth, stack))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
    except BaseException as e:  # task groups wrap the cause in exception groups
        cause = innermost(e)
        if cause is e or not isinstance(cause, Exception):
            raise
        raise cause from None


async def _transport(spec: ServerSpec, auth: httpx2.Auth, stack: Any) -> Any:
    if spec.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(spec.url, headers=spec.headers or None, auth=auth)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = await stack.enter_async_context(create_mcp_http_client(headers=spec.headers, auth=auth))
    return streamable_http_client(spec.url, http_client=http)


def innermost(e: BaseException) -> BaseException:
    """The first leaf of nested exception groups."""
    while getattr(e, "exceptions", None):
        e = e.exceptions[0]  # type: ignore[attr-defined]
    return e


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.WARNING


def _quiet_sdk_log() -> None:
    """The SDK logs a failed flow with a traceback ("OAuth flow error") and a refused refresh as
    a warning, which Python prints on the terminal when nothing else handles them (the REPL's
    screen). Every outcome reaches the user anyway, as the server's status or the login's
    answer; debug records stay for whoever turns logging on."""
    if not any(isinstance(f, _Quiet) for f in _SDK_LOG.filters):
        _SDK_LOG.addFilter(_Quiet())
