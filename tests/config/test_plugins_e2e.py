"""A Claude Code plugin with one of each part, end to end (issue 45, item 3): one-shot runs as
real subprocesses against the scripted model, in a fresh home."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from plugin_files import write_plugin

CACHE = Path(".claude/plugins/cache/market/myplugin/1.2.0")


def test_each_part_of_an_installed_plugin_works(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    root = write_plugin(Path(fake_env["HOME"]) / CACHE)
    calls = [
        ("write_file", {"path": "a.txt", "content": "a\n"}),
        ("mcp__plugdemo__echo", {"text": "hi"}),
    ]
    fake.script(tool_calls(calls), text("done"))
    args = ("--allowedTools", "Write", "--allowedTools", "mcp__plugdemo__echo")
    r = run_agent(fake_env, project, *args, "--output-format", "json", "/myplugin:hello world",
                  timeout=90)  # fmt: skip
    assert r.returncode == 0, r.stderr
    first = fake.requests[0]
    asked = [m["content"] for m in first["messages"] if m["role"] == "user"][-1]
    assert "Greet world warmly." in str(asked)  # the command ran
    assert "greeting: How to greet people" in json.dumps(first["messages"])  # its skill listed
    task = next(t for t in first["tools"] if t["function"]["name"] == "task")
    assert "greeter: Writes greetings" in task["function"]["description"]  # its agent offered
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert "no writes here" in results[0] and not (project / "a.txt").exists()  # its hook
    assert "echo: hi" in results[1] and (root / "started").exists()  # its MCP server
    init = json.loads(r.stdout.splitlines()[0])
    assert init["plugins"] == [{"name": "myplugin", "path": str(root)}]  # the init line says it


def test_plugins_lists_and_enabled_plugins_turns_one_off(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    home = Path(fake_env["HOME"])
    write_plugin(home / CACHE)
    write_plugin(home / ".agent/plugins/spare", "spare", "0.1.0")
    (home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"spare@x": False}}))
    r = run_agent(fake_env, project, "/plugins")
    assert r.returncode == 0, r.stderr
    assert f"myplugin 1.2.0  [user] {home / CACHE}" in r.stdout
    assert "1 command, 1 agent, 1 skill, 1 hook, 1 MCP server" in r.stdout
    assert "spare" in r.stdout and "turned off by enabledPlugins" in r.stdout
    assert "spare 0.1.0  [user]" not in r.stdout


def test_a_projects_plugin_waits_for_trust(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    write_plugin(project / "plugins/team", "team")
    (project / ".agent").mkdir()
    (project / ".agent/settings.json").write_text(json.dumps({"plugins": ["../plugins/team"]}))
    r = run_agent(fake_env, project, "/team:hello you")
    assert r.returncode != 0 and "unknown command /team:hello" in r.stderr
    assert "plugins" in r.stderr and "not trusted" in r.stderr  # the settings key waits
    fake.script(text("hi"))
    r = run_agent(fake_env, project, "--trust-project", "/team:hello you")
    assert r.returncode == 0, r.stderr
    asked = [m["content"] for m in fake.requests[0]["messages"] if m["role"] == "user"][-1]
    assert "Greet you warmly." in str(asked)
