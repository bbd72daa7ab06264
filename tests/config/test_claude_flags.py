"""Claude Code's flags (agent.config.claude): the command line the real Claude Agent SDK builds
for its CLI parses here flag by flag, and each value becomes the configuration it stands for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli import parser, unknown_flag
from agent.config.claude_json import our_spelling
from agent.config.errors import ConfigError
from agent.config.load import Flags, flags_from, load_config
from agent.config.settings import split_rules

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}


def sdk_argv(tmp_path: Path, **options: Any) -> list[str]:
    """The arguments the Python SDK passes to its CLI for these ClaudeAgentOptions."""
    sdk = pytest.importorskip("claude_agent_sdk")
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    transport = SubprocessCLITransport(prompt="", options=sdk.ClaudeAgentOptions(**options))
    transport._cli_path = "agent"
    return transport._build_command()[1:]


def test_every_flag_the_sdk_passes_is_known_and_means_its_option(tmp_path: Path) -> None:
    argv = sdk_argv(
        tmp_path,
        system_prompt="Be brief.",
        tools=["Read", "Bash"],
        allowed_tools=["Read", "Bash(git log:*)"],
        disallowed_tools=["Write"],
        max_turns=3,
        max_budget_usd=1.5,
        model="m1",
        fallback_model="m2",
        betas=["context-1m-2025-08-07"],
        permission_prompt_tool_name="stdio",
        permission_mode="acceptEdits",
        resume="20260101-000000-abcd1234",
        fork_session=True,
        settings='{"permissions": {"allow": ["Edit"]}}',
        sandbox={"enabled": True, "excludedCommands": ["docker"]},
        add_dirs=[tmp_path],
        mcp_servers={"calc": {"type": "sdk", "name": "calc", "instance": None}},
        include_partial_messages=True,
        include_hook_events=True,
        strict_mcp_config=True,
        setting_sources=["user", "project"],
        plugins=[{"type": "local", "path": str(tmp_path)}],
        thinking={"type": "adaptive"},
        effort="high",
        output_format={"type": "json_schema", "schema": SCHEMA},
        task_budget={"total": 1000},
        resume_session_at="u-1",
    )
    p = parser()
    assert unknown_flag(p, argv) == ""
    args = p.parse_args(argv)
    assert (args.input_format, args.output_format, args.verbose) == ("stream-json",) * 2 + (True,)
    assert (args.system_prompt, args.model, args.max_turns, args.resume) == (
        "Be brief.", "m1", 3, "20260101-000000-abcd1234",
    )  # fmt: skip
    f = flags_from(args)
    assert f.allowed_tools == ("Read", "Bash(git log:*)") and f.disallowed_tools == ("Write",)
    assert f.permission_mode == "acceptEdits" and f.think and f.add_dirs == (str(tmp_path),)
    assert f.automation.system_prompt == "Be brief." and f.automation.output_schema == SCHEMA
    assert f.automation.max_budget_usd == 1.5
    c = f.claude
    assert c.tools == ("Read", "Bash") and c.prompt_tool == "stdio" and c.fork_session
    assert c.strict_mcp and c.sources == {"user", "project"} and c.sdk_servers == {"calc"}
    assert f.mcp_servers == {"calc": {"type": "sdk", "name": "calc"}}
    assert c.settings["permissions"] == {"alwaysAllow": ["Edit"]}
    assert c.settings["sandbox"] == {"mode": "workspace-write"}
    said = "\n".join(c.notes)
    for flag in ("betas", "fallback-model", "effort", "include-hook-events", "plugin-dir",
                 "task-budget", "resume-session-at", "sandbox.excludedCommands"):  # fmt: skip
        assert flag in said
    assert "permission-prompt-tool" not in said  # stdio with stream-json input: served


def test_the_sdks_defaults_parse_too(tmp_path: Path) -> None:
    argv = sdk_argv(tmp_path, tools=[], setting_sources=[])  # --system-prompt "", --tools ""
    args = parser().parse_args(argv)
    assert args.system_prompt == "" and args.system_prompt_file is None
    f = flags_from(args)
    assert f.automation.system_prompt == "" and f.claude.tools == ()
    assert f.claude.sources == frozenset()


def test_rules_split_on_commas_and_spaces_outside_parentheses() -> None:
    assert split_rules(["Read Write,Bash(npm run test:*) mcp__x", "Edit(a b.txt)"]) == (
        "Read", "Write", "Bash(npm run test:*)", "mcp__x", "Edit(a b.txt)",
    )  # fmt: skip


def test_claude_settings_read_in_our_spelling() -> None:
    notes: list[str] = []
    data = {
        "permissions": {"allow": ["Bash"], "deny": ["Read(.env)"], "defaultMode": "plan"},
        "sandbox": {"enabled": False, "network": {"allowLocalBinding": True}},
    }
    assert our_spelling(data, notes) == {
        "permissions": {"alwaysAllow": ["Bash"], "neverAllow": ["Read(.env)"], "mode": "plan"},
        "sandbox": {"mode": "off"},
    }
    assert notes and "sandbox.network" in notes[0]


def config(tmp_path: Path, *argv: str) -> Any:
    args = parser().parse_args([*argv, "q"])
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    return load_config(flags_from(args), env, tmp_path)


def test_settings_sources_and_servers_reach_the_configuration(tmp_path: Path) -> None:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps({"maxTurns": 7}))
    server = {"command": "srv"}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"team": server}}))
    assert config(tmp_path, "--trust-project").max_steps == 7
    cfg = config(tmp_path, "--trust-project", "--setting-sources", "user")
    assert cfg.max_steps == 200 and "team" not in cfg.settings.get("mcpServers", {})
    cfg = config(tmp_path, "--trust-project", "--settings", '{"maxTurns": 9}')
    assert cfg.max_steps == 9  # over the project's file
    mine = json.dumps({"mcpServers": {"mine": server}})
    cfg = config(tmp_path, "--trust-project", "--mcp-config", mine, "--strict-mcp-config")
    assert set(cfg.settings["mcpServers"]) == {"mine"} and "mine" in cfg.mcp_own


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--settings", "nowhere.json"], "--settings nowhere.json: not JSON, and no file"),
        (["--settings", '{"maxTurns": '], "--settings: invalid JSON at line 1"),
        (["--agents", '{"x": "y"}'], '--agents: expected {"name"'),
        (["--mcp-config", '{"mcpServers": {"a": 1}}'], "server 'a' must be an object"),
        (["--json-schema", '{"type": 5}'], "--json-schema: not a valid JSON Schema"),
        (["--json-schema", "{}", "--output-schema", "s.json"], "give one of them"),
        (["--max-thinking-tokens", "-1"], "--max-thinking-tokens must be 0 or more"),
    ],
)
def test_bad_values_stop_the_run_naming_the_flag(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    with pytest.raises(ConfigError, match=said.replace("{", r"\{").replace("(", r"\(")):
        config(tmp_path, *argv)


def test_session_id_with_resume_needs_fork(tmp_path: Path) -> None:
    from agent.session.resume import chosen

    args = parser().parse_args(["--session-id", "123e4567-e89b-12d3-a456-426614174000", "-c"])
    with pytest.raises(ConfigError, match="needs --fork-session"):
        chosen(args, tmp_path, tmp_path)
    assert Flags().claude.session_id == ""
