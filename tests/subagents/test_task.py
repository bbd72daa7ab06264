"""Subagents end to end: the task tool in a real session against the scripted fake."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import error, text, tool_calls
from routed_fake import (
    RoutedFake,
    agent_env,
    close_runs,
    is_child,
    make_run,
    oneshot,
    serve,
    tool_names,
)

from agent.base.events import SubagentProgress, TextDelta, ToolEnd
from agent.base.record import Tool, ToolContext, ToolResult
from agent.config.statedir import project_state
from agent.session.store import load, messages_of
from agent.subagents.records import SubagentError


@pytest.fixture
def routed(request: pytest.FixtureRequest) -> Iterator[RoutedFake]:
    yield from serve(request)


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_runs()


def progress(rec: Any, kind: str | None = None) -> list[SubagentProgress]:
    return [
        e
        for e in rec.events
        if isinstance(e, SubagentProgress) and (kind is None or e.kind == kind)
    ]


async def test_child_runs_its_own_tools_and_the_parent_sees_only_the_report(
    routed: RoutedFake, project: Path
) -> None:
    desc = "CHILD-A: read notes.txt and report the secret word"
    routed.script(tool_calls([("task", {"description": desc})]), text("It is mango."))
    routed.route(
        "CHILD-A",
        tool_calls([("read_file", {"path": "notes.txt"})]),
        text("The secret word is mango (notes.txt:1)."),
    )
    run, rec = make_run(routed, project)
    end = await run.agent.run_turn(run.user_message("what is the secret?"))
    assert end.subtype == "success"
    assert end.text == "It is mango."
    parent = [r for r in routed.requests if not is_child(r)]
    child = [r for r in routed.requests if is_child(r)]
    assert len(parent) == 2
    assert len(child) == 2
    # The parent's history: its own call and the report, nothing of the child's conversation.
    last = parent[1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool"]
    assert last[-1]["content"] == "The secret word is mango (notes.txt:1)."
    calls = [c["function"]["name"] for m in last for c in m.get("tool_calls") or []]
    assert calls == ["task"]
    assert "mango" not in json.dumps(last[:-1])
    assert "You are a subagent" not in json.dumps(parent)
    # The child: its own prompt, a fresh history with the task, its tool ran for real.
    first = child[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert desc in first[1]["content"]
    assert "<env>" in first[1]["content"]
    assert "task" not in tool_names(child[0])
    assert "task_result" not in tool_names(child[0])
    assert "read_file" in tool_names(child[0])
    assert "mango" in child[1]["messages"][-1]["content"]
    # The parent's stream carries the child's calls as progress, never its text.
    assert [e.tool for e in progress(rec, "tool_call")] == ["read_file"]
    assert "".join(e.text for e in rec.events if isinstance(e, TextDelta)) == "It is mango."
    # The session holds the parent's conversation only; the audit log has the child's call.
    stored = messages_of(load(run.store.path).records)
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant"]
    log = project_state(project) / "audit.jsonl"
    audit = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(a["tool"], a["trigger"]) for a in audit] == [
        ("read_file", "subagent t1"),
        ("task", "model"),
    ]


async def test_parallel_reports_in_order_and_a_failure_does_not_sink_the_others(
    routed: RoutedFake, project: Path
) -> None:
    tasks = ["PAR-A: say a", "PAR-B: say b", "PAR-C: say c"]
    routed.script(tool_calls([("task", {"parallel": tasks})]), text("summary"))
    together = threading.Barrier(3, timeout=20)  # passes only if all three ask at once
    routed.route("PAR-A", text("report a", expect=lambda b: together.wait()))
    routed.route("PAR-B", error(400, "the model refused", expect=lambda b: together.wait()))
    routed.route("PAR-C", text("report c", expect=lambda b: together.wait()))
    run, rec = make_run(routed, project)
    end = await run.agent.run_turn("go")
    assert end.subtype == "success"
    result = next(e for e in rec.events if isinstance(e, ToolEnd) and e.name == "task")
    assert not result.is_error
    out = result.output
    assert out.index("report a") < out.index("FAILED") < out.index("report c")
    assert "## 2. task t2: FAILED (error_during_execution)" in out
    assert "the model refused" in out
    assert len(progress(rec, "failed")) == 1
    assert len(progress(rec, "done")) == 2


async def test_background_task_and_task_result(routed: RoutedFake, project: Path) -> None:
    release = threading.Event()
    routed.script(
        tool_calls([("task", {"description": "BG-1: count the files", "background": True})]),
        tool_calls([("task_result", {"id": "t1"})]),
        tool_calls([("task_result", {"id": "t1", "wait": True})], expect=lambda b: release.set()),
        text("the background task says 3"),
    )
    routed.route("BG-1", text("3 files", expect=lambda b: release.wait(20)))
    run, rec = make_run(routed, project)
    end = await run.agent.run_turn("go")
    assert end.subtype == "success"
    outputs = [e.output for e in rec.events if isinstance(e, ToolEnd)]
    assert outputs[0].startswith("Started background task(s) t1.")
    assert outputs[1].startswith("Task t1 is still running")
    assert outputs[2] == "3 files"
    assert len(progress(rec, "background_done")) == 1
    assert "t1" in progress(rec, "background_done")[0].message


async def test_task_result_unknown_id_is_an_error(routed: RoutedFake, project: Path) -> None:
    routed.script(tool_calls([("task_result", {"id": "t9"})]), text("ok"))
    run, rec = make_run(routed, project)
    await run.agent.run_turn("go")
    result = next(e for e in rec.events if isinstance(e, ToolEnd))
    assert result.is_error
    assert "no background task 't9'" in result.output


async def test_depth_limit_default_keeps_task_from_children(
    routed: RoutedFake, project: Path
) -> None:
    agents = project / ".agent" / "agents"
    agents.mkdir(parents=True)
    (agents / "spawner.md").write_text(
        "---\nname: spawner\ndescription: tries to spawn\ntools: [task, read_file]\n---\nSpawn.\n"
    )
    routed.script(
        tool_calls([("task", {"description": "DEPTH-1: go", "agent": "spawner"})]), text("ok")
    )
    routed.route("DEPTH-1", tool_calls([("task", {"description": "deeper"})]), text("cannot"))
    run, _ = make_run(routed, project)
    await run.agent.run_turn("go")
    child = [r for r in routed.requests if is_child(r)]
    assert tool_names(child[0]) == ["read_file"]
    assert "unknown tool 'task'" in child[1]["messages"][-1]["content"]
    runner = run.agent.ctx.subagents
    runner.depth = 1
    with pytest.raises(SubagentError, match="depth limit 1"):
        runner.job("anything")


async def test_depth_two_lets_children_spawn_once(routed: RoutedFake, project: Path) -> None:
    routed.script(tool_calls([("task", {"description": "LEVEL-1: delegate"})]), text("top"))
    routed.route("LEVEL-1", tool_calls([("task", {"description": "LEVEL-2: leaf"})]), text("mid"))
    routed.route("LEVEL-2", text("leaf report"))
    run, rec = make_run(routed, project, settings={"subagents": {"maxDepth": 2}})
    end = await run.agent.run_turn("go")
    assert end.text == "top"
    level1 = [r for r in routed.requests if "LEVEL-1" in json.dumps(r["messages"][:2])]
    level2 = [r for r in routed.requests if "LEVEL-2" in json.dumps(r["messages"][:2])]
    assert "task" in tool_names(level1[0])
    assert "task" not in tool_names(level2[0])
    assert level1[1]["messages"][-1]["content"] == "leaf report"
    assert {e.task_id for e in progress(rec, "done")} == {"t1", "t2"}


async def test_cancelling_the_parent_cancels_the_child(routed: RoutedFake, project: Path) -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def hang(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return ToolResult("never")

    routed.script(tool_calls([("task", {"description": "HANG: wait"})]))
    routed.route("HANG", tool_calls([("hang", {})]))
    run, _ = make_run(routed, project)
    run.agent.tools["hang"] = Tool("hang", "Wait.", {"type": "object"}, hang)
    run.agent.refresh_tools()
    turn = asyncio.ensure_future(run.agent.run_turn("go"))
    await asyncio.wait_for(started.wait(), 20)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert cancelled == [True]
    result, closing = run.agent.messages[-2:]
    assert result["role"] == "tool" and "interrupted" in result["content"]
    assert closing == {"role": "assistant", "content": "[interrupted by the user]"}


async def test_usage_and_cost_roll_up(routed: RoutedFake, project: Path) -> None:
    big = {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}
    routed.script(tool_calls([("task", {"description": "COST: work"})]), text("done"))
    routed.route("COST", text("child report", usage=big))
    run, _ = make_run(routed, project, settings={"priceIn": 1.0, "priceOut": 2.0})
    await run.agent.run_turn("go")
    t = run.agent.totals
    assert t.input_tokens == 10 + 10 + 1000
    assert t.output_tokens == 5 + 5 + 500
    assert t.requests == 3
    assert t.cost_usd == pytest.approx((1020 * 1.0 + 510 * 2.0) / 1e6)
    stored = [r for r in load(run.store.path).records if r.get("t") == "usage"]
    assert sum(r["input"] for r in stored) == 1020  # the session's cost includes the child


async def test_agent_definitions_prompt_tools_and_model(routed: RoutedFake, project: Path) -> None:
    agents = project / ".agent" / "agents"
    agents.mkdir(parents=True)
    (agents / "zeta.md").write_text("---\nname: zeta\ndescription: last one\n---\nZ prompt.\n")
    (agents / "alpha.md").write_text(
        "---\nname: alpha\ndescription: Finds things\ntools:\n  - grep\n  - glob\n"
        "model: tiny-model\n---\nYou are ALPHA-ROLE, a finder.\n"
    )
    routed.script(tool_calls([("task", {"description": "DEF: find", "agent": "alpha"})]), text("k"))
    routed.route("DEF", text("found"))
    run, _ = make_run(routed, project)
    task_tool = run.agent.tools["task"]
    assert task_tool.parameters["properties"]["agent"]["enum"] == ["alpha", "zeta"]
    assert task_tool.description.index("- alpha: Finds things") < task_tool.description.index(
        "- zeta: last one"
    )
    await run.agent.run_turn("go")
    child = next(r for r in routed.requests if is_child(r))
    assert "ALPHA-ROLE" in child["messages"][0]["content"]
    assert tool_names(child) == ["glob", "grep"]
    assert child["model"] == "tiny-model"


async def test_child_calls_pass_the_parents_gate_and_hooks(
    routed: RoutedFake, project: Path
) -> None:
    log = project / "hook.log"
    hook = f"cat >> {log}; echo >> {log}"
    hooks = {"SubagentStop": [{"command": hook}], "PreToolUse": [{"command": hook}]}
    routed.script(tool_calls([("task", {"description": "GATE: write"})]), text("ok"))
    routed.route(
        "GATE", tool_calls([("write_file", {"path": "out.txt", "content": "x"})]), text("denied")
    )
    run, _rec = make_run(routed, project, settings={"hooks": hooks}, mode="plan")
    await run.agent.run_turn("go")
    assert not (project / "out.txt").exists()
    assert [d["tool_name"] for d in run.denials.items] == ["write_file"]
    events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    names = [(e["hook_event_name"], e.get("tool_name")) for e in events]
    assert ("PreToolUse", "write_file") in names
    stop = next(e for e in events if e["hook_event_name"] == "SubagentStop")
    assert stop["agent_id"] == "t1"
    assert stop["last_message"] == "denied"


def script_child_run(routed: RoutedFake, marker: str) -> None:
    routed.script(
        tool_calls([("task", {"description": f"{marker}: read notes.txt"})]), text("ANSWER")
    )
    routed.route(
        marker,
        tool_calls([("read_file", {"path": "notes.txt"})]),
        text("CHILD TEXT", usage={"prompt_tokens": 100, "completion_tokens": 50}),
    )


def test_oneshot_text_shows_child_progress_on_stderr_only(
    routed: RoutedFake, project: Path, tmp_path: Path
) -> None:
    script_child_run(routed, "ONE-TEXT")
    out = oneshot(agent_env(routed, tmp_path / "home"), project, "go")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "ANSWER\n"
    assert "↳ [t1] → read_file notes.txt" in out.stderr
    assert "CHILD TEXT" not in out.stderr


def test_oneshot_json_stays_valid_with_subagents(
    routed: RoutedFake, project: Path, tmp_path: Path
) -> None:
    script_child_run(routed, "ONE-JSON")
    out = oneshot(agent_env(routed, tmp_path / "home"), project, "--output-format", "json", "go")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["type"] == "system"
    assert "task" in lines[0]["tools"]
    assert "todo" in lines[0]["tools"]
    assert lines[-1]["type"] == "result"
    assert lines[-1]["result"] == "ANSWER"
    assert lines[-1]["usage"]["input_tokens"] == 2 * 10 + 10 + 100  # parent 2, child 2
    texts = "".join(x["text"] for x in lines if x["type"] == "text")
    assert texts == "ANSWER"
    sub = [x for x in lines if x["type"] == "subagent"]
    assert [x["event"] for x in sub] == ["started", "tool_call", "done"]
    assert sub[1]["tool"] == "read_file"
    calls = [x["tool"] for x in lines if x["type"] == "tool_call"]
    assert calls == ["task"]


async def test_claude_code_tool_names_in_definitions_are_mapped(
    routed: RoutedFake, project: Path
) -> None:
    agents = project / ".agent" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(
        "---\nname: scout\ndescription: reads\ntools: Read, Grep, Glob, Bash, KillShell\n"
        "---\nYou are SCOUT-ROLE.\n"
    )
    (agents / "fixer.md").write_text(
        "---\nname: fixer\ndescription: edits\ntools: [Write, Edit, MultiEdit, WebFetch, "
        "WebSearch, Task, TodoWrite, BashOutput]\n---\nFix.\n"
    )
    (agents / "ghost.md").write_text(
        "---\nname: ghost\ndescription: nothing\ntools: Telepathy, Bash(git:*)\n---\nBoo.\n"
    )
    routed.script(
        tool_calls(
            [
                ("task", {"description": "SCOUT: look", "agent": "scout"}),
                ("task", {"description": "GHOST: haunt", "agent": "ghost"}),
            ]
        ),
        text("ok"),
    )
    routed.route("SCOUT", tool_calls([("read_file", {"path": "notes.txt"})]), text("mango"))
    routed.route("GHOST", text("boo"))
    run, rec = make_run(routed, project)
    runner = run.agent.ctx.subagents
    assert runner.defs["fixer"].tools == (
        "write_file", "edit_file", "web_fetch", "web_search", "task", "todo", "bash_output",
    )  # fmt: skip
    warnings = "\n".join(runner.warnings)
    assert "scout.md: unknown tool(s) ignored: KillShell" in warnings
    assert "fixer.md" not in warnings
    assert "ghost.md: none of its tools (Telepathy, Bash(git:*)) is a known tool" in warnings
    assert "runs with no tools at all; use names like read_file" in warnings
    await run.agent.run_turn("go")
    scout = [r for r in routed.requests if "SCOUT" in json.dumps(r["messages"][:2])]
    assert tool_names(scout[0]) == ["read_file", "glob", "grep", "bash"]
    assert "the secret word is mango" in scout[1]["messages"][-1]["content"]
    ghost = next(r for r in routed.requests if "GHOST" in json.dumps(r["messages"][:2]))
    assert "tools" not in ghost or not ghost["tools"]  # none, never the default set
    said = [e.message for e in progress(rec, "warning")]
    assert any("[t1 scout] warning:" in s and "KillShell" in s for s in said)
    assert any("ghost.md: none of its tools" in s for s in said)


async def test_a_long_report_is_saved_and_the_child_dedups_its_own_reads(
    routed: RoutedFake, project: Path
) -> None:
    """Issue 22: a subagent's report over the threshold reaches the parent as head, tail and
    the file holding it; the child has its own read log (the parent's reads are not its)."""
    desc = "CHILD-L: list everything"
    report = "".join(f"item {i:05d}: " + "detail " * 8 + "\n" for i in range(2000))
    routed.script(
        tool_calls([("read_file", {"path": "notes.txt"})], ids=["p1"]),
        tool_calls([("task", {"description": desc})], ids=["p2"]),
        text("done"),
    )
    routed.route(
        "CHILD-L",
        tool_calls([("read_file", {"path": "notes.txt"})], ids=["k1"]),
        tool_calls([("read_file", {"path": "notes.txt"})], ids=["k2"]),
        text(report),
    )
    run, _ = make_run(routed, project)
    await run.turn("go")
    child = [r for r in routed.requests if is_child(r)]
    child_results = {
        m["tool_call_id"]: m["content"] for m in child[-1]["messages"] if m["role"] == "tool"
    }
    assert "mango" in child_results["k1"]  # the parent read it, the child had not
    assert child_results["k2"].startswith("[unchanged since your read at turn 1 (call k1)")
    parent = [r for r in routed.requests if not is_child(r)]
    got = parent[-1]["messages"][-1]["content"]
    assert got.startswith("item 00000:") and "item 01999:" in got and len(got) < 6_000
    where = got.split("is saved in ", 1)[1].split(" — ", 1)[0]
    assert Path(where).parent == run.store.blob_dir
