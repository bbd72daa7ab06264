"""Hooks with real scripts: exit codes, timeouts, stdin payloads, JSON answers, the loop's events,
and project trust in one-shot runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import alive, close_all, holds, make_agent, of_type, run_agent

from agent.base.events import Notice, PermissionDenied, Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.core.dispatch import compose
from agent.hooks.hooks import Hooks, HookSpec, specs_from
from agent.permissions.gate import Gate
from agent.subagents.tool import task_tools
from agent.tools.builtin import builtin_tools
from agent.tools.shell import bash as shell

AGENT = [sys.executable, "-m", "agent"]


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_all()


def script(tmp_path: Path, name: str, body: str) -> str:
    """A real executable hook script; returns the command that runs it."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def hooks_for(
    tmp_path: Path, event: str, command: str, *, matcher: str = "", timeout: float = 10
) -> tuple[Hooks, Recorder]:
    rec = Recorder()
    config = {
        event: [
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": command, "timeout": timeout}],
            }
        ]
    }
    tools = {"bash": ECHO}  # what hooks know of a tool (its other names) is on its record
    return Hooks(config, session_id="s1", cwd=tmp_path, sink=rec, tools=tools), rec


async def pre(hooks: Hooks, args: dict[str, Any] | None = None, tool: str = "bash") -> Any:
    return await hooks.fire("PreToolUse", {"tool_name": tool, "tool_input": args or {}}, tool)


def test_config_shapes() -> None:
    config = {
        "PreToolUse": [
            {
                "matcher": "bash|write_file",
                "hooks": [{"type": "command", "command": "a", "timeout": 5}],
            },
            {"command": "b"},
        ],
        "Stop": [{"hooks": [{"command": "c"}]}],
        "NotAnEvent": [{"command": "d"}],
    }
    assert specs_from(config) == [
        HookSpec("PreToolUse", "a", "bash|write_file", 5.0),
        HookSpec("PreToolUse", "b"),
        HookSpec("Stop", "c"),
    ]
    spec = specs_from(config)[0]
    assert spec.matches(("bash",))
    assert spec.matches(("write_file",))
    assert not spec.matches(("bash_output",))  # the regex must match the whole name
    assert HookSpec("PreToolUse", "x", "mcp__github__.*").matches(("mcp__github__create",))
    assert HookSpec("PreToolUse", "x", "*").matches(("anything",))


async def test_exit_zero_passes_and_payload_has_the_fields(tmp_path: Path) -> None:
    cmd = script(tmp_path, "h.sh", f'cat > "{tmp_path}/payload.json"\n')
    hooks, _ = hooks_for(tmp_path, "PreToolUse", cmd)
    out = await pre(hooks, {"command": "ls"})
    assert not out.blocked
    payload = json.loads((tmp_path / "payload.json").read_text())
    assert payload["session_id"] == "s1"
    assert payload["cwd"] == str(tmp_path)
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "bash"
    assert payload["tool_input"] == {"command": "ls"}
    assert "transcript_path" in payload


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("echo 'no deploys on friday' >&2; exit 1\n", "no deploys on friday"),
        ("echo 'policy says no' >&2; exit 2\n", "policy says no"),
        ("no-such-command-for-this-hook\n", "not found"),
        ("exit 3\n", "exited with status 3"),
        ("echo '{not json'\n", "invalid JSON"),
        ("kill -9 $$\n", ""),  # a crash: the shell reports it, or not
    ],
)
async def test_pre_tool_use_fails_closed(tmp_path: Path, body: str, why: str) -> None:
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "h.sh", body))
    out = await pre(hooks)
    assert out.blocked
    assert why in out.reason


async def test_missing_hook_program_blocks(tmp_path: Path) -> None:
    hooks, _ = hooks_for(tmp_path, "UserPromptSubmit", str(tmp_path / "missing.sh"))
    out = await hooks.fire("UserPromptSubmit", {"prompt": "hi"})
    assert out.blocked


async def test_failures_of_other_events_are_warnings(tmp_path: Path) -> None:
    hooks, rec = hooks_for(tmp_path, "PostToolUse", script(tmp_path, "h.sh", "echo '{x'\n"))
    out = await hooks.fire("PostToolUse", {"tool_name": "bash"}, "bash")
    assert not out.blocked
    assert any("invalid JSON" in n.message for n in of_type(rec, Notice))
    hooks, rec = hooks_for(tmp_path, "SessionEnd", script(tmp_path, "e.sh", "exit 1\n"))
    assert not (await hooks.fire("SessionEnd", {})).blocked
    assert of_type(rec, Notice)


async def ends(pid: int, within: float = 20.0) -> bool:
    """Whether `pid` ends within `within` seconds (its sleep lasts 120: it was killed)."""
    return await holds(lambda: not alive(pid), within)


async def test_hang_times_out_and_the_process_group_dies(tmp_path: Path) -> None:
    body = f'sleep 120 &\necho $! > "{tmp_path}/child.pid"\nsleep 120\n'
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "h.sh", body), timeout=0.5)
    t0 = time.monotonic()
    out = await pre(hooks)
    assert time.monotonic() - t0 < 45  # not the 120 s of the hang
    assert out.blocked
    assert "timed out" in out.reason
    child = int((tmp_path / "child.pid").read_text())
    assert await ends(child)


async def test_child_holding_stdout_does_not_stall(tmp_path: Path) -> None:
    body = (
        f'sleep 120 &\necho $! > "{tmp_path}/child.pid"\necho \'{{"decision": "block", '
        '"reason": "held"}\'\nexit 0\n'
    )
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "h.sh", body), timeout=100)
    t0 = time.monotonic()
    out = await pre(hooks)
    assert time.monotonic() - t0 < 45, "waited for the child's stdout to close (120 s)"
    assert out.blocked
    assert out.reason == "held"  # its answer, not a timeout
    assert await ends(int((tmp_path / "child.pid").read_text()))  # killed with the group


async def test_hook_that_never_reads_a_large_payload(tmp_path: Path) -> None:
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "h.sh", "exit 0\n"))
    t0 = time.monotonic()
    out = await pre(hooks, {"content": "x" * 1_500_000}, tool="write_file")
    assert not out.blocked
    assert time.monotonic() - t0 < 45
    # One that neither reads nor ends: the payload queued, its timeout runs (were we to wait
    # for it to read, the hook would end after 120 s, not time out).
    body = "sleep 120\n"
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "s.sh", body), timeout=1)
    out = await pre(hooks, {"content": "x" * 1_500_000}, tool="write_file")
    assert out.blocked
    assert "timed out" in out.reason


async def test_output_is_capped(tmp_path: Path) -> None:
    body = "head -c 3000000 /dev/zero | tr '\\0' 'a' >&2\nexit 1\n"
    hooks, _ = hooks_for(tmp_path, "PreToolUse", script(tmp_path, "h.sh", body))
    out = await pre(hooks)
    assert out.blocked
    assert 0 < len(out.reason) <= 70_000


@pytest.mark.parametrize(
    ("answer", "field", "value"),
    [
        ({"decision": "block", "reason": "nope"}, "reason", "nope"),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "r",
                }
            },
            "permission",
            "deny",
        ),
        ({"permissionDecision": "allow"}, "permission", "allow"),
        ({"permissionDecision": "ask"}, "permission", "ask"),
        ({"updatedInput": {"command": "ls -1"}}, "updated_input", {"command": "ls -1"}),
        ({"additionalContext": "remember X"}, "context", ["remember X"]),
    ],
)
async def test_json_answers(tmp_path: Path, answer: dict[str, Any], field: str, value: Any) -> None:
    cmd = script(tmp_path, "h.sh", f"cat >/dev/null\necho '{json.dumps(answer)}'\n")
    hooks, _ = hooks_for(tmp_path, "PreToolUse", cmd)
    out = await pre(hooks)
    assert getattr(out, field) == value


async def _echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("ran:" + json.dumps(args, sort_keys=True))


ECHO = replace(shell.BASH, run=_echo)  # the real bash record: a run that only echoes


async def run_layers(
    tmp_path: Path, hooks: Hooks, rec: Recorder, args: dict[str, Any], mode: str = "default"
) -> tuple[ToolResult, Call]:
    gate = Gate({"bash": ECHO}, {}, mode, rec, workspace=tmp_path)
    call = Call("c1", "bash", args)

    async def execute(c: Call, ctx: ToolContext) -> ToolResult:
        return await ECHO.run(c.args, ctx)

    pipeline = compose(execute, hooks, gate)
    return await pipeline(call, ToolContext(cwd=tmp_path)), call


async def test_middleware_block_deny_and_allow(tmp_path: Path) -> None:
    blocker = script(tmp_path, "b.sh", "echo 'not today' >&2; exit 2\n")
    hooks, rec = hooks_for(tmp_path, "PreToolUse", blocker, matcher="bash")
    result, call = await run_layers(tmp_path, hooks, rec, {"command": "make"})
    assert result.is_error
    assert "not today" in result.output
    assert call.source == "hook"
    assert of_type(rec, PermissionDenied)
    # a hook's allow skips the prompt (no terminal here: it would have been denied)
    allow = script(tmp_path, "a.sh", 'echo \'{"permissionDecision": "allow"}\'\n')
    hooks, rec = hooks_for(tmp_path, "PreToolUse", allow)
    result, call = await run_layers(tmp_path, hooks, rec, {"command": "make"})
    assert result.output.startswith("ran:")
    assert call.source == "hook"
    # ... except where SPEC says "always ask": a secret is still asked about (here: denied)
    result, call = await run_layers(tmp_path, hooks, rec, {"command": "cat .env"})
    assert result.is_error
    assert call.decision == "deny"
    # ... and never overrides a deny (plan mode denies bash)
    result, call = await run_layers(tmp_path, hooks, rec, {"command": "make"}, mode="plan")
    assert result.is_error
    assert call.decision == "deny"


async def test_updated_input_and_post_tool_use(tmp_path: Path) -> None:
    rewrite = script(tmp_path, "r.sh", 'echo \'{"updatedInput": {"command": "make -n"}}\'\n')
    post = script(
        tmp_path,
        "p.sh",
        f'cat > "{tmp_path}/post.json"\n'
        'echo \'{"decision": "block", "reason": "lint failed"}\'\n',
    )
    rec = Recorder()
    config = {"PreToolUse": [{"command": rewrite}], "PostToolUse": [{"command": post}]}
    hooks = Hooks(config, session_id="s", cwd=tmp_path, sink=rec, tools={"bash": ECHO})
    result, call = await run_layers(
        tmp_path, hooks, rec, {"command": "make"}, mode="bypassPermissions"
    )
    assert call.args == {"command": "make -n"}
    assert result.output.startswith('ran:{"command": "make -n"}')
    assert "lint failed" in result.output
    payload = json.loads((tmp_path / "post.json").read_text())
    assert payload["tool_response"]["output"].startswith("ran:")
    bad = script(tmp_path, "x.sh", 'echo \'{"updatedInput": {"command": 5}}\'\n')
    hooks = Hooks(
        {"PreToolUse": [{"command": bad}]},
        session_id="s",
        cwd=tmp_path,
        sink=rec,
        tools={"bash": ECHO},
    )
    result, _ = await run_layers(
        tmp_path, hooks, rec, {"command": "make"}, mode="bypassPermissions"
    )
    assert result.is_error
    assert "rewrote" in result.output


async def test_stop_hook_continues_with_a_cap(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(*(text(f"answer {i}") for i in range(4)))
    agent, rec = make_agent(fake, tmp_path)
    cmd = script(tmp_path, "stop.sh", "echo 'run the tests first' >&2\nexit 2\n")
    agent.hooks = Hooks({"Stop": [{"command": cmd}]}, session_id="s", cwd=tmp_path, sink=rec)
    end = await agent.run_turn("go")
    assert end.subtype == "success"
    assert end.text == "answer 3"
    assert len(fake.requests) == 4  # the first answer plus three continuations
    assert fake.requests[1]["messages"][-1] == {"role": "user", "content": "run the tests first"}
    assert any("Stop hook" in n.message for n in of_type(rec, Notice))


async def test_stop_hook_blocking_once(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(text("first"), text("second"))
    agent, rec = make_agent(fake, tmp_path)
    flag = tmp_path / "once"
    cmd = script(
        tmp_path,
        "stop.sh",
        f'[ -e "{flag}" ] && exit 0\ntouch "{flag}"\n'
        'echo \'{"decision": "block", "reason": "also update the docs"}\'\n',
    )
    agent.hooks = Hooks({"Stop": [{"command": cmd}]}, session_id="s", cwd=tmp_path, sink=rec)
    end = await agent.run_turn("go")
    assert end.text == "second"
    assert len(fake.requests) == 2


async def test_user_prompt_submit(fake: FakeOpenAI, tmp_path: Path) -> None:
    agent, rec = make_agent(fake, tmp_path)
    blocker = script(tmp_path, "b.sh", "echo 'contains a secret' >&2\nexit 1\n")
    agent.hooks = Hooks(
        {"UserPromptSubmit": [{"command": blocker}]}, session_id="s", cwd=tmp_path, sink=rec
    )
    end = await agent.run_turn("my password is hunter2")
    assert end.subtype == "error_during_execution"
    assert "contains a secret" in (end.error or "")
    assert not fake.requests
    assert all("hunter2" not in str(m) for m in agent.messages)
    fake.script(text("ok"))
    ctx = script(tmp_path, "c.sh", "echo 'Today is release day.'\n")
    agent.hooks = Hooks(
        {"UserPromptSubmit": [{"command": ctx}]}, session_id="s", cwd=tmp_path, sink=rec
    )
    await agent.run_turn("hello")
    assert fake.requests[0]["messages"][-1]["content"] == "hello\n\nToday is release day."


# --- one-shot runs: project trust ---------------------------------------------------------


def run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent(env, cwd, *args)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent").mkdir(parents=True)
    (p / ".agent" / "hooks.json").write_text(
        json.dumps({"SessionStart": [{"command": "touch project_hook_ran"}]})
    )
    return p


def test_untrusted_project_hooks_are_skipped_with_a_warning(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("ok"))
    r = run(fake_env, project, "hi")
    assert r.returncode == 0, r.stderr
    assert not (project / "project_hook_ran").exists()
    assert "hooks.json" in r.stderr
    assert "not trusted" in r.stderr


def test_trust_project_runs_project_hooks(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent" / "hooks.json").write_text(
        json.dumps(
            {
                "SessionStart": [
                    {"command": "touch project_hook_ran; echo 'House rule: answer briefly.'"}
                ]
            }
        )
    )
    fake.script(text("ok"))
    r = run(fake_env, project, "--trust-project", "hi")
    assert r.returncode == 0, r.stderr
    assert (project / "project_hook_ran").exists()
    first = fake.requests[0]["messages"][1]["content"]
    assert "House rule: answer briefly." in first
    assert first.endswith("hi")


def test_a_resumed_session_starts_with_source_resume_and_gets_the_context(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    hook = "python3 -c \"import json,sys; print('started as ' + json.load(sys.stdin)['source'])\""
    (project / ".agent" / "hooks.json").write_text(
        json.dumps({"SessionStart": [{"command": hook}]})
    )
    fake.script(text("one"), text("two"))
    assert run(fake_env, project, "--trust-project", "first").returncode == 0
    assert "started as startup" in fake.requests[0]["messages"][1]["content"]
    r = run(fake_env, project, "--trust-project", "-c", "second")
    assert r.returncode == 0, r.stderr
    assert fake.requests[1]["messages"][-1]["content"] == "started as resume\n\nsecond"


def test_project_settings_hooks_need_trust_and_user_hooks_always_run(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    proj = tmp_path / "p2"
    (proj / ".agent").mkdir(parents=True)
    (proj / ".agent" / "settings.json").write_text(
        json.dumps({"hooks": {"SessionStart": [{"command": "touch from_project"}]}})
    )
    user = Path(fake_env["HOME"]) / ".agent"
    user.mkdir(parents=True)
    (user / "hooks.json").write_text(
        json.dumps(
            {
                "SessionStart": [{"command": "touch from_user"}],
                "SessionEnd": [{"command": "touch session_ended"}],
            }
        )
    )
    fake.script(text("ok"))
    r = run(fake_env, proj, "hi")
    assert r.returncode == 0, r.stderr
    assert (proj / "from_user").exists()
    assert (proj / "session_ended").exists()
    assert not (proj / "from_project").exists()
    assert "not trusted" in r.stderr


def test_pre_tool_use_hook_blocks_in_one_shot(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent" / "hooks.json").write_text(
        json.dumps(
            {
                "PreToolUse": [
                    {
                        "matcher": "bash",
                        "hooks": [
                            {"type": "command", "command": "echo 'use make instead' >&2; exit 2"}
                        ],
                    }
                ]
            }
        )
    )
    fake.script(tool_calls([("bash", {"command": "touch marker"})]), text("blocked"))
    r = run(
        fake_env,
        project,
        "--trust-project",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "json",
        "go",
    )
    assert r.returncode == 0, r.stderr
    assert not (project / "marker").exists()
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["permission_denials"][0]["tool_name"] == "bash"
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "use make instead" in tool_msg["content"]


def test_invalid_hooks_file_is_a_config_error(fake_env: dict[str, str], project: Path) -> None:
    (project / ".agent" / "hooks.json").write_text('{"PreToolUse": "not a list"}')
    r = run(fake_env, project, "--trust-project", "hi")
    assert r.returncode == 2
    assert "hooks.json" in r.stderr


def test_claude_code_matchers_name_the_same_tools() -> None:
    from agent.hooks.hooks import HookSpec

    def hits(matcher: str) -> set[str]:
        tools = [*builtin_tools(), *task_tools({})]  # the names on the real records
        spec = HookSpec("PreToolUse", "true", matcher)
        return {t.name for t in tools if spec.matches((t.name, *t.aliases))}

    assert hits("Bash") == {"bash"}
    assert hits("Write|Edit") == {"write_file", "edit_file"}
    assert hits("MultiEdit") == {"edit_file"}
    assert hits("Web.*") == {"web_fetch", "web_search"}
    assert hits("bash|write_file") == {"bash", "write_file"}
    assert hits("Read(") == set()  # not a regex: compared as a name
    assert HookSpec("PreToolUse", "true", "mcp__gh__.*").matches(("mcp__gh__issues",))
