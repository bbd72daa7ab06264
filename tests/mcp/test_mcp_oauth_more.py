"""More OAuth against the real protected server: no display (the address printed), a refused
authorization, an SSE server, and `/mcp login` in the REPL in a real terminal."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import urllib.parse
import urllib.request
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oauth_kit import (
    LOGIN_NEEDED,
    browse,
    browse_async,
    oauth_server,
    post,
    session,
    slash,
    spec,
    stored,
)
from pty_term import READY, Term

from agent.commands import mcp_login
from agent.mcp import oauth


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with oauth_server(tmp_path_factory.mktemp("oauth")) as base:
        yield base


async def test_without_a_display_the_address_is_printed(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post(f"{server}/ttl?seconds=3600")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(mcp_login, "interactive", lambda ctx: True)
    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: pytest.fail("opened a browser"))

    def user(line: str) -> None:  # copies the address into a browser elsewhere
        if line.startswith(f"{server}/authorize?"):
            threading.Thread(target=browse, args=(line,), daemon=True).start()

    mt = session(spec(server), tmp_path)
    try:
        mt.wait()
        printed = await slash(mt, "login web", say=user)
        assert "open this address in a browser to log in:" in printed
        port = urllib.parse.urlsplit(stored(spec(server))["client"]["redirect_uris"][0]).port
        assert any(f"ssh -L {port}:127.0.0.1:{port}" in line for line in printed)
        assert mt.statuses()[0]["status"] == "connected"
    finally:
        mt.close()


async def test_a_refused_authorization_is_told_and_the_saved_login_kept(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post(f"{server}/ttl?seconds=3600")
    s = spec(server)
    assert await oauth.login(s, browse_async)
    saved = stored(s)

    def deny(url: str) -> bool:  # the user clicks "Deny": the browser comes back with an error
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        back = f"{query['redirect_uri'][0]}?error=access_denied&state={query['state'][0]}"
        urllib.request.urlopen(back, timeout=5).close()
        return True

    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(mcp_login, "interactive", lambda ctx: True)
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: deny(url))
    mt = session(s, tmp_path)
    try:
        mt.wait()
        printed = await slash(mt, "login web")
        assert printed[-1] == "login to web failed: the authorization server refused: access_denied"
        assert stored(s) == saved  # a failed login leaves the saved one alone
    finally:
        mt.close()


async def test_sse_servers_log_in_and_connect_the_same_way(tmp_path: Path) -> None:
    with oauth_server(tmp_path, "--sse") as base:
        s = spec(base, url=f"{base}/sse", transport="sse")
        mt = session(s, tmp_path)
        try:
            mt.wait()
            assert mt.statuses()[0]["error"] == LOGIN_NEEDED
        finally:
            mt.close()
        assert await oauth.login(s, browse_async)
        mt = session(s, tmp_path)
        try:
            mt.wait()
            assert mt.statuses()[0]["status"] == "connected", mt.statuses()
            assert (await mt.manager.call("web", "echo", {"text": "sse"})).output == "echo: sse"
        finally:
            mt.close()


def test_login_in_the_repl_of_a_real_terminal(
    server: str, fake_env: dict[str, str], fake: Any, project: Path, tmp_path: Path
) -> None:
    """The REPL's own console counts as someone at a terminal; no display: the address."""
    post(f"{server}/ttl?seconds=3600")
    home = Path(fake_env["HOME"])
    (home / ".agent").mkdir(exist_ok=True)
    servers = {"mcpServers": {"web": {"type": "http", "url": f"{server}/mcp"}}}
    (home / ".agent" / "settings.json").write_text(json.dumps(servers))
    env = {k: v for k, v in fake_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    term = Term(env, project)
    try:
        term.wait_for(READY, where="bottom")
        for _ in range(40):  # the server connects in the background: until it has failed
            term.type("/mcp")
            time.sleep(0.25)
            term.pump()
            if LOGIN_NEEDED in term.text():
                break
        term.wait_for(LOGIN_NEEDED)
        term.type("/mcp login web")
        term.wait_for("waiting up to 5 minutes for the browser")
        found = re.search(rf"{re.escape(server)}/authorize\?[^\s\x1b]+", term.raw.decode())
        assert found, term.text()
        browse(found.group(0))
        term.wait_for("web: connected · 1 tools")
        state = Path(fake_env["AGENT_STATE_DIR"]) / "mcp-auth"  # where this process looks too
        [file] = state.glob("*.json")  # beside its lock file
        tokens = json.loads(file.read_text())["tokens"]
        assert tokens["access_token"] not in term.raw.decode(errors="replace")
        assert not [p for p in project.rglob("*") if tokens["access_token"] in _text(p)]
    finally:
        term.close()


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""
