"""OAuth against a real protected MCP server (tests/mcp_servers/oauth_demo.py, the SDK's own
authorization and resource server pieces on loopback): the 401 that asks for a login, `/mcp
login` with a scripted browser, refreshing expired access tokens (live and after a restart),
`/mcp logout`, logins the server stopped accepting; tokens only in their private file."""

from __future__ import annotations

import asyncio
import stat
import time
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import pytest
from oauth_kit import (
    LOGIN_NEEDED,
    REFUSED,
    browse,
    browse_async,
    grants,
    oauth_server,
    post,
    session,
    slash,
    spec,
    stored,
)

from agent.commands import mcp_login
from agent.mcp import oauth
from agent.mcp.tokens import TokenFile


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One streamable-HTTP OAuth server for the module (its MCP endpoint: /mcp)."""
    with oauth_server(tmp_path_factory.mktemp("oauth")) as base:
        yield base


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A display and a browser that approves; the URLs it was opened at."""
    opened: list[str] = []
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(mcp_login, "interactive", lambda ctx: True)
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or browse(url))
    return opened


def assert_nowhere_but_the_token_file(secrets: set[str], *places: Path, text: str = "") -> None:
    for place in places:
        for f in [place] if place.is_file() else place.rglob("*"):
            if f.is_file() and "mcp-auth" not in f.parts:
                data = f.read_bytes()
                assert not [s for s in secrets if s.encode() in data], f
    assert not [s for s in secrets if s in text]


async def test_login_connects_the_server_and_keeps_tokens_private(
    server: str,
    browser: list[str],
    tmp_path: Path,
    state_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("DEBUG")
    post(f"{server}/ttl?seconds=3600")
    s = spec(server)
    mt = session(s, tmp_path)
    try:
        mt.wait()
        [status] = mt.statuses()  # a 401 without tokens: say how to log in, nothing else
        assert status["status"] == "failed" and status["error"] == LOGIN_NEEDED
        before = grants(server)
        printed = await slash(mt, "login web")
        assert len(browser) == 1 and browser[0].startswith(f"{server}/authorize?")
        assert printed[-2].startswith("web: connected · 1 tools"), printed
        assert f"logged in to web; its tokens are in {state_dir}/mcp-auth/web-" in "\n".join(
            printed
        )
        after = grants(server)
        assert after["register"] == before.get("register", 0) + 1
        assert after["authorization_code"] == before.get("authorization_code", 0) + 1
        assert (await mt.manager.call("web", "echo", {"text": "hi"})).output == "echo: hi"
        path = TokenFile(s.name, s.url).path
        assert path.parent == state_dir / "mcp-auth"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        data = stored(s)
        tokens, client = data["tokens"], data["client"]
        assert data["server"] == "web" and data["expires_at"] > time.time() + 3000
        secrets = {tokens["access_token"], tokens["refresh_token"], client["client_secret"]}
        logs = state_dir / "projects"
        assert_nowhere_but_the_token_file(secrets, tmp_path, logs, text="\n".join(printed))
        assert not [s for s in secrets if s in caplog.text]
    finally:
        mt.close()


async def test_expired_access_tokens_are_refreshed_live_and_after_a_restart(
    server: str, tmp_path: Path
) -> None:
    post(f"{server}/ttl?seconds=2")
    s = spec(server)
    assert await oauth.login(s, browse_async)
    first = stored(s)["tokens"]
    mt = session(s, tmp_path)
    try:
        mt.wait()
        assert mt.statuses()[0]["status"] == "connected"
        before = grants(server)
        await asyncio.sleep(2.3)  # the access token has expired: the next call refreshes it first
        assert (await mt.manager.call("web", "echo", {"text": "later"})).output == "echo: later"
        assert grants(server)["refresh_token"] >= before.get("refresh_token", 0) + 1
        second = stored(s)["tokens"]
        assert second["access_token"] != first["access_token"]
        assert second["refresh_token"] != first["refresh_token"]  # rotated, and stored
    finally:
        mt.close()
    await asyncio.sleep(2.3)  # expired while nothing ran: the next start refreshes, no new login
    before = grants(server)
    mt = session(s, tmp_path)
    try:
        mt.wait()
        assert mt.statuses()[0]["status"] == "connected"
        after = grants(server)
        assert after["refresh_token"] == before["refresh_token"] + 1
        assert after["authorization_code"] == before["authorization_code"]
    finally:
        mt.close()


async def test_logout_deletes_the_tokens_and_the_server_asks_for_a_login_again(
    server: str, browser: list[str], tmp_path: Path
) -> None:
    post(f"{server}/ttl?seconds=3600")
    s = spec(server)
    mt = session(s, tmp_path)
    try:
        mt.wait()
        await slash(mt, "login web")
        assert mt.statuses()[0]["status"] == "connected"
        path = TokenFile(s.name, s.url).path
        assert path.exists()
        printed = await slash(mt, "logout web")
        assert printed[0] == "logged out of web: its tokens are deleted"
        assert not path.exists()
        [status] = mt.statuses()
        assert status["status"] == "failed" and status["error"] == LOGIN_NEEDED
        assert any(LOGIN_NEEDED in line for line in printed)
        assert await slash(mt, "logout web") == ["web has no saved login"]
    finally:
        mt.close()


async def test_a_refused_access_token_is_refreshed_and_a_refused_login_asks_again(
    server: str, tmp_path: Path
) -> None:
    post(f"{server}/ttl?seconds=3600")
    s = spec(server)
    assert await oauth.login(s, browse_async)
    post(f"{server}/revoke-all?keep=refresh")  # access tokens forgotten before their time
    mt = session(s, tmp_path)
    try:
        mt.wait()
        assert mt.statuses()[0]["error"] == REFUSED
        before = grants(server)
        status = await mt.manager.reconnect("web")  # this time it refreshes first
        assert status["status"] == "connected", status
        assert grants(server)["refresh_token"] == before.get("refresh_token", 0) + 1
        post(f"{server}/revoke-all")  # and now the refresh tokens too: a new login is needed
        status = await mt.manager.reconnect("web")
        assert status["status"] == "failed" and status["error"] == REFUSED
        status = await mt.manager.reconnect("web")  # the refresh is tried, and refused
        assert status["status"] == "failed" and status["error"] == REFUSED
    finally:
        mt.close()


async def test_a_refresh_by_one_connection_does_not_cost_another_its_login(
    server: str, tmp_path: Path
) -> None:
    """Two connections read the same tokens; A refreshes (the refresh token rotates). B then
    takes A's tokens instead of refreshing with the spent one, and a third connection works."""
    post(f"{server}/ttl?seconds=2")
    s = spec(server)
    assert await oauth.login(s, browse_async)
    a, b = session(s, tmp_path), session(s, tmp_path)
    try:
        a.wait()
        b.wait()
        assert [m.statuses()[0]["status"] for m in (a, b)] == ["connected", "connected"]
        await asyncio.sleep(2.3)  # both hold an expired access token and the same refresh token
        assert (await a.manager.call("web", "echo", {"text": "a"})).output == "echo: a"
        fresh = stored(s)["tokens"]
        assert (await b.manager.call("web", "echo", {"text": "b"})).output == "echo: b"
        assert stored(s)["tokens"]["refresh_token"] == fresh["refresh_token"]
    finally:
        a.close()
        b.close()
    post(f"{server}/ttl?seconds=3600")
    c = session(s, tmp_path)
    try:
        c.wait()
        assert c.statuses()[0]["status"] == "connected", c.statuses()
    finally:
        c.close()


def test_a_refused_connection_never_writes_over_newer_tokens(state_dir: Path) -> None:
    """B's refresh was refused (A had rotated the refresh token): the SDK's 401 path marks B's
    tokens expired, which must not replace A's newer ones in the file."""
    file = TokenFile("web", "http://127.0.0.1:9/mcp")
    old = {"tokens": {"access_token": "a1", "refresh_token": "r1", "token_type": "Bearer"}}
    file.save({**old, "expires_at": 10**10, "client": {"client_id": "c"}})
    b = oauth.Storage(file, file.load())
    new = {"access_token": "a2", "refresh_token": "r2", "token_type": "Bearer"}
    file.save({"tokens": new, "expires_at": 10**10, "client": {"client_id": "c"}})  # A's refresh
    b.refresh_next()
    assert file.load()["tokens"] == new and file.load()["expires_at"] == 10**10
    assert b.reload() and b.data["tokens"] == new
    b.refresh_next()  # the file's own tokens refused: only their expiry changes
    assert file.load()["tokens"] == new and file.load()["expires_at"] == 1
    assert file.load()["client"] == {"client_id": "c"}
