"""MCP end to end: `python -m agent` one-shot runs with a scripted model and real MCP servers:
the demo server, `mcp-server-time` from PyPI, `@modelcontextprotocol/server-filesystem` (npx)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import MCP_SERVERS, run_agent, user_settings

from agent.config.statedir import project_state

HERE = MCP_SERVERS
DEMO, SILENT = str(HERE / "demo.py"), str(HERE / "silent.py")
FS_PACKAGE = "@modelcontextprotocol/server-filesystem"


def run(env: dict[str, str], cwd: Path, *args: str, timeout: float = 90) -> Any:
    return run_agent(env, cwd, *args, timeout=timeout)


def leftovers(under: Path) -> list[str]:
    """Live processes whose working directory is inside `under` (servers inherit the cwd)."""
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(p / "cwd")
            state = (p / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(under)) and state != "Z":
            found.append(f"{p.name}: {cmd}")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p


def tool_message(fake: FakeOpenAI, request: int) -> str:
    return next(m for m in fake.requests[request]["messages"] if m["role"] == "tool")["content"]


def test_published_time_server_end_to_end(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    pytest.importorskip("mcp_server_time")
    args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
    user_settings(fake_env, {"mcpServers": {"time": {"command": sys.executable, "args": args}}})
    fake.script(
        tool_calls([("mcp__time__get_current_time", {"timezone": "Europe/Paris"})]),
        text("It is evening in Paris."),
    )
    r = run(fake_env, project, "--output-format", "json", "what time is it in Paris?")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    init = events[0]
    assert init["mcp_servers"] == [{"name": "time", "status": "connected", "tools": 2}]
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(init["tools"])
    offered = {t["function"]["name"]: t["function"] for t in fake.requests[0]["tools"]}
    current = offered["mcp__time__get_current_time"]
    assert current["description"].startswith("[MCP server time] Get current time")
    assert current["parameters"]["required"] == ["timezone"]
    result = json.loads(tool_message(fake, 1))
    assert result["timezone"] == "Europe/Paris" and result["datetime"][:2] == "20"
    [end] = [e for e in events if e["type"] == "tool_result"]
    assert end["tool"] == "mcp__time__get_current_time" and not end["is_error"]
    assert events[-1]["result"] == "It is evening in Paris."
    assert not leftovers(project)


def test_a_dead_server_delays_the_run_by_its_timeout_only(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    dead = {"command": sys.executable, "args": [SILENT]}
    user_settings(fake_env, {"mcpTimeout": 2, "mcpServers": {"dead": dead}})
    arrived: list[float] = []
    fake.script(text("answered anyway", expect=lambda _body: arrived.append(time.monotonic())))
    t0 = time.monotonic()
    r = run(fake_env, project, "--output-format", "json", "hello?")
    total = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    init = json.loads(r.stdout.splitlines()[0])
    [status] = init["mcp_servers"]
    assert status["name"] == "dead" and status["status"] == "timeout" and status["tools"] == 0
    assert status["error"].startswith("no answer to initialize within 2s")
    assert "MCP server 'dead' timeout" in r.stderr
    # its 2 s, not the 30 s default (generous: start-up on a loaded machine takes seconds)
    assert arrived[0] - t0 < 25
    assert total < 45  # and shutdown kills the server within its bounded steps, not for ever
    print(f"dead server: first request after {arrived[0] - t0:.2f}s, exit after {total:.2f}s")
    raw = [ln for ln in r.stderr.splitlines() if ln.startswith("silent server")]
    assert not raw  # the server's stderr goes to its log, not the terminal
    assert "never answering" in (project_state(project) / "mcp-dead.log").read_text()
    assert not leftovers(project)


def test_untrusted_project_servers_stay_off_until_trusted(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    marker = project / "server-was-started"
    server = {"command": sys.executable, "args": [DEMO], "env": {"MCP_DEMO_MARKER": str(marker)}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": server}}))
    fake.script(text("one"), text("two"))
    r = run(fake_env, project, "--output-format", "json", "hi")
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    assert ".mcp.json: MCP servers not started (project not trusted" in r.stderr
    assert json.loads(r.stdout.splitlines()[0])["mcp_servers"] == []
    r = run(fake_env, project, "--output-format", "json", "--trust-project", "hi")
    assert r.returncode == 0, r.stderr
    assert marker.exists()
    assert json.loads(r.stdout.splitlines()[0])["mcp_servers"][0]["status"] == "connected"
    assert not leftovers(project)


def test_no_mcp_starts_nothing(fake: FakeOpenAI, fake_env: dict[str, str], project: Path) -> None:
    marker = project / "server-was-started"
    server = {"command": sys.executable, "args": [DEMO], "env": {"MCP_DEMO_MARKER": str(marker)}}
    user_settings(fake_env, {"mcpServers": {"demo": server}})
    fake.script(text("fine"))
    r = run(fake_env, project, "--output-format", "json", "--no-mcp", "hi")
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    assert json.loads(r.stdout.splitlines()[0])["mcp_servers"] == []


def test_mcp_tools_go_through_permissions_hooks_and_audit(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    hook = f"{sys.executable} -c \"import sys; sys.stderr.write('no failing'); sys.exit(2)\""
    user_settings(
        fake_env,
        {
            "mcpServers": {"demo": {"command": sys.executable, "args": [DEMO]}},
            "hooks": {"PreToolUse": [{"matcher": "mcp__demo__fail", "hooks": [{"command": hook}]}]},
        },
    )
    calls = [
        ("mcp__demo__echo", {"text": "hi"}),  # allowed by --allowed-tools
        ("mcp__demo__image", {}),  # not read-only: denied without a terminal
        ("mcp__demo__peek", {}),  # readOnlyHint: allowed
        ("mcp__demo__fail", {}),  # blocked by the PreToolUse hook
    ]
    fake.script(tool_calls(calls), text("done"))
    args = ("--output-format", "json", "--allowed-tools", "mcp__demo__echo", "go")
    r = run(fake_env, project, *args)
    assert r.returncode == 0, r.stderr
    results = {
        m["tool_call_id"]: m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"
    }
    echo, image, peek, fail = results.values()
    assert echo == "echo: hi"
    assert "denied" in image.lower() or "not allowed" in image.lower()
    assert peek == "value of a"
    assert "no failing" in fail
    last = json.loads(r.stdout.splitlines()[-1])
    denied = [d["tool_name"] for d in last["permission_denials"]]
    assert denied == ["mcp__demo__image", "mcp__demo__fail"]  # the rule and the hook
    audit = (project_state(project) / "audit.jsonl").read_text()
    assert "mcp__demo__echo" in audit and "mcp__demo__image" in audit


@pytest.fixture(scope="module")
def filesystem_server() -> list[str]:
    """The npx command for the reference filesystem server, fetched once (bounded in time)."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("Node.js (npx) is not installed")
    try:
        probe = subprocess.run(
            [npx, "-y", FS_PACKAGE, "--help"], capture_output=True, text=True, timeout=180
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"fetching {FS_PACKAGE} with npx took over 180 s")
    if not any(w in probe.stderr for w in ("Usage", "directories", "Allowed")):  # it never ran
        pytest.skip(f"npx could not run {FS_PACKAGE}: {(probe.stderr or probe.stdout)[-300:]}")
    return [npx, "-y", FS_PACKAGE]


@pytest.mark.timeout(420)  # a first npx fetch may be slow; both steps are bounded
def test_reference_filesystem_server_via_npx(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, filesystem_server: list[str]
) -> None:
    npx, *args = filesystem_server
    fs = {"command": npx, "args": [*args, str(project)], "timeout": 60}
    user_settings(fake_env, {"mcpServers": {"fs": fs}})
    fake.script(tool_calls([("mcp__fs__list_directory", {"path": str(project)})]), text("ok"))
    r = run(fake_env, project, "--output-format", "json", "what is here?", timeout=120)
    assert r.returncode == 0, r.stderr
    [status] = json.loads(r.stdout.splitlines()[0])["mcp_servers"]
    assert status["status"] == "connected" and status["tools"] > 5, status
    assert "notes.txt" in tool_message(fake, 1)
    assert "running on stdio" not in r.stderr  # the server's banner went to its log
    assert "running on stdio" in (project_state(project) / "mcp-fs.log").read_text()
    assert not leftovers(project)


def test_one_shot_prompt_command_and_resource_mention(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """`agent "/mcp__demo__review …"` runs the server's prompt once servers connected;
    `@demo:uri` in a one-shot prompt attaches the resource."""
    user_settings(fake_env, {"mcpServers": {"demo": {"command": sys.executable, "args": [DEMO]}}})
    fake.script(text("looks fine"), text("swordfish"))
    r = run(fake_env, project, "/mcp__demo__review 'x = 1' language=python")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "looks fine"
    sent = fake.requests[0]["messages"][-1]["content"]
    assert sent.endswith("Please review this python code:\nx = 1")
    r = run(fake_env, project, "what is the password in @demo:demo://notes?")
    assert r.returncode == 0, r.stderr
    sent = fake.requests[1]["messages"][-1]["content"]
    assert sent.endswith('uri="demo://notes">\n# Notes\nthe password is swordfish\n</resource>')
    assert not leftovers(project)


@pytest.mark.parametrize(
    ("prompt", "code", "said"),
    [
        ("/mcp__demo__nope", 2, "unknown command /mcp__demo__nope"),
        ("/mcp__ghost__x", 2, "unknown command /mcp__ghost__x"),
        ("/mcp__demo__review", 2, "/mcp__demo__review needs <code>"),
        ("/mcp__demo__crash", 1, "/mcp__demo__crash: the MCP server 'demo' is not connected"),
    ],
)
def test_one_shot_prompt_commands_that_cannot_run_fail(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, prompt: str, code: int, said: str
) -> None:
    """An unknown prompt command, or one missing an argument, is a usage error (exit 2); one
    its server fails is a failure (exit 1); the JSON result line says so either way."""
    user_settings(fake_env, {"mcpServers": {"demo": {"command": sys.executable, "args": [DEMO]}}})
    r = run(fake_env, project, prompt)
    assert r.returncode == code, (prompt, r.stderr)
    assert said in r.stderr and r.stdout == ""
    r = run(fake_env, project, "--output-format", "json", prompt)
    assert r.returncode == code, (prompt, r.stderr)
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["type"] == "result" and result["subtype"] == "error_during_execution"
    assert result["is_error"] is True and said in result["error"]
    assert fake.requests == []
    assert not leftovers(project)
