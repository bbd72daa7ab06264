"""The TypeScript Claude Agent SDK's `query()` with `pathToClaudeCodeExecutable` pointing at
`agent` (issue 44): a text answer, the system prompt options, a tool call approved or denied
by `canUseTool`, and an in-process SDK MCP tool (this SDK sends the last three in `initialize`
and flags as `--flag=value`, where the Python SDK passes them on the command line). Runs
where Node.js is present; the package is installed once into the test cache (without its
optional per-platform Claude Code binaries, which a program giving the path never runs)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from sdk_host import (
    STEP,
    Sdk,
    assert_system_prompt,
    jsonl,
    system_option,
    tool_names,
    tool_results,
    user_texts,
)  # fmt: skip

# The release that bundles Claude Code 2.1.332, as the Python SDK 0.2.189 (tests/sdk) does
TS_SDK = "@anthropic-ai/claude-agent-sdk"
TS_SDK_VERSION = "0.3.332"
SCRIPT = Path(__file__).with_name("ts_query.mjs")
INSTALL_TIMEOUT = 300
# seconds a failed install is not tried again (offline: one wait, not one a worker)
RETRY_AFTER = 600

pytestmark = pytest.mark.timeout(INSTALL_TIMEOUT + 2 * STEP)  # a first install, then the run


def _cache() -> Path:
    return Path(os.environ.get("AGENT_TEST_CACHE") or Path.home() / ".cache" / "agent-tests")


def _install(npm: str, where: Path) -> str:
    """npm's complaint, or "" once the package is installed under `where`."""
    where.mkdir(parents=True)
    (where / "package.json").write_text('{"private": true}\n')
    try:
        r = subprocess.run(
            [npm, "install", "--omit=optional", "--no-audit", "--no-fund",
             "--no-update-notifier", f"{TS_SDK}@{TS_SDK_VERSION}"],
            cwd=where, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"npm install took over {INSTALL_TIMEOUT} s"
    if r.returncode == 0:
        return ""
    said = [line for line in (r.stderr or r.stdout).splitlines() if "    at " not in line]
    return " / ".join(said[:6])[:500]  # npm's error lines, without the stack


@pytest.fixture(scope="module")
def ts_sdk() -> tuple[str, str]:
    """(node, the file URL of the SDK's entry module), installing it into the test cache
    once: the workers that ask at the same time wait for the one installing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js (node and npm) is not installed")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    major = int(version.strip().lstrip("v").split(".")[0] or 0)
    if major < 18:  # the package's engines: node >= 18.14
        pytest.skip(f"Node.js {version.strip()} is older than the SDK needs (18.14)")
    root = _cache() / f"claude-agent-sdk-{TS_SDK_VERSION}"
    entry = root / "node_modules" / "@anthropic-ai" / "claude-agent-sdk" / "sdk.mjs"
    root.parent.mkdir(parents=True, exist_ok=True)
    failed = root.parent / f"{root.name}.failed"  # why the last try failed, for a while
    with open(root.parent / f"{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not entry.exists():
            with contextlib.suppress(FileNotFoundError):
                if time.time() - failed.stat().st_mtime < RETRY_AFTER:  # not every worker
                    pytest.skip(f"could not install {TS_SDK}: {failed.read_text()}")
            partial = root.parent / f"{root.name}.partial-{os.getpid()}"
            shutil.rmtree(partial, ignore_errors=True)
            problem = _install(npm, partial)
            if problem:
                shutil.rmtree(partial, ignore_errors=True)
                failed.write_text(problem)
                pytest.skip(f"could not install {TS_SDK}@{TS_SDK_VERSION}: {problem}")
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(root)  # a broken earlier install
            partial.rename(root)
            failed.unlink(missing_ok=True)
    return node, entry.as_uri()


def run_ts(node_sdk: tuple[str, str], sdk: Sdk, prompt: str, **more: Any) -> dict[str, Any]:
    """The script's SDK messages, its canUseTool calls and "add" calls, and its stderr."""
    node, entry = node_sdk
    config = {"sdk": entry, "cli": str(sdk.cli), "cwd": str(sdk.project), "env": sdk.env,
              "prompt": prompt, **more}  # fmt: skip
    r = subprocess.run(
        [node, str(SCRIPT), json.dumps(config)],
        cwd=sdk.project, capture_output=True, text=True, timeout=STEP,
    )  # fmt: skip
    lines = jsonl(r.stdout)
    errors = [line["error"] for line in lines if "error" in line]
    assert r.returncode == 0 and not errors, f"{errors}\nstderr:\n{r.stderr[-3000:]}"
    [asked] = [line["asked"] for line in lines if "asked" in line]
    [added] = [line["added"] for line in lines if "added" in line]
    return {"messages": [line["message"] for line in lines if "message" in line],
            "asked": asked, "added": added, "stderr": r.stderr}  # fmt: skip


def said(messages: list[dict[str, Any]]) -> str:
    return "".join(
        b["text"]
        for m in messages
        if m["type"] == "assistant"
        for b in m["message"]["content"]
        if b["type"] == "text"
    )


def test_a_text_answer(fake: FakeOpenAI, sdk: Sdk, ts_sdk: tuple[str, str]) -> None:
    fake.script(text("Hello from the agent.", pieces=3, reasoning="Let me think."))
    out = run_ts(ts_sdk, sdk, "say hello")
    messages = out["messages"]
    assert messages[0]["type"] == "system" and messages[0]["subtype"] == "init", messages
    assert said(messages) == "Hello from the agent."
    result = messages[-1]
    assert result["type"] == "result" and result["subtype"] == "success", out["stderr"]
    assert result["result"] == "Hello from the agent."
    assert result["session_id"] == messages[0]["session_id"]
    [request] = fake.requests
    assert user_texts(request)[-1].endswith("say hello")  # sent as a list of text blocks


@pytest.mark.parametrize("form", ["custom", "preset_append"])
def test_the_system_prompt_options(
    fake: FakeOpenAI, sdk: Sdk, ts_sdk: tuple[str, str], form: str
) -> None:
    """This SDK sends `systemPrompt` as `initialize`'s `systemPrompt` (a list of strings) and a
    preset's `append` as its `appendSystemPrompt`, with the meaning of the flags the Python
    SDK passes (tests/sdk/test_sdk_query.py: the same test)."""
    fake.script(text("Bonjour."))
    out = run_ts(ts_sdk, sdk, "greet me", systemPrompt=system_option(form))
    result = out["messages"][-1]
    assert result["type"] == "result" and result["subtype"] == "success", out["stderr"]
    assert_system_prompt(form, fake.requests[0])


@pytest.mark.parametrize("allow", [True, False])
def test_a_tool_call_approved_or_denied(
    fake: FakeOpenAI, sdk: Sdk, ts_sdk: tuple[str, str], allow: bool
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "made.txt", "content": "hi\n"})], ids=["call_w"]),
        text("done" if allow else "not allowed"),
    )
    out = run_ts(ts_sdk, sdk, "make the file", allow=allow, deny="the program said no")
    [asked] = out["asked"]
    assert asked["toolName"] in ("write_file", "Write") and asked["input"]["content"] == "hi\n"
    assert asked["toolUseID"] == "call_w"
    result = out["messages"][-1]
    assert result["type"] == "result" and result["subtype"] == "success", out["stderr"]
    made = sdk.project / "made.txt"
    if allow:
        assert made.read_text() == "hi\n"
        ran = [m for m in out["messages"] if m["type"] == "user"]
        assert ran, out["messages"]  # the tool result, as Claude Code reports it
    else:
        assert not made.exists()
        assert "the program said no" in tool_results(fake.requests[1])["call_w"]
        assert [d["tool_use_id"] for d in result["permission_denials"]] == ["call_w"]


def test_an_in_process_sdk_mcp_tool(fake: FakeOpenAI, sdk: Sdk, ts_sdk: tuple[str, str]) -> None:
    """`createSdkMcpServer` servers reach the CLI as `initialize`'s `sdkMcpServers` (with
    their tool lists in `sdkMcpServerManifests`), and their calls as `mcp_message`s."""
    fake.script(
        tool_calls([("mcp__calc__add", {"a": 2, "b": 3})], ids=["call_m"]),
        text("2 + 3 = 5"),
    )
    out = run_ts(ts_sdk, sdk, "add 2 and 3", mcp=True)
    assert out["added"] == [{"a": 2, "b": 3}], out["stderr"]
    assert "mcp__calc__add" in tool_names(fake.requests[0])  # listed before the first request
    assert "the sum is 5" in tool_results(fake.requests[1])["call_m"]
    result = out["messages"][-1]
    assert result["type"] == "result" and result["subtype"] == "success", out["stderr"]
