"""The todo list: dependency rules, the tool, JSON output, session save/resume, /todo, /clear."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.base.events import TodoChanged
from agent.base.record import ToolContext
from agent.session.store import load
from agent.tools.tasks.todo import TODO
from agent.tools.tasks.todo_list import TodoError, TodoList, last_saved


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
    await close_runs()


def plan() -> TodoList:
    t = TodoList()
    t.add("design")  # 1
    t.add("build", ["1"])  # 2
    t.add("test", ["2"])  # 3
    return t


def test_a_task_cannot_start_while_a_blocker_is_open() -> None:
    t = plan()
    blocked = r"cannot start task 2 \('build'\): blocked by 1 \('design'"
    with pytest.raises(TodoError, match=blocked):
        t.update("2", status="in_progress")
    with pytest.raises(TodoError, match="cannot finish task 3"):
        t.update("3", status="done")
    t.update("1", status="in_progress")
    t.update("1", status="done")
    t.update("2", status="in_progress")
    assert t.get("2").status == "in_progress"
    assert "(blocked by 2)" in t.render()


def test_a_finished_task_others_built_on_cannot_silently_reopen() -> None:
    t = plan()
    t.update("1", status="done")
    t.update("2", status="in_progress")
    with pytest.raises(TodoError, match=r"cannot reopen task 1 .*2 \('build', in_progress\)"):
        t.update("1", status="pending")
    t.update("2", status="pending")
    t.update("1", status="pending")  # nothing started on it any more
    assert t.get("1").status == "pending"


def test_blocked_error_names_every_open_blocker() -> None:
    t = TodoList()
    t.add("a")
    t.add("b")
    t.add("c", ["1", "2"])
    t.update("1", status="done")
    with pytest.raises(TodoError) as e:
        t.update("3", status="in_progress")
    assert "blocked by 2 ('b', pending)" in str(e.value)
    assert "1 (" not in str(e.value)


def test_cycles_are_refused_and_nothing_changes() -> None:
    t = plan()
    with pytest.raises(TodoError, match=r"cycle \(1 → 3 → 2 → 1\)"):
        t.update("1", blocked_by=["3"])
    assert t.get("1").blocked_by == []
    with pytest.raises(TodoError, match=r"cycle \(2 → 2\)"):
        t.update("2", blocked_by=["1", "2"])
    assert t.get("2").blocked_by == ["1"]
    with pytest.raises(TodoError, match="unknown task"):
        t.add("x", ["9"])
    assert len(t) == 3


def test_update_is_all_or_nothing() -> None:
    t = plan()
    with pytest.raises(TodoError):
        t.update("3", text="renamed", status="in_progress")
    assert t.get("3").text == "test"
    assert t.get("3").status == "pending"


def test_a_started_task_cannot_gain_an_open_blocker() -> None:
    t = TodoList()
    t.add("a")
    t.add("b", status="in_progress")
    with pytest.raises(TodoError, match="cannot start task 2"):
        t.update("2", blocked_by=["1"])
    assert t.get("2").blocked_by == []


def test_reverse_links_and_deletion_stay_consistent() -> None:
    t = plan()
    t.add("docs", ["1"])  # 4
    snap = {i["id"]: i for i in t.snapshot()}
    assert snap["1"]["blocks"] == ["2", "4"]
    assert snap["2"]["blocks"] == ["3"]
    freed = t.delete("1")
    assert freed == ["2", "4"]
    snap = {i["id"]: i for i in t.snapshot()}
    assert snap["2"]["blocked_by"] == []
    assert snap["4"]["blocked_by"] == []
    t.update("2", status="in_progress")  # no longer blocked
    with pytest.raises(TodoError, match="no task '1'"):
        t.get("1")
    assert t.add("new").id == "5"  # ids are never reused


def test_snapshot_round_trip() -> None:
    t = plan()
    t.update("1", status="done")
    copy = TodoList()
    copy.load(t.snapshot())
    assert copy.snapshot() == t.snapshot()
    assert copy.add("more").id == "4"


async def test_tool_actions_and_errors(tmp_path: Path) -> None:
    changes: list[Any] = []
    ctx = ToolContext(cwd=tmp_path, todo=TodoList(changes.append))
    r = await TODO.run({"action": "add", "text": "write code"}, ctx)
    assert r.output.startswith("Added task 1.\n[ ] 1. write code")
    r = await TODO.run({"action": "add", "text": "ship", "blocked_by": [1]}, ctx)
    assert "Added task 2." in r.output
    r = await TODO.run({"action": "update", "id": 2, "status": "in_progress"}, ctx)
    assert r.is_error
    assert "blocked by 1" in r.output
    assert "can_retry: true" in r.output
    r = await TODO.run({"action": "update"}, ctx)
    assert r.is_error
    r = await TODO.run({"action": "delete", "id": "1"}, ctx)
    assert "It no longer blocks 2." in r.output
    r = await TODO.run({"action": "list"}, ctx)
    assert r.output == "Tasks:\n[ ] 2. ship\n0/1 done"
    assert len(changes) == 3  # add, add, delete: failed changes announce nothing


def script_todo_turn(fake: FakeOpenAI) -> None:
    fake.script(
        tool_calls([("todo", {"action": "add", "text": "read"})]),
        tool_calls([("todo", {"action": "add", "text": "fix", "blocked_by": ["1"]})]),
        tool_calls([("todo", {"action": "update", "id": "1", "status": "done"})]),
        text("planned"),
    )


async def test_saved_in_the_session_and_restored_on_resume(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    script_todo_turn(fake)
    run, rec = make_run(fake, tmp_path, mode="plan")  # planning is allowed in plan mode
    await run.agent.run_turn("plan it")
    assert not run.denials.items
    changes = [e for e in rec.events if isinstance(e, TodoChanged)]
    assert len(changes) == 3
    assert changes[-1].items[0]["status"] == "done"
    saved = last_saved(load(run.store.path).records)
    assert saved == changes[-1].items
    session = run.session_id
    run.store.close()
    again, _ = make_run(fake, tmp_path, resume_id=session)
    todo = again.agent.ctx.todo
    assert todo.snapshot() == saved
    assert todo.add("next").id == "3"


class Console:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, text: Any = "", **kw: Any) -> None:
        self.lines.append(str(text))


async def test_todo_and_clear_commands(fake: FakeOpenAI, tmp_path: Path) -> None:
    from agent.commands.registry import COMMANDS, Ctx, dispatch, load_modules

    script_todo_turn(fake)
    run, _ = make_run(fake, tmp_path)
    await run.agent.run_turn("plan it")
    load_modules()
    console = Console()

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    ctx = Ctx(run, console, turn, commands=dict(COMMANDS))
    await dispatch(ctx, "/todo")
    assert console.lines[-1] == "[x] 1. read\n[ ] 2. fix\n1/2 done"
    old = run.store.path
    await dispatch(ctx, "/clear")
    await dispatch(ctx, "/todo")
    assert console.lines[-1] == "No tasks."
    assert not last_saved(load(run.store.path).records)  # the new conversation has none
    assert last_saved(load(old).records)  # the earlier one, resumable, keeps its list


def test_json_output_has_todo_lines(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    script_todo_turn(fake)
    out = subprocess.run(
        [sys.executable, "-m", "agent", "--output-format", "json", "plan"],
        env=fake_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    todos = [x for x in lines if x["type"] == "todo"]
    assert len(todos) == 3
    assert todos[-1]["items"] == [
        {"id": "1", "text": "read", "status": "done", "blocked_by": [], "blocks": ["2"]},
        {"id": "2", "text": "fix", "status": "pending", "blocked_by": ["1"], "blocks": []},
    ]
    assert lines[-1]["type"] == "result"
