"""Claude Code's flags, as the Claude Agent SDKs pass them (issue 44, item 2): one-shot runs as
real subprocesses against the scripted model, each flag's effect seen in what the model was sent
or what the run did."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import MCP_SERVERS, run_agent

SID = "123e4567-e89b-12d3-a456-426614174000"


def run(env: dict[str, str], cwd: Path, *args: str) -> Any:
    return run_agent(env, cwd, *args, timeout=90)


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def system_of(fake: FakeOpenAI, n: int = 0) -> str:
    return str(fake.requests[n]["messages"][0]["content"])


def tool_names(fake: FakeOpenAI, n: int = 0) -> list[str]:
    return [t["function"]["name"] for t in fake.requests[n].get("tools") or []]


def test_system_prompt_replaces_the_persona_and_empty_means_none(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / "AGENT.md").write_text("Memo: the build uses make.\n")
    fake.script(text("a"), text("b"))
    r = run(fake_env, project, "--trust-project", "--system-prompt", "You are Zed.", "q")
    assert r.returncode == 0, r.stderr
    first = system_of(fake)
    assert "You are Zed." in first and "# Rules" in first  # the rules for tools stay
    assert "# Response format" not in first
    assert "the build uses make" in first  # memory files stay
    r = run(fake_env, project, "--trust-project", "--system-prompt", "", "q")
    assert r.returncode == 0, r.stderr  # not read as --system-prompt-file ""
    second = system_of(fake, 1)
    assert "# Response format" not in second and "# Rules" in second
    assert "the build uses make" in second and "<env>" in fake.requests[1]["messages"][1]["content"]
    r = run(fake_env, project, "--system-prompt", "x", "--system-prompt-file", "AGENT.md", "q")
    assert r.returncode == 2 and "give one of them" in r.stderr


def test_allowed_tools_in_claude_spelling_run_unasked_and_disallowed_deny(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    write = tool_calls([("write_file", {"path": "a.txt", "content": "hi\n"})])
    fake.script(write, text("written"))
    r = run(fake_env, project, "--allowedTools", "Read Write", "--output-format", "json", "w")
    assert r.returncode == 0, r.stderr
    assert (project / "a.txt").read_text() == "hi\n"
    assert lines(r.stdout)[-1]["permission_denials"] == []
    fake.script(tool_calls([("write_file", {"path": "b.txt", "content": "x"})]), text("no"))
    denied = "Write(b.txt),Bash(rm -rf /)"  # a rule's parentheses keep their comma and space
    r = run(fake_env, project, "--permission-mode", "acceptEdits", "--disallowedTools", denied,
            "--output-format", "stream-json", "w")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert not (project / "b.txt").exists()
    [denial] = lines(r.stdout)[-1]["permission_denials"]
    assert denial["tool_name"] == "write_file" and denial["tool_input"]["path"] == "b.txt"
    assert denial["tool_use_id"]


def test_tools_limits_what_is_offered(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("a"), text("b"), text("c"))
    r = run(fake_env, project, "--tools", "Read,Grep,Bash", "--output-format", "json", "q")
    assert r.returncode == 0, r.stderr
    assert tool_names(fake) == ["read_file", "grep", "bash", "bash_output"]
    assert lines(r.stdout)[0]["tools"] == tool_names(fake)
    assert run(fake_env, project, "--tools", "", "q").returncode == 0
    assert tool_names(fake, 1) == []
    r = run(fake_env, project, "--tools", "default", "q")
    assert {"read_file", "write_file", "bash", "task"} <= set(tool_names(fake, 2))


def test_mcp_config_starts_a_server_and_strict_leaves_the_others_out(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    demo = {"command": sys.executable, "args": [str(MCP_SERVERS / "demo.py")], "timeout": 60}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": demo}}))
    config = project / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"demo": demo}}))
    fake.script(tool_calls([("mcp__demo__echo", {"text": "hi"})]), text("echoed"))
    args = ("--mcp-config", str(config), "--strict-mcp-config", "--trust-project",
            "--allowedTools", "mcp__demo__echo")  # fmt: skip
    r = run(fake_env, project, *args, "--output-format", "json", "echo hi")
    assert r.returncode == 0, r.stderr
    init = lines(r.stdout)[0]
    assert [s["name"] for s in init["mcp_servers"]] == ["demo"]  # not the project's `other`
    tool = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "echo: hi" in tool["content"]
    inline = json.dumps({"mcpServers": {"demo2": demo}})
    fake.script(text("ok"))
    r = run(fake_env, project, "--mcp-config", inline, "--output-format", "json", "q")
    assert r.returncode == 0, r.stderr
    assert "mcp__demo2__echo" in tool_names(fake, 2)
    r = run(fake_env, project, "--mcp-config", '{"servers": {}}', "q")
    assert r.returncode == 2 and '--mcp-config: expected {"mcpServers"' in r.stderr


def test_settings_apply_and_are_checked(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    claude_style = json.dumps({"permissions": {"allow": ["Write"]}, "statusLine": {}})
    fake.script(tool_calls([("write_file", {"path": "s.txt", "content": "s"})]), text("ok"))
    r = run(fake_env, project, "--settings", claude_style, "w")
    assert r.returncode == 0, r.stderr
    assert (project / "s.txt").read_text() == "s"
    assert "--settings: unknown setting 'statusLine' ignored" in r.stderr
    (project / "extra.json").write_text(json.dumps({"maxTurns": "many"}))
    r = run(fake_env, project, "--settings", "extra.json", "q")
    assert r.returncode == 2 and "--settings: key 'maxTurns' must be a whole number" in r.stderr
    assert len(fake.requests) == 2


def test_setting_sources_leave_the_projects_file_out(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent").mkdir()
    allow = {"permissions": {"alwaysAllow": ["write_file"]}}
    (project / ".agent" / "settings.json").write_text(json.dumps(allow))
    for name in ("in.txt", "out.txt"):
        fake.script(tool_calls([("write_file", {"path": name, "content": "x"})]), text("ok"))
    assert run(fake_env, project, "--trust-project", "w").returncode == 0
    assert (project / "in.txt").exists()  # the project's file allows it
    r = run(fake_env, project, "--trust-project", "--setting-sources=user,local", "w")
    assert r.returncode == 0, r.stderr
    assert not (project / "out.txt").exists()  # not read: denied, as without the rule
    r = run(fake_env, project, "--setting-sources", "user,team", "q")
    assert r.returncode == 2 and "unknown source 'team'" in r.stderr


def test_fork_session_copies_the_history_under_a_new_id(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("one"), text("two"), text("three"))
    first = lines(run(fake_env, project, "--output-format", "json", "first q").stdout)[-1]
    sid = first["session_id"]
    r = run(fake_env, project, f"--resume={sid}", "--fork-session", "--output-format", "json",
            "second q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    forked = lines(r.stdout)[-1]["session_id"]
    assert forked != sid
    said = [str(m["content"]) for m in fake.requests[1]["messages"]]
    assert any("first q" in s for s in said) and "one" in said
    r = run(fake_env, project, "--resume", sid, "third q")  # the original did not change
    assert r.returncode == 0, r.stderr
    assert not any("second q" in str(m["content"]) for m in fake.requests[2]["messages"])


def test_session_id_names_a_new_session_once(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("one"))
    r = run(fake_env, project, f"--session-id={SID}", "--output-format", "json", "q")
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout)[-1]["session_id"] == SID
    again = run(fake_env, project, "--session-id", SID, "q")
    assert again.returncode == 2 and "that session exists" in again.stderr
    bad = run(fake_env, project, "--session-id", "session-1", "q")
    assert bad.returncode == 2 and "not a UUID" in bad.stderr


def test_agents_are_offered_to_the_task_tool(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    agents = {"reviewer": {"description": "Reviews code", "prompt": "You review.",
                           "tools": ["Read"], "model": "sonnet"}}  # fmt: skip
    fake.script(
        tool_calls([("task", {"description": "review notes.txt", "agent": "reviewer"})]),
        text("looks fine"),  # the subagent's reply
        text("reviewed"),
    )
    r = run(fake_env, project, "--agents", json.dumps(agents), "--permission-mode",
            "bypassPermissions", "review")  # fmt: skip
    assert r.returncode == 0, r.stderr
    task = next(t for t in fake.requests[0]["tools"] if t["function"]["name"] == "task")
    assert "reviewer: Reviews code" in task["function"]["description"]
    assert "You review." in system_of(fake, 1)
    assert tool_names(fake, 1) == ["read_file"]
    assert fake.requests[1]["model"] == "fake-model"  # `sonnet`: the session's model


def test_json_schema_inline_gives_structured_output(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    fake.script(text('{"n": 3}'))
    r = run(fake_env, project, "--json-schema", json.dumps(schema), "--output-format",
            "stream-json", "count")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert lines(r.stdout)[-1]["structured_output"] == {"n": 3}


def test_flags_without_an_equivalent_are_said_and_unknown_ones_fail_in_one_line(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("ok"))
    r = run(fake_env, project, "--betas", "context-1m", "--effort", "high", "--fallback-model",
            "m2", "--thinking", "disabled", "--include-hook-events", "--permission-mode",
            "auto", "--permission-prompt-tool", "mcp__perm__ask", "q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    for said in ("--betas has no effect", "--effort has no effect",
                 "--fallback-model has no effect", "--include-hook-events has no effect",
                 "--permission-mode auto", "--permission-prompt-tool mcp__perm__ask"):  # fmt: skip
        assert said in r.stderr
    r = run(fake_env, project, "--some-future-flag", "x", "q")
    assert r.returncode == 2
    assert r.stderr.splitlines() == ["agent: unknown flag --some-future-flag"]
    r = run(fake_env, project, "--input-format", "stream-json")
    assert r.returncode == 2 and "needs --output-format stream-json" in r.stderr
    assert len(fake.requests) == 1
