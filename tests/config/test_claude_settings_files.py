"""Claude Code's settings files read as they are (issue 45, item 1): `~/.claude/settings.json`
with allow and deny rules, a hook script that blocks a tool, `env` reaching a command and an
Anthropic model name left out; a project's `.claude/settings.json` applied only once trusted,
and pinned by content. One-shot runs as real subprocesses against the scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.config import pins

GUARD = """\
import json, sys
event = json.load(sys.stdin)
path = event["tool_input"].get("file_path", "")
if path.endswith(".lock") and event["tool_name"] in ("write_file", "edit_file"):
    print(f"{path} is generated: edit the manifest instead", file=sys.stderr)
    sys.exit(2)
"""


def results(fake: FakeOpenAI, n: int) -> dict[str, str]:
    """Tool results of request n, by call id."""
    msgs = fake.requests[n]["messages"]
    return {m["tool_call_id"]: m["content"] for m in msgs if m["role"] == "tool"}


def claude_user_settings(home: Path, settings: dict[str, Any]) -> None:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))


def test_user_settings_allow_deny_hooks_env_and_model(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    home = Path(fake_env["HOME"])
    (home / ".claude" / "hooks").mkdir(parents=True)
    (home / ".claude" / "hooks" / "guard.py").write_text(GUARD)
    (project / "show.py").write_text("import os\nprint('greeting:', os.environ['GREETING'])\n")
    claude_user_settings(home, {
        "model": "claude-sonnet-4-5-20250929",
        "permissions": {
            "allow": ["Bash(python3 show.py)", "Write"],
            "deny": ["Read(./notes.txt)"],
            "defaultMode": "default",
        },
        "env": {"GREETING": "hola"},
        "hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [
            {"type": "command", "command": f"{sys.executable} ~/.claude/hooks/guard.py"}]}]},
        "statusLine": {"type": "command", "command": "echo hi"},  # Claude Code's own: left out
        "includeCoAuthoredBy": False,
    })  # fmt: skip
    calls = [
        ("bash", {"command": "python3 show.py"}),
        ("write_file", {"path": "a.txt", "content": "a\n"}),
        ("write_file", {"path": "deps.lock", "content": "x\n"}),
        ("read_file", {"path": "notes.txt"}),
    ]
    fake.script(tool_calls(calls), text("done"))
    r = run_agent(fake_env, project, "--output-format", "json", "go", timeout=90)
    assert r.returncode == 0, r.stderr
    got = list(results(fake, 1).values())
    assert "greeting: hola" in got[0]  # allowed by the rule, with the settings' env
    assert (project / "a.txt").read_text() == "a\n"  # Write allowed
    assert "deps.lock is generated" in got[2] and not (project / "deps.lock").exists()
    assert "denied" in got[3].lower() and "mango" not in got[3]  # Read(./notes.txt) denied
    denials = json.loads(r.stdout.splitlines()[-1])["permission_denials"]
    assert {d["tool_name"] for d in denials} == {"write_file", "read_file"}
    assert fake.requests[0]["model"] == "fake-model"  # not Claude's model
    assert "model 'claude-sonnet-4-5-20250929' not used" in r.stderr
    assert "statusLine" not in r.stderr  # Claude Code's own keys are not warned about


def test_a_model_the_endpoint_may_serve_is_taken(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    claude_user_settings(Path(fake_env["HOME"]), {"model": "qwen3-coder"})
    fake_env.pop("AGENT_MODEL")
    fake.script(text("ok"))
    r = run_agent(fake_env, project, "q")
    assert r.returncode == 0, r.stderr
    assert fake.requests[0]["model"] == "qwen3-coder"


def test_ours_win_over_theirs_at_the_same_scope(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    home = Path(fake_env["HOME"])
    claude_user_settings(home, {"env": {"GREETING": "theirs", "OTHER": "o"}})
    (home / ".agent").mkdir()
    (home / ".agent" / "settings.json").write_text(json.dumps({"env": {"GREETING": "ours"}}))
    (project / "show.py").write_text(
        "import os\nprint(os.environ['GREETING'], os.environ['OTHER'])\n"
    )
    fake.script(tool_calls([("bash", {"command": "python3 show.py"})]), text("ok"))
    r = run_agent(fake_env, project, "--allowedTools", "Bash(python3 show.py)", "q")
    assert r.returncode == 0, r.stderr
    assert "ours o" in next(iter(results(fake, 1).values()))


def test_a_projects_claude_settings_wait_for_trust_and_are_pinned(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".claude").mkdir()
    settings = {"permissions": {"allow": ["Write"], "deny": ["Read(notes.txt)"]},
                "env": {"GREETING": "x"}}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    write = ("write_file", {"path": "w.txt", "content": "w"})
    fake.script(tool_calls([write, ("read_file", {"path": "notes.txt"})]), text("no"))
    r = run_agent(fake_env, project, "--output-format", "json", "go")
    assert r.returncode == 0, r.stderr
    assert not (project / "w.txt").exists()  # its allow rule waits for trust
    got = list(results(fake, 1).values())
    assert "mango" not in got[1]  # its deny rule holds at once
    assert "settings.json: ignored env, permissions.alwaysAllow" in r.stderr
    fake.script(tool_calls([write]), text("yes"))
    r = run_agent(fake_env, project, "--trust-project", "go")
    assert r.returncode == 0, r.stderr
    assert (project / "w.txt").read_text() == "w"
    assert ".claude/settings.json" in pins.scan(project)
    (project / ".claude" / "settings.local.json").write_text("{}")
    assert ".claude/settings.local.json" in pins.scan(project)
