"""Sessions as a user meets them: -c/-r, kill -9 mid-reply and mid-tool, torn files, concurrency."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.config.statedir import slug
from agent.session.recorder import NO_REPLY
from agent.session.store import load, sessions_dir

AGENT = [sys.executable, "-m", "agent"]


def run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent(env, cwd, *args)


def result(out: str) -> dict[str, Any]:
    return json.loads(out.splitlines()[-1])


def session_files(project: Path) -> list[Path]:
    return sorted(sessions_dir(project).glob("*.jsonl"))


def roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


def assert_valid(request: dict[str, Any]) -> None:
    """Every tool call answered right after its assistant message; no orphan results."""
    pending: list[str] = []
    for m in request["messages"]:
        if m["role"] == "tool":
            assert m["tool_call_id"] in pending, m
            pending.remove(m["tool_call_id"])
        else:
            assert not pending, f"unanswered calls {pending} before {m['role']}"
            pending = [c["id"] for c in m.get("tool_calls") or []]
    assert not pending


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent").mkdir(parents=True)
    return p


def test_continue_carries_the_conversation(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("first answer"), text("second answer"))
    r1 = run(fake_env, project, "--output-format", "json", "first question")
    sid = result(r1.stdout)["session_id"]
    assert session_files(project) == [sessions_dir(project) / f"{sid}.jsonl"]
    r2 = run(fake_env, project, "-c", "--output-format", "json", "second question")
    assert r2.returncode == 0, r2.stderr
    assert result(r2.stdout)["session_id"] == sid
    msgs = fake.requests[1]["messages"]
    assert roles(fake.requests[1]) == ["system", "user", "assistant", "user"]
    assert msgs[2]["content"] == "first answer"
    assert msgs[3]["content"] == "second question"
    records = load(session_files(project)[0]).records
    kinds = [r["t"] for r in records]
    assert kinds.count("checkpoint") == 2 and kinds.count("usage") == 2
    assert list((project / ".agent").iterdir()) == []  # nothing of the session in the project


def test_sessions_default_to_the_users_state_directory(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    """Without AGENT_STATE_DIR or XDG_STATE_HOME: ~/.local/state/agent/projects/<slug>/, and a
    run in a clean repository leaves `git status` clean."""
    del fake_env["AGENT_STATE_DIR"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    fake.script(text("first answer"), text("second answer"))
    r1 = run(fake_env, project, "--output-format", "json", "first question")
    assert r1.returncode == 0, r1.stderr
    sid = result(r1.stdout)["session_id"]
    state = Path(fake_env["HOME"]) / ".local" / "state" / "agent"
    assert list((state / "projects").iterdir()) == [state / "projects" / slug(project)]
    session = state / "projects" / slug(project) / "sessions" / f"{sid}.jsonl"
    assert session.is_file() and session.stat().st_mode & 0o777 == 0o600
    assert state.stat().st_mode & 0o777 == 0o700  # created private
    assert session_files(project) == []  # not in this process's AGENT_STATE_DIR
    status = ["git", "status", "--porcelain", "--untracked-files=all"]
    assert subprocess.run(status, cwd=project, capture_output=True, text=True).stdout == ""
    r2 = run(fake_env, project, "-c", "--output-format", "json", "second question")
    assert r2.returncode == 0, r2.stderr
    assert result(r2.stdout)["session_id"] == sid
    assert fake.requests[1]["messages"][2]["content"] == "first answer"


def test_resume_by_id_and_errors(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("a"), text("b"))
    sid = result(run(fake_env, project, "--output-format", "json", "q1").stdout)["session_id"]
    run(fake_env, project, "q-other")  # a newer session: -r ID must still pick the old one
    fake.script(text("c"))
    # A prefix of the id: one that stops before the random tail ends, since two sessions
    # started in the same second can share its first hex digits.
    r = run(fake_env, project, "-r", sid[:-2], "q3")
    assert r.returncode == 0, r.stderr
    assert [m["content"] for m in fake.requests[2]["messages"][2:]] == ["a", "q3"]
    bad = run(fake_env, project, "-r", "nope", "q")
    assert bad.returncode == 2 and "no session 'nope'" in bad.stderr
    listing = run(fake_env, project, "-r", "--", "q")
    assert listing.returncode == 2 and sid in listing.stderr


def test_continue_without_session_is_a_usage_error(fake_env: dict, project: Path) -> None:
    r = run(fake_env, project, "-c", "hello")
    assert r.returncode == 2 and "no previous session" in r.stderr


def _wait_for(predicate: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_kill_9_mid_reply_then_continue(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("never finished", pieces=6, stall_after=2, stall_seconds=30))
    proc = subprocess.Popen(
        [*AGENT, "question one"],
        env=fake_env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    _wait_for(lambda: fake.requests)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    fake.script(text("recovered"))
    r = run(fake_env, project, "-c", "question two")
    assert r.returncode == 0, r.stderr
    req = fake.requests[1]
    assert roles(req) == ["system", "user", "assistant", "user"]
    assert req["messages"][1]["content"].endswith("question one")
    assert_valid(req)


def test_kill_9_mid_tool_then_continue(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    marker = project / "started"
    fake.script(
        tool_calls(
            [
                ("bash", {"command": f"touch {marker} && sleep 30"}),
                ("read_file", {"path": "nothing.txt"}),
            ]
        )
    )
    proc = subprocess.Popen(
        [*AGENT, "--permission-mode", "bypassPermissions", "run it"],
        env=fake_env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    _wait_for(marker.exists)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    fake.script(text("ok"))
    r = run(fake_env, project, "-c", "what happened?")
    assert r.returncode == 0, r.stderr
    req = fake.requests[1]
    assert_valid(req)
    tools = [m for m in req["messages"] if m["role"] == "tool"]
    assert len(tools) == 2
    assert all("interrupted" in m["content"] or "nothing.txt" in m["content"] for m in tools)


def test_torn_and_garbage_lines_are_survived(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(text("one"), text("two"))
    run(fake_env, project, "q1")
    path = session_files(project)[0]
    data = path.read_bytes().split(b"\n")
    data.insert(2, b"\x00garbage{")
    path.write_bytes(b"\n".join(data) + b'{"t":"message","message":{"role":"user","con')
    r = run(fake_env, project, "-c", "q2")
    assert r.returncode == 0, r.stderr
    assert [m["content"] for m in fake.requests[1]["messages"][2:]] == ["one", "q2"]


def test_resume_keeps_reasoning_for_tool_turns(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    user = Path(fake_env["HOME"]) / ".agent"  # the user's own setting: a project's waits for trust
    user.mkdir(parents=True, exist_ok=True)
    (user / "settings.json").write_text('{"reasoningInput": "tool_calls"}')
    fake.script(
        tool_calls([("glob", {"pattern": "*"})], reasoning="look first"),
        text("done", reasoning="answer now"),
        text("again"),
    )
    run(fake_env, project, "q1")
    run(fake_env, project, "-c", "q2")
    assistants = [m for m in fake.requests[2]["messages"] if m["role"] == "assistant"]
    assert assistants[0]["reasoning_content"] == "look first"
    assert "reasoning_content" not in assistants[1]
    (user / "settings.json").write_text('{"reasoningInput": "none"}')
    fake.script(text("stripped"))
    run(fake_env, project, "-c", "q3")
    assert all("reasoning_content" not in m for m in fake.requests[3]["messages"])


def test_two_agents_at_once(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("x", pieces=5, delay=0.05), text("y", pieces=5, delay=0.05))
    procs = [
        subprocess.Popen(
            [*AGENT, "--output-format", "json", f"q{i}"],
            env=fake_env,
            cwd=project,
            stdout=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        for i in range(2)
    ]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    ids = {result(o)["session_id"] for o in outs}
    assert len(ids) == 2 and len(session_files(project)) == 2
    for f in session_files(project):
        loaded = load(f)
        assert not loaded.repaired
        assert [m["message"]["role"] for m in loaded.records if m["t"] == "message"] == [
            "user",
            "assistant",
        ]


def test_sessions_of_other_directories_are_not_mixed_in(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    sub = project / "sub"
    sub.mkdir()
    fake.script(text("in sub"))
    run(fake_env, sub, "q")
    r = run(fake_env, project, "-c", "again")
    assert r.returncode == 2 and "no previous session" in r.stderr


def test_resume_flag_followed_by_a_sentence_opens_the_picker(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(text("a"))
    run(fake_env, project, "q1")
    r = run(fake_env, project, "-r", "what did we do")  # the sentence is the prompt, not an ID
    assert r.returncode == 2
    assert "needs an ID without a terminal" in r.stderr
    assert "no session 'what did we do'" not in r.stderr


def test_a_file_name_too_long_is_a_tool_error_not_a_broken_session(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "x" * 300 + ".txt", "content": "hi"})]),
        text("could not write it"),
    )
    r = run(fake_env, project, "--permission-mode", "acceptEdits", "--output-format", "json", "w")
    assert r.returncode == 0, r.stderr
    assert result(r.stdout)["result"] == "could not write it"
    tool = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert tool.startswith("Error") and "too long" in tool
    assert_valid(fake.requests[1])


def test_continue_refuses_a_session_another_agent_is_writing(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    from agent.session.store import SessionFile

    fake.script(text("a"))
    sid = result(run(fake_env, project, "--output-format", "json", "q1").stdout)["session_id"]
    held = SessionFile(project, sid)  # as a REPL on that session would
    try:
        r = run(fake_env, project, "-c", "q2")
        assert r.returncode == 2
        assert f"session {sid} is in use by another agent" in r.stderr
    finally:
        held.close()
    fake.script(text("b"))
    assert run(fake_env, project, "-c", "q2").returncode == 0


def test_continuing_without_a_terminal_or_a_prompt_says_how(fake_env: dict, project: Path) -> None:
    for flags, hint in ((["-c"], 'agent -c "and now…"'), (["-r"], 'agent -r ID "and now…"')):
        r = run(fake_env, project, *flags)  # stdin is not a terminal and sends nothing
        assert r.returncode == 2
        assert f"without a terminal needs a prompt: {hint}" in r.stderr


@pytest.mark.parametrize(
    ("sessions", "key"),
    [
        ({"keep": "lots"}, "sessions.keep"),
        ({"keep": 0}, "sessions.keep"),
        ({"keep": 2.5}, "sessions.keep"),
        ({"maxAgeDays": "a month"}, "sessions.maxAgeDays"),
        ({"maxAgeDays": -1}, "sessions.maxAgeDays"),
        ({"keep": True}, "sessions.keep"),
    ],
)
def test_a_wrongly_typed_sessions_setting_is_a_usage_error(
    fake_env: dict, project: Path, sessions: dict[str, Any], key: str
) -> None:
    settings = project / ".agent" / "settings.json"
    settings.write_text(json.dumps({"sessions": sessions}))
    r = run(fake_env, project, "q")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert str(settings) in r.stderr and f"'{key}'" in r.stderr


def test_good_sessions_settings_prune_at_start_up(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    settings = {"sessions": {"keep": 2, "maxAgeDays": 1.5}}  # the user's: a project's needs trust
    user = Path(fake_env["HOME"]) / ".agent" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps(settings))
    fake.script(text("a"), text("b"), text("c"))
    for q in ("q1", "q2", "q3"):
        assert run(fake_env, project, q).returncode == 0
        time.sleep(0.02)  # distinct modification times
    assert len(session_files(project)) == 2


def test_a_corrupted_middle_line_is_reported_and_the_file_kept(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    fake.script(text("one"), text("two"), text("three"), text("four"))
    run(fake_env, project, "q1")
    run(fake_env, project, "-c", "q2")
    [path] = session_files(project)
    lines = path.read_bytes().split(b"\n")
    n = next(i for i, raw in enumerate(lines) if b'"content":"one"' in raw)
    lines[n] = lines[n][:-5] + b"\xff\x00"  # a damaged sector in the middle of the file
    original = b"\n".join(lines)
    path.write_bytes(original)
    r = run(fake_env, project, "-c", "q3")
    assert r.returncode == 0, r.stderr
    assert f"line {n + 1}" in r.stderr and str(path) in r.stderr
    [copy] = path.parent.glob(f"{path.name}.corrupt-*")
    assert str(copy) in r.stderr
    assert copy.read_bytes() == original
    assert copy.stat().st_mode & 0o077 == 0  # a whole conversation: private like the session
    sent = [m["content"] for m in fake.requests[2]["messages"][1:]]
    assert sent[0].endswith("q1")  # the rest is sent; the lost reply's place filled as usual
    assert sent[1:] == [NO_REPLY, "q2", "two", "q3"]
    again = run(fake_env, project, "-c", "q4")  # said once, copied once
    assert again.returncode == 0, again.stderr
    assert f"line {n + 1}" not in again.stderr
    assert len(list(path.parent.glob(f"{path.name}.corrupt-*"))) == 1
    assert [m["content"] for m in fake.requests[3]["messages"][-3:]] == ["q3", "three", "q4"]
