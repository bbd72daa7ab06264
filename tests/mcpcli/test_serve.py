"""`agent mcp serve` with the SDK's own stdio client: `python -m agent mcp serve` spawned as an
MCP client spawns it, its tools listed and called under the agent's permission rules, hooks,
audit log and sandbox — with no API key or model anywhere."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from agent.config.statedir import project_state
from agent.sandbox.linux import find_bwrap, probe
from agent.tools.builtin import builtin_tools, registry

WHY = probe(find_bwrap()) if sys.platform.startswith("linux") else "not Linux"
needs_bwrap = pytest.mark.skipif(bool(WHY), reason=f"the kernel refuses bubblewrap: {WHY}")
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
SERVED = {
    "read_file", "write_file", "edit_file", "notebook_edit", "glob", "grep", "outline",
    "symbols", "bash", "bash_output",
}  # fmt: skip


@pytest.fixture
def env(tmp_path: Path, state_dir: Path) -> dict[str, str]:
    """The user's environment without any model settings or keys: serving needs none."""
    home = tmp_path / "home"
    home.mkdir()
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_", "OPENAI_", "DEEPSEEK_"))
    }
    return {**clean, "HOME": str(home), "AGENT_STATE_DIR": str(state_dir), "AGENT_SANDBOX": "off"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p


@contextlib.asynccontextmanager
async def served(
    env: dict[str, str], cwd: Path, *flags: str, log: Path | None = None
) -> AsyncIterator[ClientSession]:
    """A client session with `agent mcp serve FLAGS` (its stderr in `log`)."""
    args = ["-m", "agent", "mcp", "serve", *flags]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))
    errlog = (log or Path(os.devnull)).open("w")  # opened before serving starts
    with errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, name: str, **args: Any) -> tuple[bool, str]:
    result = await session.call_tool(name, args)
    text = "\n".join(c.text for c in result.content if c.type == "text")
    return bool(result.is_error), text


def audit(cwd: Path) -> list[dict[str, Any]]:
    path = project_state(cwd) / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_tools_are_listed_with_their_schemas_and_hints(
    env: dict[str, str], project: Path
) -> None:
    async with served(env, project) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == SERVED  # no web, todo or plan tools; apply_patch only when set
    read = tools["read_file"]
    assert read.input_schema["required"] == ["path"]
    assert read.input_schema["properties"]["path"]["type"] == "string"
    assert read.description == registry(builtin_tools())["read_file"].description
    assert read.annotations is not None and read.annotations.read_only_hint
    bash = tools["bash"].annotations
    assert bash is not None and not bash.read_only_hint and bash.destructive_hint


async def test_settings_choose_the_tools(env: dict[str, str], project: Path) -> None:
    """`tools.applyPatch` adds apply_patch; a tool disallowed whole is not offered (bash takes
    bash_output along), as in a session."""
    settings = Path(env["HOME"]) / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"tools": {"applyPatch": True}}))
    async with served(env, project, "--disallowed-tools", "bash") as session:
        names = {t.name for t in (await session.list_tools()).tools}
    assert names == (SERVED - {"bash", "bash_output"}) | {"apply_patch"}


async def test_reads_and_malformed_calls_get_results_not_a_crash(
    env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    (project / "dot.png").write_bytes(PNG)
    (project / ".env").write_text("TOKEN=hunter2\n")
    async with served(env, tmp_path, "--cwd", str(project)) as session:  # started elsewhere
        assert await call(session, "read_file", path="notes.txt") == (
            False,
            "     1\tthe secret word is mango",
        )
        image = await session.call_tool("read_file", {"path": "dot.png"})
        assert not image.is_error
        assert [c.type for c in image.content] == ["text", "image"]
        failed, said = await call(session, "read_file", pathx=3)
        assert failed and "missing required parameter 'path'" in said
        failed, said = await call(session, "read_file", path=5)
        assert failed and "'path' must be string" in said
        failed, said = await call(session, "no_such_tool")
        assert failed and "unknown tool 'no_such_tool'" in said and "read_file" in said
        failed, said = await call(session, "read_file", path="missing.txt")
        assert failed and "missing.txt" in said
        failed, said = await call(session, "read_file", path=".env")  # a protected file asks
        assert failed and "no terminal to ask" in said and "hunter2" not in said
        failed, said = await call(session, "grep", pattern="mango")
        assert not failed and "notes.txt" in said
        assert len((await session.list_tools()).tools) == len(SERVED)  # still serving


async def test_an_edit_is_denied_without_a_rule_and_said_how_to_allow_it(
    env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    async with served(env, project, log=log) as session:
        await call(session, "read_file", path="notes.txt")
        failed, said = await call(
            session, "edit_file", path="notes.txt", old_string="mango", new_string="kiwi"
        )
    assert failed
    assert "permission denied for edit_file" in said and "no terminal to ask" in said
    assert "--permission-mode acceptEdits" in said
    assert (project / "notes.txt").read_text() == "the secret word is mango\n"
    assert "denied edit_file" in log.read_text()
    [denied] = [e for e in audit(project) if e["tool"] == "edit_file"]
    assert denied["status"] == "denied" and denied["trigger"] == "mcp client"


async def test_edits_the_rules_allow(env: dict[str, str], project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("elsewhere\n")
    async with served(env, project, "--permission-mode", "acceptEdits") as session:
        failed, said = await call(
            session, "edit_file", path="notes.txt", old_string="mango", new_string="kiwi"
        )
        assert failed and "read" in said  # the stale-read rule: read it first, as a model must
        await call(session, "read_file", path="notes.txt")
        failed, said = await call(
            session, "edit_file", path="notes.txt", old_string="mango", new_string="kiwi"
        )
        assert not failed, said
        failed, said = await call(session, "write_file", path="new/made.txt", content="hi\n")
        assert not failed, said
        await call(session, "read_file", path=str(outside))
        failed, said = await call(session, "write_file", path=str(outside), content="x\n")
        assert failed and "no terminal to ask" in said and "--allowed-tools" in said
    assert (project / "notes.txt").read_text() == "the secret word is kiwi\n"
    assert (project / "new" / "made.txt").read_text() == "hi\n"
    assert outside.read_text() == "elsewhere\n"
    statuses = [(e["tool"], e["status"]) for e in audit(project) if e["tool"] != "read_file"]
    assert statuses == [
        ("edit_file", "error"),
        ("edit_file", "ok"),
        ("write_file", "ok"),
        ("write_file", "denied"),
    ]


async def test_an_allow_rule_opens_one_file(env: dict[str, str], project: Path) -> None:
    (project / "other.txt").write_text("other\n")
    async with served(env, project, "--allowed-tools", "write_file(notes.txt)") as session:
        await call(session, "read_file", path="notes.txt")
        assert not (await call(session, "write_file", path="notes.txt", content="new\n"))[0]
        await call(session, "read_file", path="other.txt")
        assert (await call(session, "write_file", path="other.txt", content="new\n"))[0]
    assert (project / "notes.txt").read_text() == "new\n"
    assert (project / "other.txt").read_text() == "other\n"


async def test_without_a_sandbox_commands_need_a_rule(env: dict[str, str], project: Path) -> None:
    async with served(env, project, "--allowed-tools", "bash(echo:*)") as session:
        assert await call(session, "bash", command="echo hello") == (
            False,
            "hello\n[exit code 0 · 0.0 s]",
        )
        failed, said = await call(session, "bash", command="touch MARKER")
        assert failed and "no terminal to ask" in said
        failed, said = await call(session, "bash", command="ls", timeout="soon")
        assert failed and "invalid arguments for bash" in said
    assert not (project / "MARKER").exists()


async def test_hooks_judge_served_calls(env: dict[str, str], project: Path) -> None:
    hook = {"matcher": "Bash", "hooks": [{"command": "echo no commands today >&2; exit 2"}]}
    settings = Path(env["HOME"]) / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    async with served(env, project, "--permission-mode", "bypassPermissions") as session:
        failed, said = await call(session, "bash", command="touch MARKER")
    assert failed and "no commands today" in said
    assert not (project / "MARKER").exists()


@needs_bwrap
async def test_commands_run_in_the_sandbox(env: dict[str, str], project: Path) -> None:
    env = {**env, "AGENT_SANDBOX": "workspace-write"}
    async with served(env, project, "--allowed-tools", "bash(mkdir:*)") as session:
        failed, said = await call(session, "bash", command="touch MARKER && echo done")
        assert not failed and "done" in said  # sandboxed: no rule needed
        failed, said = await call(session, "bash", command="touch /etc/agent-serve-test")
        assert failed and "Read-only file system" in said
        failed, said = await call(session, "bash", command="mkdir OUTSIDE", sandbox=False)
        assert failed and "outside the sandbox" in said and "no terminal to ask" in said
    assert (project / "MARKER").exists() and not (project / "OUTSIDE").exists()
