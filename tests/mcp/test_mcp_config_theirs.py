"""MCP servers and providers from Claude Code's and Codex's own files (issue 45, items 1 and 2):
`~/.claude.json` (user scope and this project's entry), and a realistic `~/.codex/config.toml`
with a stdio and an HTTP server, a provider selected with --provider, and its approval and
sandbox modes. One-shot runs as real subprocesses against the scripted model and the demo
MCP server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from live_servers import DEMO, http_server

from agent.config.codex import read_codex
from agent.config.errors import ConfigError

__all__ = ["http_server"]  # fixtures

HTTP = tuple[subprocess.Popen[bytes], str]


def demo(**kw: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [DEMO], "timeout": 60, **kw}


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def tool_results(fake: FakeOpenAI, n: int) -> list[str]:
    return [m["content"] for m in fake.requests[n]["messages"] if m["role"] == "tool"]


def test_claude_json_servers_start_as_the_users_own(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    other = project.parent / "other"
    state = {
        "numStartups": 12, "autoUpdates": True,  # Claude Code's own state: not read
        "mcpServers": {"docs": demo()},
        "projects": {str(project): {"mcpServers": {"local": demo()}, "allowedTools": []},
                     str(other): {"mcpServers": {"elsewhere": demo()}}},
    }  # fmt: skip
    Path(fake_env["HOME"], ".claude.json").write_text(json.dumps(state))
    # peek says it only reads: believed for a server the user declared, so it runs unasked
    fake.script(tool_calls([("mcp__local__peek", {"key": "k"})]), text("done"))
    r = run_agent(fake_env, project, "--output-format", "stream-json", "--verbose", "q",
                  timeout=90)  # fmt: skip
    assert r.returncode == 0, r.stderr
    init = lines(r.stdout)[0]
    assert sorted(s["name"] for s in init["mcp_servers"]) == ["docs", "local"]
    assert all(s["status"] == "connected" for s in init["mcp_servers"])
    assert tool_results(fake, 1) == ["value of k"]


CODEX = """\
model = "fake-codex-model"
model_provider = "openai"
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[sandbox_workspace_write]
network_access = true

[model_providers.local]
name = "Local server"
base_url = "{base}"
env_key = "LOCAL_LLM_KEY"
wire_api = "chat"

[mcp_servers.files]
command = "{python}"
args = ["{demo}"]
env = {{ MCP_DEMO_MARKER = "{marker}" }}
startup_timeout_sec = 60
tool_timeout_sec = 30

[mcp_servers.web]
url = "{url}"
bearer_token_env_var = "WEB_MCP_TOKEN"
http_headers = {{ "X-Team" = "core" }}

[mcp_servers.off]
command = "does-not-exist"
enabled = false

[projects."/somewhere"]
trust_level = "trusted"
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11 and later")
def test_codex_config_servers_provider_and_modes(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, http_server: HTTP
) -> None:
    _, url = http_server
    home = Path(fake_env["HOME"])
    (home / ".codex").mkdir()
    marker = project.parent / "started"
    (home / ".codex" / "config.toml").write_text(
        CODEX.format(base=fake.base_url, python=sys.executable, demo=DEMO, url=url, marker=marker)
    )
    ours = ("AGENT_BASE_URL", "AGENT_API_KEY", "AGENT_MODEL", "AGENT_SANDBOX")
    env = {k: v for k, v in fake_env.items() if k not in ours}
    env |= {"LOCAL_LLM_KEY": "local-secret", "WEB_MCP_TOKEN": "t0ken"}
    calls = [
        ("mcp__web__header", {"name": "Authorization"}),
        ("mcp__web__header", {"name": "X-Team"}),
        ("mcp__files__echo", {"text": "hi"}),
    ]
    fake.script(tool_calls(calls), text("done"))
    args = (
        "--provider",
        "local",
        "--model",
        "served-model",
        "--allowedTools",
        "mcp__web,mcp__files",
    )
    r = run_agent(env, project, *args, "--output-format", "stream-json", "--verbose", "q",
                  timeout=90)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert fake.request_headers[0]["authorization"] == "Bearer local-secret"  # its env_key
    assert fake.requests[0]["model"] == "served-model"
    init = lines(r.stdout)[0]
    assert sorted(s["name"] for s in init["mcp_servers"]) == ["files", "web"]  # `off` disabled
    assert marker.exists()
    assert init["permission_mode"] == "acceptEdits"  # on-request with workspace-write
    assert init["sandbox"]["configured"] == "workspace-write"
    assert tool_results(fake, 1) == ["Bearer t0ken", "core", "echo: hi"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11 and later")
@pytest.mark.parametrize(
    ("approval", "sandbox", "mode", "box"),
    [
        ("untrusted", "read-only", "default", "read-only"),
        ("on-failure", "workspace-write", "default", "workspace-write"),
        ("on-request", "read-only", "default", "read-only"),
        ("on-request", "workspace-write", "acceptEdits", "workspace-write"),
        ("never", "workspace-write", "dontAsk", "workspace-write"),
        ("never", "danger-full-access", "bypassPermissions", "off"),
    ],
)
def test_approval_and_sandbox_map_to_our_modes(
    tmp_path: Path, approval: str, sandbox: str, mode: str, box: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'approval_policy = "{approval}"\nsandbox_mode = "{sandbox}"\n')
    layer = read_codex(path).layer
    assert layer["permissions"]["mode"] == mode and layer["sandbox"]["mode"] == box


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11 and later")
def test_a_broken_codex_config_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('approval_policy = "sometimes"\n')
    with pytest.raises(ConfigError, match="approval_policy must be one of"):
        read_codex(path)
    path.write_text("model = \n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        read_codex(path)


def test_codex_model_goes_with_the_provider_codex_sends_it_to() -> None:
    from agent.config.choice import pick_model, pick_provider
    from agent.config.codex import Codex
    from agent.config.providers import Provider

    local = Provider("local", "http://127.0.0.1:9/v1", "", "LOCAL_KEY")
    codex = Codex(providers={"local": local}, provider="local", model="codex-model")
    p = pick_provider(None, None, {}, {}, codex)
    assert p.name == "local" and pick_model(p, None, False, {}, {}, codex) == "codex-model"
    ours = pick_provider(None, None, {}, {"provider": "deepseek"}, codex)  # settings win
    assert pick_model(ours, None, False, {}, {}, codex) == "deepseek-chat"  # not Codex's model
    custom = pick_provider(None, None, {"AGENT_BASE_URL": "http://x/v1"}, {}, codex)
    assert custom.name == "custom"  # AGENT_BASE_URL comes before Codex's model_provider
