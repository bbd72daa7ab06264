"""Hooks decide as documented (issue 39): a PreToolUse hook that meant to stop a call but
printed its answer in a shape the agent does not read — a JSON array, JSON after a log line,
`null`, JSON cut short, an unknown decision — must not be taken as a hook that said nothing.
Such stdout is a hook error: PreToolUse (and UserPromptSubmit) block, and the reason names the
hook, what is wrong and what it printed. Plain text stays plain output (as in Claude Code)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import of_type, run_agent

from agent.base.events import Notice, Recorder
from agent.hooks.hooks import Hooks

BLOCK = '{"decision": "block", "reason": "no deploys today"}'


def printing(tmp_path: Path, stdout: str, name: str = "policy.py") -> str:
    """A hook command that reads its payload and prints `stdout` exactly, then exits 0."""
    script = tmp_path / name
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write({stdout!r})\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


async def fire(tmp_path: Path, event: str, stdout: str) -> tuple[Any, Recorder]:
    command = printing(tmp_path, stdout)
    rec = Recorder()
    hooks = Hooks(
        {event: [{"hooks": [{"command": command}]}]}, session_id="s", cwd=tmp_path, sink=rec
    )
    payload = {"tool_name": "bash", "tool_input": {"command": "ls"}, "prompt": "hi"}
    return await hooks.fire(event, payload, "bash" if "Tool" in event else None), rec


@pytest.mark.parametrize(
    ("stdout", "why"),
    [
        ("[]", "printed a JSON array, not the JSON object a hook answers with"),
        ("null\n", "printed null, not the JSON object"),
        ("42", "printed a JSON number"),
        ('"block"', "printed a JSON string"),
        ("checking the command…\n" + BLOCK + "\n", "printed other text before its JSON"),
        (BLOCK + "\nchecked in 3 ms\n", "printed other text after its JSON"),
        ("policy says: " + BLOCK, "printed other text before its JSON"),
        ('[{"decision": "block"}]', "printed a JSON array"),
        ('{"decision": "block", "reas', "printed invalid JSON"),
        ('log\n{\n  "decision": "blo', "printed invalid JSON"),
        ('{"decision": "deny"}', "printed an unknown decision 'deny'"),
        ('{"permissionDecision": "reject"}', "printed an unknown permissionDecision 'reject'"),
        (
            '{"hookSpecificOutput": {"permissionDecision": "Deny"}}',
            "printed an unknown permissionDecision 'Deny'",
        ),
        ('{"hookSpecificOutput": "deny"}', "hookSpecificOutput that is not an object"),
        ('{"updatedInput": "rm -rf /"}', "updatedInput that is not an object"),
        ('{"continue": "no"}', "continue that is not true or false"),
    ],
)
async def test_a_malformed_answer_blocks_the_call_and_says_why(
    tmp_path: Path, stdout: str, why: str
) -> None:
    out, _ = await fire(tmp_path, "PreToolUse", stdout)
    assert out.blocked
    assert "PreToolUse hook `" in out.reason and "policy.py`" in out.reason  # which hook
    assert why in out.reason
    shown = stdout.strip()[:20].replace("\n", "\\n")
    assert f"`{shown}" in out.reason  # what it printed, quoted on one line
    assert "blocking to be safe" in out.reason


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "all good\n",  # plain output, as Claude Code treats it
        "[INFO] checked 3 rules\nno problems\n",  # a log line that starts like an array
        "ran: f() { true; }\n",  # braces, but no JSON object
        '{"decision": "approve"}',
        '{"hookSpecificOutput": {"permissionDecision": "allow"}, "decision": null}',
        '  {"additionalContext": "fine"}  \n',
    ],
)
async def test_documented_answers_keep_their_meaning(tmp_path: Path, stdout: str) -> None:
    out, _ = await fire(tmp_path, "PreToolUse", stdout)
    assert not out.blocked, out.reason


async def test_what_it_printed_is_quoted_inert_and_short(tmp_path: Path) -> None:
    noise = "\x1b]52;c;cHduZWQ=\x07\x1b[2J" + "x" * 500
    out, _ = await fire(tmp_path, "PreToolUse", noise + "\n" + BLOCK)
    assert "\x1b" not in out.reason and "\x07" not in out.reason
    assert "`\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J" in out.reason
    assert "more characters)" in out.reason and len(out.reason) < 500


async def test_user_prompt_submit_fails_closed_too_and_other_events_warn(tmp_path: Path) -> None:
    out, _ = await fire(tmp_path, "UserPromptSubmit", "note\n" + BLOCK)
    assert out.blocked and "printed other text before its JSON" in out.reason
    plain, _ = await fire(tmp_path, "UserPromptSubmit", "Today is release day.\n")
    assert not plain.blocked and plain.context == ["Today is release day."]
    post, rec = await fire(tmp_path, "PostToolUse", "[]")
    assert not post.blocked
    [notice] = of_type(rec, Notice)
    assert "printed a JSON array" in notice.message and "(ignored)" in notice.message
    start, _ = await fire(tmp_path, "SessionStart", "booting\n" + '{"additionalContext": "x"}')
    assert start.context == []  # a malformed answer is not context either


@pytest.mark.parametrize(
    ("stdout", "why"),
    [
        ("[]", "printed a JSON array"),
        ("checking…\n" + BLOCK, "printed other text before its JSON"),
        ("null", "printed null"),
    ],
)
def test_a_malformed_pre_tool_use_answer_stops_the_command_in_a_real_run(
    fake: FakeOpenAI,
    fake_env: dict[str, str],
    project: Path,
    tmp_path: Path,
    stdout: str,
    why: str,
) -> None:
    hook = printing(tmp_path, stdout)
    settings = {"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"command": hook}]}]}}
    (Path(fake_env["HOME"]) / ".agent").mkdir(parents=True)
    (Path(fake_env["HOME"]) / ".agent" / "settings.json").write_text(json.dumps(settings))
    fake.script(tool_calls([("bash", {"command": "touch ran"})]), text("stopped"))
    args = ("--permission-mode", "bypassPermissions", "--output-format", "json", "go")
    r = run_agent(fake_env, project, *args)
    assert r.returncode == 0, r.stderr
    assert not (project / "ran").exists()
    said = next(m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "bash was blocked by a hook" in said and why in said and "policy.py" in said
    result = json.loads(r.stdout.splitlines()[-1])
    assert [d["tool_name"] for d in result["permission_denials"]] == ["bash"]


def test_a_verdict_behind_many_braces_fails_closed() -> None:
    """A hook echoing model-chosen text full of braces on the line of its verdict: no answer
    can be ruled out, so PreToolUse blocks rather than letting the call run."""
    from agent.hooks.answers import MAX_TRIED, _mixed

    text = "payload=" + "{" * (MAX_TRIED + 1) + ' verdict {"decision":"block"}'
    assert "braces" in _mixed(text)
