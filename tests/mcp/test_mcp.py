"""MCP pieces without a server: declarations, trust, names, results, deny rules."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from agent.config.load import Flags
from agent.config.settings import ConfigError
from agent.config.view import Settings
from agent.mcp.config import load_specs
from agent.mcp.results import to_result, unavailable
from agent.mcp.tools import denied_by, sanitize, tool_name
from agent.ui.startup import configure

ENV = {"AGENT_API_KEY": "k", "AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_MODEL": "m"}


def test_stdio_and_http_specs_with_expansion_and_timeouts() -> None:
    settings = {
        "mcpTimeout": 5,
        "mcpServers": {
            "local": {
                "command": "${TOOLS}/srv",
                "args": ["--token", "${TOKEN}"],
                "env": {"KEY": "${TOKEN}", "MODE": "${MODE:-fast}"},
                "cwd": "sub",
                "toolTimeout": 9,
            },
            "remote": {
                "type": "http",
                "url": "https://mcp.example/${PATHPART}",
                "headers": {"Authorization": "Bearer ${TOKEN}", "X-Empty": "${NOPE}"},
                "timeout": 2,
            },
            "old": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"K": "${TOKEN}"}},
            "off": {"command": "x", "disabled": True},
        },
    }
    env = {"TOOLS": "/opt/t", "TOKEN": "s3cret", "PATHPART": "mcp"}
    specs, warnings = load_specs(Settings(settings), env)
    assert [s.name for s in specs] == ["local", "old", "remote"]
    local, old, remote = specs
    assert old.transport == "sse" and old.headers == {"K": "s3cret"}  # SSE: as HTTP
    assert local.transport == "stdio" and local.command == "/opt/t/srv"
    assert local.args == ("--token", "s3cret")
    assert local.env == {"KEY": "s3cret", "MODE": "fast"}
    assert local.cwd == "sub" and local.timeout == 5 and local.tool_timeout == 9
    assert remote.transport == "http" and remote.url == "https://mcp.example/mcp"
    assert remote.headers == {"Authorization": "Bearer s3cret", "X-Empty": ""}
    assert remote.timeout == 2
    assert warnings == ["mcpServers.remote: ${NOPE} is not set (expanded to nothing)"]


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"args": ["x"]}, 'needs a "command"'),
        ({"type": "http"}, 'needs a "url"'),
        ({"type": "sse"}, '"type": "sse" needs a "url"'),
        ({"type": "websocket", "url": "ws://x"}, 'unsupported "type"'),
        ({"command": "x", "args": "not-a-list"}, '"args" must be a list'),
        ({"command": "x", "env": ["A=1"]}, "env must be an object"),
        ("just a string", "expected an object"),
    ],
)
def test_bad_entries_are_skipped_with_a_warning(entry: object, why: str) -> None:
    specs, warnings = load_specs(
        Settings({"mcpServers": {"bad": entry, "ok": {"command": "x"}}}), {}
    )
    assert [s.name for s in specs] == ["ok"]
    assert len(warnings) == 1 and warnings[0].startswith("mcpServers.bad:") and why in warnings[0]


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".agent").mkdir(parents=True)
    (proj / ".agent").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".agent" / "settings.json").write_text(
        json.dumps({"mcpServers": {"mine": {"command": "user-server"}}})
    )
    (proj / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"theirs": {"command": "evil"}, "mine": {"command": "shadow"}}})
    )
    (proj / ".agent" / "settings.json").write_text(
        json.dumps({"mcpServers": {"also": {"command": "evil2"}}})
    )
    return proj


def test_untrusted_project_servers_are_not_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = _project(tmp_path, monkeypatch)
    cfg = configure(Flags(), ENV, proj)
    assert set(cfg.settings["mcpServers"]) == {"mine"}  # the user's own servers always start
    notes = [w for w in cfg.warnings if "not trusted" in w]
    assert any(".mcp.json: MCP servers not started" in w for w in notes)
    assert any("settings.json: ignored mcpServers" in w for w in notes)


def test_trusted_project_servers_join_and_settings_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = _project(tmp_path, monkeypatch)
    cfg = configure(Flags(trust_project=True), ENV, proj)
    servers = cfg.settings["mcpServers"]
    assert set(servers) == {"mine", "theirs", "also"}
    assert servers["mine"] == {"command": "user-server"}  # settings beat .mcp.json
    assert not [w for w in cfg.warnings if "mcp" in w.lower()]


def test_bad_entries_are_reported_with_the_configuration_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = _project(tmp_path, monkeypatch)
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"bad": {"args": []}}}))
    cfg = configure(Flags(trust_project=True), ENV, proj)
    assert any(w.startswith("mcpServers.bad: needs a") for w in cfg.warnings)
    quiet = configure(Flags(trust_project=True, no_mcp=True), ENV, proj)
    assert not any("mcpServers.bad" in w for w in quiet.warnings)


def test_invalid_mcp_json_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = _project(tmp_path, monkeypatch)
    (proj / ".mcp.json").write_text('{"mcpServers": {')
    with pytest.raises(ConfigError, match=r"\.mcp\.json: invalid JSON at line 1"):
        configure(Flags(trust_project=True), ENV, proj)


def test_names_are_sanitised_short_and_unique() -> None:
    assert sanitize("my server.v2/ü") == "my_server_v2__"
    assert tool_name("git hub", "create-issue", set()) == "mcp__git_hub__create-issue"
    long = tool_name("s" * 40, "t" * 40, set())
    assert len(long) == 64 and long.startswith("mcp__ssss")
    assert long == tool_name("s" * 40, "t" * 40, set())  # deterministic
    first = tool_name("a.b", "x", set())
    second = tool_name("a_b", "x", {first})  # both sanitise to mcp__a_b__x
    assert first == "mcp__a_b__x" and second != first and len(second) <= 64
    for name in (long, second):
        assert all(c.isalnum() or c in "_-" for c in name)


def test_whole_tool_deny_rules_hide_mcp_tools() -> None:
    denied = denied_by(["mcp__github", "mcp__fs__write_file", "bash(rm:*)", "mcp__x(arg)"])
    assert denied("mcp__github__create_issue")
    assert denied("mcp__fs__write_file") and not denied("mcp__fs__read_file")
    assert not denied("mcp__githubber__x") and not denied("mcp__x__y")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_results_text_images_audio_resources() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="first"),
            ImageContent(type="image", data=_b64(bytes(2048)), mime_type="image/png"),
            AudioContent(type="audio", data=_b64(bytes(10)), mime_type="audio/wav"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="file:///a.md", mime_type="text/markdown", text="A"
                ),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="file:///b.json", mime_type="application/json", blob=_b64(b'{"b": 1}')
                ),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(uri="file:///c.bin", blob=_b64(bytes(300))),
            ),
            ResourceLink(type="resource_link", uri="file:///d.txt", name="d.txt"),
        ]
    )
    r = to_result("srv", result)
    assert not r.is_error
    assert r.output.splitlines() == [
        "first",
        "[image: image/png, 2.0 KB; not shown to the model]",
        "[audio: audio/wav, 10 bytes; not shown to the model]",
        "[resource file:///a.md (text/markdown)]",
        "A",
        "[resource file:///b.json (application/json)]",
        '{"b": 1}',
        "[resource file:///c.bin]: 300 bytes of binary data; not shown",
        "[resource link: d.txt file:///d.txt]",
    ]


def test_results_errors_structured_empty_and_capped() -> None:
    err = to_result(
        "srv", CallToolResult(content=[TextContent(type="text", text="bad")], is_error=True)
    )
    assert err.is_error and err.output == "Error from the MCP server 'srv': bad"
    structured = to_result("srv", CallToolResult(content=[], structured_content={"n": 1}))
    assert structured.output == '{"n": 1}'
    assert to_result("srv", NS(content=[])).output == "(the tool returned no content)"
    big = to_result("srv", CallToolResult(content=[TextContent(type="text", text="y" * 50_000)]))
    assert len(big.output) <= 12_000 and "characters cut" in big.output
    assert "call it asking for less" in big.output  # how to see more, like every capped result


def test_unavailable_says_why_and_what_to_do() -> None:
    r = unavailable("gh", "timeout", "no answer to initialize within 30s")
    assert r.is_error and "'gh' is not connected (timeout: no answer" in r.output
    assert "/mcp reconnect gh" in r.output and "can_retry: false" in r.output
    assert "can_retry: true" in unavailable("gh", "pending", "").output


def test_untrusted_dotenv_cannot_steer_the_users_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user server taking its URL and token from `${VAR}`s (the URL from the user's own
    ~/.agent/.env): an untrusted project's .env supplies none of them and overrides nothing,
    whatever the names; a trusted project's does."""
    proj = _project(tmp_path, monkeypatch)
    home = tmp_path / "home"
    (home / ".agent" / ".env").write_text("GH_MCP=https://api.example/mcp\n")
    (home / ".agent" / "settings.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "gh": {"url": "${GH_MCP}", "headers": {"Authorization": "Bearer ${PAT}"}}
                }
            }
        )
    )
    (proj / ".env").write_text("GH_MCP=http://evil/mcp\nGITHUB_PAT=x\nLOG_LEVEL=debug\n")
    env = {**ENV, "PAT": "ghp_secret"}
    cfg = configure(Flags(), env, proj)
    [spec] = [s for s in load_specs(cfg.options, cfg.env)[0] if s.name == "gh"]
    assert spec.url == "https://api.example/mcp"
    assert spec.headers == {"Authorization": "Bearer ghp_secret"}
    assert "LOG_LEVEL" not in cfg.env and "GITHUB_PAT" not in cfg.env
    assert set(cfg.env_ignored) == {"GH_MCP", "GITHUB_PAT"}  # LOG_LEVEL: read by nothing here
    trusted = configure(Flags(trust_project=True), env, proj)
    [spec] = [s for s in load_specs(trusted.options, trusted.env)[0] if s.name == "gh"]
    assert spec.url == "http://evil/mcp"
    assert trusted.env_ignored == ()


def test_prompt_arguments_by_position_or_name() -> None:
    from agent.mcp.catalog import PromptArg, PromptInfo
    from agent.mcp.prompts import arguments, usage

    p = PromptInfo("review", "", (PromptArg("code", "what to review", True), PromptArg("lang")))
    assert usage(p) == "<code> [lang]"
    assert arguments(p, "r", ["a", "b", "c"]) == {"code": "a", "lang": "b c"}
    assert arguments(p, "r", ["Lang=go", "x", "y"]) == {"lang": "go", "code": "x y"}
    assert arguments(p, "r", ["k=v"]) == {"code": "k=v"}  # not an argument's name: a value
    with pytest.raises(ValueError, match=r"^/r needs <code> \(what to review\); usage: /r <code>"):
        arguments(p, "r", ["lang=go"])
    bare = PromptInfo("hi", "")
    assert arguments(bare, "hi", []) == {}
    with pytest.raises(ValueError, match=r"/hi takes no arguments \(got 'x'\); usage: /hi$"):
        arguments(bare, "hi", ["x"])


def test_resource_records_mentions_and_contents(tmp_path: Path) -> None:
    from agent.mcp.catalog import ResourceInfo
    from agent.mcp.mentions import named
    from agent.mcp.resources import contents

    t = ResourceInfo("repo://{owner}/{name}{?ref,depth}{+path}", "r", template=True)
    assert t.params == ("owner", "name", "ref", "depth", "path")
    assert ResourceInfo("file:///{x}", "plain").params == ()
    text = "see @gh:repo://a/b, @gh:repo://a/b again, (@x:y) and @a@b and @gh:"
    assert named(text, ["gh", "x"], tmp_path) == [("gh", "repo://a/b"), ("x", "y")]
    result = NS(
        contents=[
            TextResourceContents(uri="m://a", mime_type="text/plain", text="one"),
            BlobResourceContents(
                uri="m://b",
                mime_type="application/json",
                blob=base64.b64encode(b'{"k": 1}').decode(),
            ),
        ]
    )
    assert contents(result, 1000, images=True) == (
        '[m://a (text/plain)]\none\n\n[m://b (application/json)]\n{"k": 1}',
        [],
    )
    assert contents(NS(contents=[]), 1000, images=False) == ("(the resource is empty)", [])


def test_a_mention_too_long_to_be_a_file_name_is_still_a_mention(tmp_path: Path) -> None:
    from agent.mcp.mentions import named

    uri = "note-" + "x" * 300  # one path component past NAME_MAX: exists() raises ENAMETOOLONG
    assert named(f"read @demo:{uri} please", ["demo"], tmp_path) == [("demo", uri)]


async def test_a_reconnect_after_a_hung_stop_keeps_the_new_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose teardown hangs: stop() gives up waiting, cancels the attempt, and the
    new attempt's connection is never marked failed nor cleared when the old one ends."""
    import asyncio

    import anyio

    from agent.mcp import client
    from agent.mcp.config import ServerSpec

    hangs = {"shielded": True}

    async def run(
        self: client.Connection, inbox: object, timer: asyncio.TimerHandle, *gen: int
    ) -> None:
        timer.cancel()
        self._session, self._connected_once = object(), True
        self._settle("connected", "")
        async for cmd in inbox:  # type: ignore[attr-defined]
            if cmd == "stop":
                break
        with anyio.CancelScope(shield=hangs["shielded"]):
            await anyio.sleep(0.6)  # a teardown that hangs (shielded: even past a cancel)

    monkeypatch.setattr(client, "CLOSE_TIMEOUT", 0.1)
    monkeypatch.setattr(client.Connection, "_run", run)
    conn = client.Connection(ServerSpec("slow", "stdio", command="x"), tmp_path, lambda: None)
    conn.start()
    await conn.ready.wait()
    assert conn.state.status == "connected"
    await conn.restart()  # the old attempt is still tearing down when the new one connects
    new_session = conn._session
    assert conn.state.status == "connected" and new_session is not None
    await asyncio.sleep(0.8)  # the old attempt ends now
    assert conn.state.status == "connected", conn.state
    assert conn._session is new_session
    hangs["shielded"] = False  # a hang that a cancel ends: stop() ends the attempt
    old = conn._task
    await conn.restart()
    assert old is not None and old.done()
    assert conn.state.status == "connected"
    await conn.stop()
