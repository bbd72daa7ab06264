"""Project actions end to end: one-shot runs against the scripted fake (the model calls
run_action and sees the result), trust, confirmation without a terminal, and the /actions and
/run commands on a real session."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.app import build
from agent.base.events import Recorder
from agent.commands.actions import Lines
from agent.commands.registry import Ctx, all_commands, dispatch
from agent.config.load import Flags
from agent.config.statedir import project_state
from agent.permissions.request import Answer, AskRequest
from agent.ui.startup import configure

AGENT = [sys.executable, "-m", "agent"]
PY = sys.executable
SMOKE = """import json, sys
print("smoke ok")
print(json.dumps(sys.argv[1:]))
"""
LINES = """import sys, time
print("first", flush=True)
time.sleep(0.6)
print("second", flush=True)
print("warn", file=sys.stderr)
"""


def actions(*items: dict[str, Any]) -> str:
    return json.dumps({"actions": list(items)})


SMOKE_ACTION = {
    "id": "smoke",
    "name": "Smoke tests",
    "description": "Run the smoke tests. Use after a change; not for the full suite.",
    "command": PY,
    "args": ["smoke.py", "--level=${level}", "${target}"],
    "tags": ["test"],
    "params": [
        {"name": "level", "type": "integer", "enum": [1, 2], "default": 1},
        {"name": "target", "type": "string", "required": True, "description": "what to test"},
    ],
}
DEPLOY_ACTION = {
    "id": "deploy",
    "description": "Deploy. Only when the user asks.",
    "command": PY,
    "args": ["-c", "open('DEPLOYED', 'w').write('x')"],
    "requiresConfirm": True,
    "tags": ["ops"],
}
LINES_ACTION = {"id": "lines", "description": "Print lines.", "command": PY, "args": ["lines.py"]}
HANG_ACTION = {
    "id": "hang",
    "description": "Hang.",
    "command": PY,
    "args": [
        "-c",
        "import os, time; open('HANG.pid', 'w').write(str(os.getpid())); time.sleep(30)",
    ],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent").mkdir(parents=True)
    (p / "smoke.py").write_text(SMOKE)
    (p / "lines.py").write_text(LINES)
    (p / ".agent" / "actions.json").write_text(
        actions(
            SMOKE_ACTION,
            DEPLOY_ACTION,
            LINES_ACTION,
            HANG_ACTION,
            {"id": "broken", "description": "x"},
        )
    )
    return p


def one_shot(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent(env, cwd, *args)


def audit(root: Path) -> list[dict[str, Any]]:
    log = project_state(root) / "audit.jsonl"
    return [json.loads(x) for x in log.read_text().splitlines()]


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_the_model_runs_an_action_and_sees_its_output(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    hostile = "x; touch PWNED $(id)"
    fake.script(
        tool_calls([("run_action", {"action_id": "smoke", "params": {"target": hostile}})]),
        text("Smoke tests passed."),
    )
    r = one_shot(
        fake_env, project, "--trust-project", "--allowed-tools", "run_action(smoke)", "smoke it"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Smoke tests passed.\n"
    assert "action 'broken' skipped: field 'command': is required" in r.stderr
    first = fake.requests[0]
    assert tool_names(first)[-1] == "run_action"  # a fixed position: last
    described = next(t for t in first["tools"] if t["function"]["name"] == "run_action")
    assert "- smoke: Run the smoke tests." in described["function"]["description"]
    assert "target (string, required): what to test" in described["function"]["description"]
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "action smoke · exit 0" in tool_msg["content"]
    assert "smoke ok" in tool_msg["content"]
    assert json.dumps(["--level=1", hostile]) in tool_msg["content"]
    assert not (project / "PWNED").exists()
    (line,) = [e for e in audit(project) if e["tool"] == "run_action"]
    assert (line["trigger"], line["decision"], line["rule"], line["exit_code"]) == (
        "model",
        "allow",
        "run_action(smoke)",
        0,
    )
    assert line["args"]["params"] == {"target": hostile}


def test_a_param_spliced_into_code_behind_a_wrapper_never_runs(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    wrapped = {
        "id": "say",
        "description": "Say something.",
        "command": "timeout",
        "args": ["10", "bash", "-c", "echo ${msg}"],
        "params": [{"name": "msg", "type": "string", "required": True}],
    }
    (project / ".agent" / "actions.json").write_text(actions(SMOKE_ACTION, wrapped))
    fake.script(
        tool_calls([("run_action", {"action_id": "say", "params": {"msg": "$(touch PWNED)"}})]),
        text("Could not say it."),
    )
    r = one_shot(fake_env, project, "--trust-project", "--allowed-tools", "run_action", "say")
    assert r.returncode == 0, r.stderr
    assert (
        "action 'say' skipped: field 'args[3]': a param is spliced into code (bash runs it as "
        "code); pass ${msg} as a separate argument instead"
    ) in r.stderr
    described = next(t for t in fake.requests[0]["tools"] if t["function"]["name"] == "run_action")
    assert "- say:" not in described["function"]["description"]
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "'action_id' must be one of ['smoke'], got 'say'" in tool_msg["content"]
    assert not (project / "PWNED").exists()


def test_confirmation_without_a_terminal_means_denied(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(
        tool_calls([("run_action", {"action_id": "deploy", "params": {}})]),
        tool_calls([("run_action", {"action_id": "lines", "params": {}})]),
        text("Could not deploy."),
    )
    r = one_shot(
        fake_env,
        project,
        "--trust-project",
        "--output-format",
        "json",
        "--allowed-tools",
        "run_action(deploy)",
        "deploy",
    )
    assert r.returncode == 0, r.stderr
    assert not (project / "DEPLOYED").exists()
    result = json.loads(r.stdout.splitlines()[-1])
    denied = [d["tool_input"]["action_id"] for d in result["permission_denials"]]
    assert denied == ["deploy", "lines"]  # deploy asks every time; lines has no allow rule
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "action 'deploy' requires confirmation from a person" in tool_msg["content"]
    assert "this action needs a person's approval" in tool_msg["content"]


def test_untrusted_project_offers_no_actions_and_warns(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("hello"))
    r = one_shot(fake_env, project, "--allowed-tools", "run_action", "hi")
    assert r.returncode == 0, r.stderr
    assert "run_action" not in tool_names(fake.requests[0])
    assert "bash" in tool_names(fake.requests[0])
    warnings = [ln for ln in r.stderr.splitlines() if "actions.json" in ln]
    assert len(warnings) == 1
    assert "project actions not loaded (project not trusted" in warnings[0]


def test_expose_tags_and_never_allow_limit_the_tool(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent" / "settings.json").write_text('{"actions": {"exposeTags": ["test"]}}')
    fake.script(text("one"), text("two"))
    r = one_shot(fake_env, project, "--trust-project", "hi")
    assert r.returncode == 0, r.stderr
    (tool,) = [t for t in fake.requests[0]["tools"] if t["function"]["name"] == "run_action"]
    assert tool["function"]["parameters"]["properties"]["action_id"]["enum"] == ["smoke"]
    r = one_shot(fake_env, project, "--trust-project", "--disallowed-tools", "run_action", "hi")
    assert r.returncode == 0, r.stderr
    assert "run_action" not in tool_names(fake.requests[1])


# ---------- /actions and /run on a real session ----------


class Console:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, text: str = "", **kw: Any) -> None:
        self.lines.append(str(text))


class Display:
    def __init__(self) -> None:
        self.shown: list[tuple[float, str, str]] = []

    def line(self, text: str, style: str = "") -> None:
        self.shown.append((time.monotonic(), text, style))


def session(project: Path, monkeypatch: pytest.MonkeyPatch, **flags: Any) -> Ctx:
    home = project.parent / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    env["AGENT_SANDBOX"] = "off"  # these tests read the action's pid (a sandbox has its own)
    cfg = configure(Flags(**flags), env, project)
    run = build(cfg, Recorder())
    return Ctx(run, Console(), turn=_no_turn, display=Display(), commands=all_commands(project))


async def _no_turn(text: str) -> None:
    raise AssertionError("commands of actions never run a turn")


async def test_actions_lists_by_tag(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = session(project, monkeypatch, trust_project=True)
    assert await dispatch(ctx, "/actions")
    out = ctx.console.lines
    assert out.index("ops:") < out.index("test:") < out.index("(untagged):")
    assert "  deploy  [asks first]" in out
    assert "  smoke — Smoke tests" in out
    assert any(ln.strip().startswith("params: level (integer, one of 1|2") for ln in out)
    assert "  lines" in out
    assert not any("broken" in ln for ln in out)


async def test_run_streams_output_and_is_audited(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = session(project, monkeypatch, trust_project=True)
    assert await dispatch(ctx, "/run lines")
    shown = ctx.display.shown
    texts = [t for _, t, _ in shown]
    assert texts[0].startswith("▶ lines: ")
    assert texts[1:4] == ["first", "second", "warn"]
    assert shown[3][2] == "dim"  # stderr
    assert shown[2][0] - shown[1][0] > 0.4  # "first" was shown while the action still ran
    assert texts[-1].startswith("■ lines · exit 0")
    await dispatch(ctx, '/run smoke "target=a b" level=2')
    assert '["--level=2", "a b"]' in [t for _, t, _ in ctx.display.shown]
    await dispatch(ctx, "/run smoke level=3")
    assert "must be one of 1, 2" in ctx.display.shown[-1][1]
    lines = [e for e in audit(project) if e["tool"] == "run_action"]
    assert [(e["trigger"], e["args"]["action_id"], e["exit_code"]) for e in lines] == [
        ("user", "lines", 0),
        ("user", "smoke", 0),
    ]
    assert lines[1]["args"]["params"] == {"level": 2, "target": "a b"}
    assert lines[0]["session"] == ctx.run.session_id


async def test_run_confirms_and_honours_deny_rules(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = session(project, monkeypatch, trust_project=True)
    await dispatch(ctx, "/run deploy")  # no terminal to ask: not run
    assert not (project / "DEPLOYED").exists()
    assert "not run (not confirmed)" in ctx.display.shown[-1][1]
    asked: list[AskRequest] = []

    async def yes(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("y")

    ctx.run.gate.asker = yes
    await dispatch(ctx, "/run deploy")
    assert (project / "DEPLOYED").exists()
    assert asked[0].choices == ("y", "n")
    assert "confirmation" in asked[0].reason
    ctx.run.gate.rules["neverAllow"] = ["run_action(smo*)"]
    await dispatch(ctx, "/run smoke target=x")
    assert "denied by rule 'run_action(smo*)'" in ctx.display.shown[-1][1]
    decisions = [(e["args"]["action_id"], e["decision"]) for e in audit(project)]
    assert decisions == [("deploy", "deny"), ("deploy", "allow"), ("smoke", "deny")]


async def test_untrusted_session_explains(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = session(project, monkeypatch)
    assert ctx.run.actions is None
    assert "run_action" not in ctx.run.agent.tools
    await dispatch(ctx, "/run smoke target=x")
    await dispatch(ctx, "/actions")
    assert all("not trusted" in ln for ln in ctx.console.lines)
    assert len(ctx.console.lines) == 2


async def test_an_interrupted_run_is_killed_and_audited(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = session(project, monkeypatch, trust_project=True)
    task = asyncio.ensure_future(dispatch(ctx, "/run hang"))
    for _ in range(100):
        if (project / "HANG.pid").exists() and (project / "HANG.pid").read_text():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int((project / "HANG.pid").read_text())
    for _ in range(60):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the action's process survived the interrupt")
    (line,) = audit(project)
    assert (line["trigger"], line["status"], line["args"]["action_id"]) == (
        "user",
        "interrupted",
        "hang",
    )


def test_lines_decode_utf8_split_across_chunks() -> None:
    shown: list[tuple[str, bool]] = []
    lines = Lines(lambda text, err: shown.append((text, err)))
    lines.feed(1, b"h\xc3")
    lines.feed(1, b"\xa9llo\r\nx")
    lines.feed(2, b"e")
    lines.flush()
    assert shown == [("h\u00e9llo", False), ("x", False), ("e", True)]


# ---------- the working tree: `--worktree` and /batch units ----------

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}
WHERE_ACTION = {
    "id": "where",
    "description": "Show where actions run.",
    "command": "bash",
    "args": ["-c", 'pwd; ls; echo "root=$1"', "_", "${workspaceRoot}"],
}
WIPE_ACTION = {
    "id": "wipe",
    "description": "Delete a build directory.",
    "command": "rm",
    "args": ["-rf", "${workspaceRoot}/${target}"],
    "params": [{"name": "target", "type": "string", "required": True}],
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose committed actions.json declares `where` and `wipe`."""
    r = tmp_path / "repo"
    (r / ".agent").mkdir(parents=True)
    (r / "app.py").write_text("print(1)\n")
    (r / ".agent" / "actions.json").write_text(actions(WHERE_ACTION, WIPE_ACTION))
    git(r, "init", "-q", "-b", "main")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "init")
    return r


def test_actions_run_in_the_worktree_of_a_worktree_session(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "wt_only.txt", "content": "x\n"})]),
        tool_calls([("run_action", {"action_id": "where", "params": {}})]),
        tool_calls([("run_action", {"action_id": "wipe", "params": {"target": ""}})]),
        tool_calls([("run_action", {"action_id": "wipe", "params": {"target": "../../.."}})]),
        text("done"),
    )
    r = one_shot(
        {**fake_env, **GIT_ENV},
        repo,
        "--trust-project",
        "--allowed-tools",
        "write_file,run_action",
        "go",
        "--worktree",
        "wa",
    )
    assert r.returncode == 0, r.stderr
    wt = (repo / ".agent" / "worktrees" / "wa").resolve()
    results = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    where = results[1]
    assert "action where · exit 0" in where
    assert f"[stdout]\n{wt}\n" in where  # pwd
    assert "wt_only.txt" in where  # ls
    assert f"root={repo / '.agent' / 'worktrees' / 'wa'}" in where
    assert "param 'target' of action 'wipe' is required and may not be empty" in results[2]
    assert "refused: rm -rf of /" in results[3]
    assert (wt / "wt_only.txt").is_file()
    assert not (repo / "wt_only.txt").exists()
    assert (repo / "app.py").is_file()
    assert (wt / "app.py").is_file()
    audited = [e["args"]["action_id"] for e in audit(repo) if e["tool"] == "run_action"]
    assert audited == ["where", "wipe", "wipe"]  # the main checkout's audit log


async def test_batch_units_run_actions_in_their_own_worktrees(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from helpers import close_all
    from routed_fake import RoutedFake, close_runs, make_run

    from agent.workflows.batch import batch

    monkeypatch.setenv("HOME", str(repo.parent / "home"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    routed = RoutedFake().start()
    try:
        units = [f"UNIT-{n}: write u{n}.txt, then run the where action" for n in (1, 2, 3)]
        routed.script(text(json.dumps(units)))
        for n in (1, 2, 3):
            write = ("write_file", {"path": f"u{n}.txt", "content": "x\n"})
            where = ("run_action", {"action_id": "where", "params": {}})
            routed.route(f"UNIT-{n}", tool_calls([write]), tool_calls([where]), text("ok"))
        run, _ = make_run(routed, repo, mode="acceptEdits")
        run.gate.rules["alwaysAllow"] = ["run_action(where)"]
        results = await batch(run.agent.ctx.subagents, "three files", repo)
        assert [r.report.ok for r in results] == [True, True, True]
        assert routed.problems() == []
    finally:
        routed.stop()
        await close_runs()
        await close_all()
    outputs = {}
    for req in routed.requests:
        found = [m["content"] for m in req["messages"] if m["role"] == "tool"]
        head = json.dumps(req["messages"][:2])
        unit = next((n for n in (1, 2, 3) if f"UNIT-{n}" in head), None)
        if unit and len(found) == 2:
            outputs[unit] = found[1]
    assert sorted(outputs) == [1, 2, 3]
    for n, out in outputs.items():
        wt = Path(out.split("[stdout]\n")[1].splitlines()[0])
        assert wt.parent == (repo / ".agent" / "worktrees").resolve()
        assert f"u{n}.txt" in out.splitlines()
        assert not any(f"u{m}.txt" in out.splitlines() for m in (1, 2, 3) if m != n)
        assert out.splitlines()[-1] == f"root={repo / '.agent' / 'worktrees' / wt.name}"
    assert not any((repo / f"u{n}.txt").exists() for n in (1, 2, 3))
