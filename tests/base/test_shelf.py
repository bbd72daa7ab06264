"""agent.base.shelf: owners decide which tools wait, loads append, and what a resumed
conversation had loaded comes back, MCP tools once their server connects."""

from __future__ import annotations

from typing import Any

from agent.base.messages import Message
from agent.base.record import Tool, ToolContext, ToolResult
from agent.base.shelf import Shelf, loaded_by, loaded_text, offered


async def _ok(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("ok")


def tool(name: str, **how: Any) -> Tool:
    return Tool(name, name, {"type": "object", "properties": {}}, _ok, **how)


def registry() -> dict[str, Tool]:
    tools = [
        tool("read_file"),
        tool("web_search", rare=True),
        tool("exit_plan_mode", rare=True, wanted_in="plan"),
        tool("task"),
        tool("task_result", rare=True, serves="task"),
        tool("finder", finds_deferred=True),
    ]
    return {t.name: t for t in tools}


def sent(tools: dict[str, Tool], shelf: Shelf | None) -> list[str]:
    return [t.name for t in offered(tools, shelf)]


def test_rare_tools_wait_and_load_by_mode_and_by_the_tool_they_serve() -> None:
    tools = registry()
    shelf = Shelf.of(tools, [], "default")
    assert shelf is not None and sent(tools, shelf) == ["read_file", "task", "finder"]
    shelf.enter("acceptEdits")
    shelf.called(["read_file"])
    assert shelf.loaded == []
    shelf.enter("plan")
    shelf.called(["task"])
    assert sent(tools, shelf)[3:] == ["exit_plan_mode", "task_result"]
    assert Shelf.of(tools, [], "plan").loaded == ["exit_plan_mode"]  # started in plan mode
    del tools["finder"]
    assert Shelf.of(tools, [], "default") is None  # nothing could load them: all are sent


def test_owners_decide_apart_and_a_server_going_keeps_the_other_loads() -> None:
    tools = {**registry(), "mcp__s__a": tool("mcp__s__a"), "mcp__s__b": tool("mcp__s__b")}
    shelf = Shelf.of(tools, [], "default")
    assert shelf is not None
    shelf.defer({"mcp__s__a": "s", "mcp__s__b": "s"})
    shelf.load(["web_search", "mcp__s__a"])
    shelf.defer({})  # the server's tools are sent again (its list shrank)
    assert shelf.loaded == ["web_search"] and set(shelf.deferred) == {
        "web_search", "exit_plan_mode", "task_result"
    }  # fmt: skip
    child = shelf.child({n: t for n, t in tools.items() if n != "task_result"})
    assert child.loaded == ["web_search"] and "task_result" not in child.deferred
    child.load(["exit_plan_mode"])
    assert shelf.loaded == ["web_search"]  # the child's load is its own


def test_a_resumed_conversation_loads_what_it_used_even_before_its_server_is_back() -> None:
    tools = {**registry(), "mcp__s__a": tool("mcp__s__a"), "mcp__s__b": tool("mcp__s__b")}
    result = loaded_text([{"name": "mcp__s__b", "description": "", "parameters": {}}])
    lookalike = 'Loaded 1 tool(s)\n[{"name": "read_file"}]'  # task's result, not the finder's
    history: list[Message] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [_call("1", "finder"), _call("2", "task")],
        },
        {"role": "tool", "tool_call_id": "1", "content": result},
        {"role": "tool", "tool_call_id": "2", "content": lookalike},
        {"role": "assistant", "content": "", "tool_calls": [_call("3", "mcp__s__a")]},
        {"role": "tool", "tool_call_id": "3", "content": "a ran"},
    ]
    shelf = Shelf.of(tools, history, "default")
    assert shelf is not None and shelf.loaded == ["task_result"]  # task was called
    shelf.defer({"mcp__s__a": "s", "mcp__s__b": "s"})  # the server connected
    assert shelf.loaded == ["task_result", "mcp__s__b", "mcp__s__a"]


def test_a_finder_result_is_read_back_and_anything_else_is_not() -> None:
    assert loaded_by(loaded_text([{"name": "x"}, {"name": "y"}])) == ["x", "y"]
    for other in ("", "Loaded", "Loaded 2\nnot json", 'Loaded 1\n{"name": "x"}', "Error: x"):
        assert loaded_by(other) == []


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
