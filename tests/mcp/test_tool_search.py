"""Tool search (issue 46): MCP tools past a size wait behind `tool_search`; a search loads them,
appended to the tools list (its prefix stays byte-identical); `tools.search: off` sends all."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import MCP_SERVERS, run_agent, user_settings
from routed_fake import RoutedFake, is_child, serve, tool_names

from agent.app import build
from agent.base.events import Recorder
from agent.base.record import Tool, ToolContext, ToolResult
from agent.base.shelf import Shelf, offered
from agent.config.load import Flags
from agent.config.view import Settings
from agent.core.report import context_report
from agent.mcp.catalog import untitled
from agent.mcp.config import load_specs
from agent.mcp.defer import MAX_TOOLS, Entry, deferred
from agent.tools.discover.search import TOOL_SEARCH, rank
from agent.ui.startup import configure
from agent.workflows.setup import stop_background

MANY = str(MCP_SERVERS / "many.py")
SERVERS = {"a": "alpha", "b": "beta", "c": "gamma"}


def three_servers(env: dict[str, str], **tools: Any) -> None:
    servers = {
        s: {"command": sys.executable, "args": [MANY, "40", topic]} for s, topic in SERVERS.items()
    }
    user_settings(env, {"mcpServers": servers, **({"tools": tools} if tools else {})})


def names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_three_servers_wait_behind_tool_search(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    three_servers(fake_env)
    fake.script(
        tool_calls([("tool_search", {"query": "beta_archive_7", "limit": 1})]),
        tool_calls([("mcp__b__beta_archive_7", {"target": "x1"})]),
        text("archived"),
    )
    args = ("--output-format", "json", "--allowed-tools", "mcp__b", "archive x1")
    r = run_agent(fake_env, project, *args, timeout=90)
    assert r.returncode == 0, r.stderr
    init = json.loads(r.stdout.splitlines()[0])  # every tool the model may call
    assert "tool_search" in init["tools"]
    assert len([n for n in init["tools"] if n.startswith("mcp__")]) == 120
    first, second, third = fake.requests[:3]
    assert "tool_search" in names(first)
    assert not [n for n in names(first) if n.startswith("mcp__")]  # none of the 120 schemas
    found = next(m for m in second["messages"] if m["role"] == "tool")["content"]
    assert '"name":"mcp__b__beta_archive_7"' in found and '"target"' in found
    assert '"title"' not in found  # pydantic's restated names are not sent (catalog.untitled)
    # the loaded schema is appended: the earlier list is an unchanged prefix, byte for byte
    assert second["tools"][: len(first["tools"])] == first["tools"]
    assert names(second) == [*names(first), "mcp__b__beta_archive_7"]
    assert third["tools"] == second["tools"]
    ran = [m for m in third["messages"] if m["role"] == "tool"][-1]["content"]
    assert "beta_archive_7 ran" in ran
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["tool_search"]["loaded"] == 1
    assert result["tool_search"]["deferred"] == 119 + 4  # and the rare built-ins
    assert 0 < result["tool_search"]["loaded_tokens"] < result["tool_search"]["deferred_tokens"]


def test_off_sends_every_schema(fake: FakeOpenAI, fake_env: dict[str, str], project: Path) -> None:
    three_servers(fake_env, search="off")
    fake.script(text("hi"))
    r = run_agent(fake_env, project, "--output-format", "json", "hello", timeout=90)
    assert r.returncode == 0, r.stderr
    sent = names(fake.requests[0])
    assert "tool_search" not in sent
    assert len([n for n in sent if n.startswith("mcp__")]) == 120
    assert "tool_search" not in json.loads(r.stdout.splitlines()[-1])
    assert json.loads(r.stdout.splitlines()[0])["tools"] == sent  # as before tool search


async def _ok(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("ok")


def tool(name: str, about: str = "", params: tuple[str, ...] = ()) -> Tool:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in params}}
    return Tool(name, about, schema, _ok)


def registry() -> dict[str, Tool]:
    tools = {t.name: t for t in (tool("read_file"), TOOL_SEARCH)}
    tools["mcp__gh__list_issues"] = tool("mcp__gh__list_issues", "List issues", ("repo",))
    tools["mcp__gh__issue"] = tool("mcp__gh__issue", "Read one issue of a repository", ("n",))
    tools["mcp__db__query"] = tool("mcp__db__query", "Run SQL", ("sql", "repo"))
    return tools


def test_offered_appends_loads_and_children_keep_their_own() -> None:
    tools = registry()
    mcp = [n for n in tools if n.startswith("mcp__")]
    assert [t.name for t in offered(tools, None)] == ["read_file", *mcp]  # nothing deferred
    shelf = Shelf(tools)
    shelf.defer({n: n.split("__")[1] for n in mcp})
    assert [t.name for t in offered(tools, shelf)] == ["read_file", "tool_search"]
    child = shelf.child(tools)
    assert shelf.load(["mcp__db__query", "mcp__gh__issue"]) == ["mcp__db__query", "mcp__gh__issue"]
    assert [t.name for t in offered(tools, shelf)][2:] == ["mcp__db__query", "mcp__gh__issue"]
    assert child.loaded == [] and shelf.waiting() == ["mcp__gh__list_issues"]
    without = {n: t for n, t in tools.items() if n != "tool_search"}  # a child with no finder
    assert offered(without, shelf.child(without)) == list(without.values())  # gets them all
    loaded, waiting = shelf.tokens()
    assert loaded > waiting > 0


def test_rank_exact_name_wins_then_words() -> None:
    shelf = Shelf(registry())
    shelf.defer({n: "s" for n in shelf.tools if n.startswith("mcp__")})
    assert rank(shelf, "issue")[0] == "mcp__gh__issue"  # the server's own name, exactly
    assert rank(shelf, "list issues")[0] == "mcp__gh__list_issues"
    assert rank(shelf, "repo")[:2] == ["mcp__gh__list_issues", "mcp__db__query"]  # parameters
    assert rank(shelf, "nothing like it") == []


async def test_tool_search_lists_by_server_and_loads(tmp_path: Path) -> None:
    shelf = Shelf(registry())
    shelf.defer({n: n.split("__")[1] for n in shelf.tools if n.startswith("mcp__")})
    ctx = ToolContext(tmp_path, shelf=shelf)
    listing = await TOOL_SEARCH.run({}, ctx)
    assert "gh (2): mcp__gh__list_issues, mcp__gh__issue" in listing.output
    assert "db (1): mcp__db__query" in listing.output
    found = await TOOL_SEARCH.run({"query": "sql", "limit": 3}, ctx)
    assert '"name":"mcp__db__query"' in found.output and shelf.loaded == ["mcp__db__query"]
    none = await TOOL_SEARCH.run({"query": "x"}, ToolContext(tmp_path))
    assert none.is_error


def test_deferral_decision() -> None:
    small = [Entry(f"mcp__s__t{i}", "s", tool(f"t{i}"), None) for i in range(MAX_TOOLS)]
    assert deferred("auto", 128_000, small) == {}
    one_more = Entry("mcp__s__x", "s", tool("x"), None)
    assert len(deferred("auto", 128_000, [*small, one_more])) == MAX_TOOLS + 1
    assert len(deferred("auto", 100, small)) == MAX_TOOLS  # over 10 % of a tiny window
    assert len(deferred("on", 128_000, small)) == MAX_TOOLS
    assert deferred("off", 100, small) == {}
    pinned = [Entry("mcp__p__a", "p", tool("a"), True), Entry("mcp__q__b", "q", tool("b"), False)]
    assert deferred("auto", 128_000, pinned) == {"mcp__p__a": "p"}
    assert deferred("on", 128_000, pinned) == {"mcp__p__a": "p"}


def test_settings_and_defer_tools() -> None:
    assert Settings({}).tool_search == "auto"
    assert Settings({"tools": {"search": "off"}}).tool_search == "off"
    raw = {"mcpServers": {"x": {"command": "x", "deferTools": True}, "y": {"command": "y"}}}
    specs, _ = load_specs(Settings(raw), {})
    assert [(s.name, s.defer_tools) for s in specs] == [("x", True), ("y", None)]
    _, bad = load_specs(Settings({"mcpServers": {"z": {"command": "z", "deferTools": "yes"}}}), {})
    assert "deferTools" in str(bad)


@pytest.fixture
def routed(request: pytest.FixtureRequest) -> Iterator[RoutedFake]:
    yield from serve(request)


async def test_a_subagents_loads_stay_in_it(
    routed: RoutedFake, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    three_servers({"HOME": str(tmp_path / "home")})  # the user's own: a project's needs trust
    routed.script(
        tool_calls([("mcp__a__alpha_list_0", {"target": "d"})]),  # deferred, called anyway: runs
        tool_calls([("task", {"description": "CHILD-S: sync t"})]),
        text("done"),
    )
    routed.route(
        "CHILD-S",
        tool_calls([("tool_search", {"query": "gamma_sync_6", "limit": 1})]),
        tool_calls([("mcp__c__gamma_sync_6", {"target": "t"})]),
        text("synced"),
    )
    env = {"AGENT_BASE_URL": routed.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    flags = Flags(trust_project=True, permission_mode="bypassPermissions")
    run = build(configure(flags, {**env, "AGENT_SANDBOX": "off"}, project), Recorder())
    try:
        assert run.mcp is not None
        await asyncio.to_thread(run.mcp.wait, 60)
        end = await run.agent.run_turn(run.user_message("go"))
        assert end.subtype == "success", end
        child = [r for r in routed.requests if is_child(r)]
        parent = [r for r in routed.requests if not is_child(r)]
        assert tool_names(child[1]) == [*tool_names(child[0]), "mcp__c__gamma_sync_6"]
        assert "gamma_sync_6 ran" in child[2]["messages"][-1]["content"]
        assert "alpha_list_0 ran" in parent[1]["messages"][-1]["content"]
        # the child's load is its own; task_result waited until task was called
        assert tool_names(parent[2]) == [*tool_names(parent[0]), "task_result"]
        assert run.agent.shelf is not None and run.agent.shelf.loaded == ["task_result"]
        shown = context_report(run.agent)  # /context: loaded versus deferred schemas
        assert "1 loaded on demand (" in shown and ", 123 deferred (" in shown  # 120 + 3 rare
    finally:
        await stop_background(run.agent)
        await run.agent.llm.aclose()
        run.store.close()
        if run.mcp is not None:
            await run.mcp.aclose()


def test_titles_that_only_restate_a_name_are_not_sent() -> None:
    """pydantic's titles ("Target" on `target`, "toolArguments" on the whole) cost tokens in
    every request and say nothing; a title that says more stays."""
    listed = {
        "title": "toolArguments",
        "type": "object",
        "properties": {
            "target": {"title": "Target", "type": "string"},
            "repo_owner": {"title": "Repo Owner", "type": "string"},
            "n": {"title": "Issue number", "type": "integer"},
            "to": {"title": "To", "type": "object", "properties": {"zip": {"title": "Zip"}}},
        },
    }
    assert untitled(listed) == {
        "type": "object",
        "properties": {
            "target": {"type": "string"},
            "repo_owner": {"type": "string"},
            "n": {"title": "Issue number", "type": "integer"},
            "to": {"type": "object", "properties": {"zip": {}}},
        },
    }
    assert untitled({"title": "Search the code", "type": "object"})["title"] == "Search the code"


def test_on_and_each_servers_defer_tools(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    def sent_with(search: str, x: dict[str, Any], y: dict[str, Any]) -> list[str]:
        servers = {
            "x": {"command": sys.executable, "args": [MANY, "3", "alpha"], **x},
            "y": {"command": sys.executable, "args": [MANY, "3", "beta"], **y},
        }
        user_settings(fake_env, {"mcpServers": servers, "tools": {"search": search}})
        fake.script(text("hi"))
        r = run_agent(fake_env, project, "hello", timeout=90)
        assert r.returncode == 0, r.stderr
        return [n for n in names(fake.requests[-1]) if n.startswith("mcp__")]

    # auto, small servers: sent, but for the one that always defers
    assert sent_with("auto", {"deferTools": True}, {}) == [f"mcp__y__beta_{v}" for v in B]
    # on: every server defers, but for the one that never does
    assert sent_with("on", {}, {"deferTools": False}) == [f"mcp__y__beta_{v}" for v in B]
    assert sent_with("on", {}, {}) == []


B = ("list_0", "get_1", "create_2")
