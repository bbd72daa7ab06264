"""OAuth pieces without a server: where tokens are kept, what `/mcp login` refuses, the loopback
listener's choice of callbacks. (tests/mcp/test_mcp_oauth.py: against a real OAuth server.)"""

from __future__ import annotations

import asyncio
import os
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from agent.commands.mcp import mcp_cmd
from agent.commands.registry import Ctx
from agent.mcp import oauth
from agent.mcp.config import ServerSpec
from agent.mcp.loopback import Loopback, has_display
from agent.mcp.manager import Manager
from agent.mcp.tokens import TokenFile
from agent.mcp.tools import McpTools, denied_by


async def slash(mt: McpTools, args: str) -> list[str]:
    printed: list[str] = []
    console = NS(print=lambda text="", **kw: printed.append(str(text)))
    ctx = Ctx(run=NS(mcp=mt, cfg=NS(no_mcp=False)), console=console, turn=None)  # type: ignore[arg-type]
    await mcp_cmd(ctx, args)
    return printed


def test_token_files_live_in_the_state_directory_one_per_name_and_url(
    state_dir: Path,
) -> None:
    a = TokenFile("github", "https://a.example/mcp")
    assert a.path.parent == state_dir / "mcp-auth" and a.path.name.startswith("github-")
    assert a.path != TokenFile("github", "https://b.example/mcp").path
    assert a.path != TokenFile("gitlab", "https://a.example/mcp").path
    assert TokenFile("../../x y", "https://a.example").path.parent == state_dir / "mcp-auth"
    assert a.load() == {} and not a.remove()
    a.save({"tokens": {"access_token": "t", "token_type": "Bearer"}})
    assert a.has_tokens() and a.load()["url"] == "https://a.example/mcp"
    assert os.listdir(state_dir / "mcp-auth") == [a.path.name]  # no temp file left
    assert a.remove() and not a.path.exists()


async def test_what_login_refuses(tmp_path: Path) -> None:
    own = {"Authorization": "Bearer from-settings"}
    specs = [
        ServerSpec("local", "stdio", command="true"),
        ServerSpec("mine", "http", url="http://127.0.0.1:9/mcp", headers=own),
        ServerSpec("web", "http", url="http://127.0.0.1:9/mcp"),
    ]
    mt = McpTools(Manager(specs, tmp_path), {}, denied_by([]))  # never started
    try:
        assert await slash(mt, "login") == [
            "usage: /mcp login <server> — servers: local, mine, web"
        ]
        assert await slash(mt, "logout nope") == [
            "usage: /mcp logout <server> — servers: local, mine, web"
        ]
        assert await slash(mt, "login local") == [
            "local is a stdio server: OAuth is for http and sse"
        ]
        assert await slash(mt, "login mine") == [
            "mine sends its own Authorization header (its `headers`): no login"
        ]
        assert oauth.auth_for(specs[1]) is None  # its own header, untouched
        # no terminal (CI, JSON output, an editor): told how, no browser, nothing waits
        assert await slash(mt, "login web") == [
            "a login needs a browser and someone to use it: run `agent` in a terminal, then "
            "/mcp login web"
        ]
    finally:
        mt.close()


async def test_the_loopback_listener_takes_only_its_own_callback() -> None:
    def get(url: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    async with Loopback() as cb:
        cb.expect("http://auth.example/authorize?client_id=c&state=s1")
        base = cb.redirect_uri
        assert base.startswith("http://127.0.0.1:") and base.endswith("/callback")
        for url, code in [
            (base.replace("/callback", "/other") + "?code=c&state=s1", 404),
            (f"{base}?code=forged&state=other", 400),  # not this login's state
            (f"{base}?state=s1", 400),  # neither a code nor an error
            (f"{base}?code=c1&state=s1&iss=http%3A%2F%2Fauth.example", 200),
            (f"{base}?code=c2&state=s1", 410),  # only the first answer counts
        ]:
            assert (await asyncio.to_thread(get, url))[0] == code, url
        answer = await cb.result(1)
        assert answer == {"code": "c1", "state": "s1", "iss": "http://auth.example"}
    async with Loopback() as cb:
        with pytest.raises(TimeoutError, match=r"no answer from the browser within 0\.1s"):
            await cb.result(0.1)


def test_a_browser_opens_only_where_there_is_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    assert not has_display({}) and not has_display({"DISPLAY": ""})
    assert has_display({"DISPLAY": ":0"}) and has_display({"WAYLAND_DISPLAY": "wayland-0"})
    monkeypatch.setattr("sys.platform", "darwin")
    assert has_display({})


def test_tokens_are_never_written_through_a_link(state_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state_dir / "mcp-auth").symlink_to(elsewhere)
    file = TokenFile("web", "https://a.example/mcp")
    with pytest.raises(OSError, match="symbolic link"):
        file.save({"tokens": {"access_token": "t", "token_type": "Bearer"}})
    assert list(elsewhere.iterdir()) == [] and file.load() == {}
