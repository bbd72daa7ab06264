"""The agent against a real llama.cpp server (issue 21): streaming in every output mode, a tool
call parsed from the real stream and run, a denied call, the window read from the server,
llama.cpp's own context-overflow error, a server killed mid-reply and restarted, a wrong base
path. Assertions on the agent's behaviour, not the model's wisdom.
Run by `python tests/real_server/run.py` (and .ci/run), not by the main suite."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from llama import Server, free_port

AGENT = [sys.executable, "-m", "agent"]


def agent(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGENT, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=150,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def clean(r: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in r.stderr and "Error:" not in r.stderr.split("error:")[0], r.stderr


def test_text_json_and_stream_json(env: dict[str, str], project: Path) -> None:
    r = agent(env, project, "Say hello in one short sentence.")
    clean(r)
    assert r.returncode == 0 and r.stdout.strip()
    r = agent(env, project, "--output-format", "json", "Name one colour.")
    clean(r)
    out = lines(r.stdout)
    assert out[0]["subtype"] == "init" and out[-1]["type"] == "result"
    assert out[-1]["subtype"] == "success"
    assert out[-1]["usage"]["input_tokens"] > 1000  # the real prompt, counted by the server
    assert any(o["type"] == "text" for o in out)  # streamed in pieces
    r = agent(env, project, "--output-format", "stream-json", "Name one fruit.")
    clean(r)
    kinds = [o["type"] for o in lines(r.stdout)]
    assert kinds[0] == "system" and kinds[-1] == "result" and "assistant" in kinds
    stops = [o["message"]["stop_reason"] for o in lines(r.stdout) if o["type"] == "assistant"]
    assert set(stops) <= {"end_turn", "max_tokens", "tool_use"}


def test_the_window_is_read_from_the_server(env: dict[str, str], project: Path) -> None:
    r = agent(env, project, "Reply with the word yes.")
    assert r.returncode == 0, r.stderr
    table = json.loads((Path(env["AGENT_STATE_DIR"]) / "windows.json").read_text())
    [entry] = table.values()
    assert (entry["n_ctx"], entry["source"]) == (8192, "server")
    r = agent(env, project, "/context")
    assert "/ 8,192 tokens" in r.stdout  # not the 128,000 default


def test_llama_cpps_overflow_error_ends_cleanly(env: dict[str, str], project: Path) -> None:
    r = agent(env, project, "--output-format", "json", "Summarise: " + "lorem ipsum " * 6000)
    clean(r)
    result = lines(r.stdout)[-1]
    assert r.returncode == 1 and result["subtype"] == "error_during_execution"
    assert (
        "too long for the model" in result["error"] and "cannot be made to fit" in result["error"]
    )
    r = agent(env, project, "-c", "--output-format", "json", "Say ok.")  # the session goes on
    clean(r)
    assert r.returncode == 0 and lines(r.stdout)[-1]["subtype"] == "success"


def test_a_server_killed_mid_reply_and_restarted(env: dict[str, str], project: Path) -> None:
    own = Server(free_port(), n_predict=1500).start()  # a long reply, to be cut
    env = {**env, "AGENT_BASE_URL": own.base_url}
    proc = subprocess.Popen(
        [*AGENT, "--output-format", "json", "Write a long story about a lighthouse keeper."],
        env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        for line in proc.stdout:  # the first streamed piece: the reply is under way
            if json.loads(line)["type"] == "text":
                break
        own.kill()
        time.sleep(0.5)
        own.n_predict = 40  # the retried reply ends soon
        own.start()
        rest = proc.stdout.read()
        proc.wait(timeout=120)
    finally:
        own.kill()
        if proc.poll() is None:
            proc.kill()
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert "Traceback" not in err
    out = [json.loads(x) for x in rest.splitlines()]
    retries = [o for o in out if o["type"] == "error" and o["retrying"]]
    assert retries and retries[0]["discard_partial"] is True  # the cut piece is taken back
    assert proc.returncode == 0 and out[-1]["subtype"] == "success"


def test_a_wrong_base_path_says_so(env: dict[str, str], project: Path, server: Server) -> None:
    env = {**env, "AGENT_BASE_URL": f"http://127.0.0.1:{server.port}/nope/v1"}
    r = agent(env, project, "hello")
    clean(r)
    assert r.returncode == 1
    assert "not found (404)" in r.stderr and "check the base URL" in r.stderr


def copy_call(call: dict) -> str:
    """A prompt the small model answers by copying the call (at temperature 0: every time); the
    server's Qwen2.5 template parses the `<tool_call>` it writes into streamed tool_calls."""
    return (
        f"Reply with exactly this line and nothing else: <tool_call>{json.dumps(call)}</tool_call>"
    )


def test_a_tool_call_from_the_real_stream_runs(env: dict[str, str], project: Path) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text('{"temperature": 0}')
    call = {"name": "read_file", "arguments": {"path": "notes.txt"}}
    r = agent(env, project, "--output-format", "json", "--max-turns", "2", copy_call(call))
    clean(r)
    out = lines(r.stdout)
    used = next(o for o in out if o["type"] == "tool_call")
    assert (used["tool"], used["args"]) == ("read_file", {"path": "notes.txt"})
    [result] = [o for o in out if o["type"] == "tool_result" and o["id"] == used["id"]]
    assert result["is_error"] is False and "mango" in result["result"]


def test_a_denied_call_from_the_real_stream(env: dict[str, str], project: Path) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text('{"temperature": 0}')
    call = {"name": "write_file", "arguments": {"path": "out.txt", "content": "hi"}}
    r = agent(env, project, "--output-format", "json", "--max-turns", "2", copy_call(call))
    clean(r)
    result = lines(r.stdout)[-1]
    assert [d["tool_name"] for d in result["permission_denials"]] == ["write_file"]
    assert not (project / "out.txt").exists()  # no terminal to ask: denied, and said so
