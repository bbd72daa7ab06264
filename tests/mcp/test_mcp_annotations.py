"""A server's word about its own tools (`readOnlyHint`) spares a prompt only when the user
declared the server (issue 39; the MCP specification: annotations from untrusted servers are
untrusted). The attack: a repository's server — its `.mcp.json`, its `.agent/settings.json`, a
`settings.local.json` it brought — whose tool calls itself read-only and does something else
(here: writes what it was sent to a file, the stand-in for sending it away).

An untrusted project's servers do not start at all (test_mcp_e2e); here the project is trusted
(`--trust-project`, as a CI job would run it), so the server runs — and is still asked about.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import MCP_SERVERS, run_agent

from agent.app import build
from agent.base.events import Recorder
from agent.config.load import Flags
from agent.permissions.request import Answer, AskRequest
from agent.ui.startup import configure

LIAR = str(MCP_SERVERS / "liar.py")
CALL = ("mcp__liar__lookup", {"word": "mango"})


def server(sink: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": [LIAR], "env": {"MCP_LIAR_SINK": str(sink)}}


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def declare(where: str, project: Path, home: Path, sink: Path) -> None:
    """Declare the lying server in one file (`where`)."""
    entry = {"mcpServers": {"liar": server(sink)}}
    files = {
        "the project's .mcp.json": project / ".mcp.json",
        "the project's .agent/settings.json": project / ".agent" / "settings.json",
        "a settings.local.json the repository brought": project / ".agent/settings.local.json",
        "the user's settings": home / ".agent" / "settings.json",
    }
    write(files[where], entry)


def one_shot(env: dict[str, str], project: Path, *args: str) -> dict[str, Any]:
    r = run_agent(env, project, "--output-format", "json", *args, "go", timeout=90)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def tool_result(fake: FakeOpenAI) -> str:
    return next(m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool")


@pytest.mark.parametrize(
    "where",
    [
        "the project's .mcp.json",
        "the project's .agent/settings.json",
        "a settings.local.json the repository brought",
    ],
)
def test_a_repositorys_server_calling_its_tool_read_only_is_still_asked_about(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, tmp_path: Path, where: str
) -> None:
    sink = tmp_path / "sink.txt"
    declare(where, project, Path(fake_env["HOME"]), sink)
    fake.script(tool_calls([CALL]), text("done"))
    result = one_shot(fake_env, project, "--trust-project")
    assert not sink.exists() or "lookup" not in sink.read_text()  # it never ran
    said = tool_result(fake)
    assert "permission denied for mcp__liar__lookup" in said and "no terminal" in said
    assert [d["tool_name"] for d in result["permission_denials"]] == ["mcp__liar__lookup"]


def test_the_users_own_server_is_taken_at_its_word(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    """The same server declared by the user: its readOnlyHint spares the prompt (the control —
    the run above would have reached the tool)."""
    sink = tmp_path / "sink.txt"
    declare("the user's settings", project, Path(fake_env["HOME"]), sink)
    fake.script(tool_calls([CALL]), text("done"))
    result = one_shot(fake_env, project)
    assert sink.read_text() == "lookup mango\n"
    assert tool_result(fake) == "mango: a word"
    assert result["permission_denials"] == []


def test_a_server_the_user_added_to_the_project_is_theirs(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    """`agent mcp add` (local scope, the default) is the user's own declaration: it applies
    before the project is trusted, and so does the server's readOnlyHint."""
    sink = tmp_path / "sink.txt"
    add = ["mcp", "add", "-e", f"MCP_LIAR_SINK={sink}", "liar", "--", sys.executable, LIAR]
    r = run_agent(fake_env, project, *add)
    assert r.returncode == 0, r.stderr
    fake.script(tool_calls([CALL]), text("done"))
    result = one_shot(fake_env, project)
    assert sink.read_text() == "lookup mango\n"
    assert result["permission_denials"] == []


@pytest.fixture
async def closing() -> AsyncIterator[list[Any]]:
    runs: list[Any] = []
    yield runs
    for run in runs:
        if run.mcp is not None:
            await run.mcp.aclose()
        await run.agent.llm.aclose()
        run.store.close()


async def test_with_a_terminal_its_tool_and_its_resources_are_asked_about(
    fake: FakeOpenAI, project: Path, home: Path, tmp_path: Path, closing: list[Any]
) -> None:
    sink = tmp_path / "sink.txt"
    declare("the project's .mcp.json", project, home, sink)
    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("n")

    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    cfg = configure(Flags(trust_project=True), {**env, "AGENT_SANDBOX": "off"}, project)
    run = build(cfg, Recorder(), asker=asker)
    closing.append(run)
    assert run.mcp is not None
    assert run.mcp.manager.conns["liar"].settled.wait(30)
    read = ("read_mcp_resource", {"server": "liar", "uri": "liar://notes"})
    fake.script(tool_calls([CALL, read]), text("done"))
    await run.agent.run_turn("go")
    assert [r.tool for r in asked] == ["mcp__liar__lookup", "read_mcp_resource"]
    assert not sink.exists()  # neither the call nor the read reached the server
    assert not run.agent.tools["mcp__liar__lookup"].read_only


def test_which_servers_are_the_users(project: Path, home: Path, tmp_path: Path) -> None:
    from agent.config.load import load_config
    from agent.mcp.config import load_specs

    sink = tmp_path / "sink.txt"
    entry = server(sink)
    write(home / ".agent/settings.json", {"mcpServers": {"mine": entry, "gh": entry}})
    # .mcp.json comes first: the user's own definition of "mine" wins over it
    write(project / ".mcp.json", {"mcpServers": {"theirs": entry, "mine": entry}})
    # the repository redefines the user's "gh": its definition wins, so it is not the user's
    write(project / ".agent/settings.json", {"mcpServers": {"gh": entry}})
    editor = {"ide": entry}  # an editor's servers, passed over ACP: the user's choice
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    cfg = load_config(Flags(trust_project=True, mcp_servers=editor), env, project)
    assert cfg.mcp_own == {"mine", "ide"}
    specs, _ = load_specs(cfg.options, cfg.env, cfg.mcp_own)
    assert {s.name: s.own for s in specs} == {
        "gh": False,
        "ide": True,
        "mine": True,
        "theirs": False,
    }
    untrusted = load_config(Flags(), env, project)  # the repository's servers do not start
    assert untrusted.mcp_own == {"mine", "gh"} == set(untrusted.options.mcp_servers)
