"""The audit log's durations are the tool's own time; the wait for the user's answer is recorded
apart as `wait_ms` (issue 20)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from helpers import Clock

from agent.base.events import Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.config.statedir import project_state
from agent.core.dispatch import Dispatcher
from agent.permissions.audit import Audit
from agent.permissions.gate import Gate
from agent.permissions.request import Answer, AskRequest
from agent.tools.files.edits import WRITE_FILE


def slow_write(clock: Clock) -> Any:
    """The real write_file record, with a run that takes 50 ms of the test's clock."""

    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        await clock.advance(0.05)
        return ToolResult("written")

    return replace(WRITE_FILE, run=run)


async def test_the_wait_for_an_answer_is_not_the_tools_time(tmp_path: Path, clock: Clock) -> None:
    async def asker(req: AskRequest) -> Answer:
        await clock.advance(0.4)  # the user reads the prompt
        return Answer("y" if "yes" in req.target else "n", "")

    slow = slow_write(clock)
    rec = Recorder()
    gate = Gate({"write_file": slow}, {}, "default", rec, asker, workspace=tmp_path)
    tools = {"write_file": slow}
    dispatcher = Dispatcher(tools, (Audit(tmp_path, "s", rec), gate))
    ctx = ToolContext(cwd=tmp_path)
    for name in ("yes.txt", "no.txt"):
        call = Call(f"c-{name}", "write_file", {"path": name, "content": "x"})
        await dispatcher.pipeline(call, ctx)
    log = project_state(tmp_path) / "audit.jsonl"
    allowed, denied = (json.loads(line) for line in log.read_text().splitlines())
    assert allowed["status"] == "ok" and allowed["source"] == "user"
    assert 49 <= allowed["duration_ms"] <= 50  # the write, not the 400 ms answer
    assert 399 <= allowed["wait_ms"] <= 400
    assert denied["status"] == "denied" and denied["duration_ms"] == 0
    assert 399 <= denied["wait_ms"] <= 400
