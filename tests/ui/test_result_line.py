"""The one-line summary of a finished call, in the plain and the full-screen terminal: the
tool's own summary when it gave one (a timeout says so), else the whole error message on one
line — never just its first line, which can stop mid-sentence."""

from __future__ import annotations

from pathlib import Path

from helpers import OUTPUT_READ

from agent.base.record import ToolContext
from agent.tools.search import grep as search
from agent.tools.shell import bash as shell
from agent.ui.render import result_line


async def test_a_multi_line_error_is_squeezed_onto_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    result = await search.GREP.run({"pattern": "(unclosed"}, ToolContext(cwd=tmp_path))
    assert result.is_error and "\n" in result.output.split("Hint:")[0].strip()
    line = result_line("grep", {}, result.output, True, result.display or "")
    assert line.startswith("grep: ripgrep failed: regex parse error: ")
    assert line.endswith("^ error: unclosed group")
    assert "\n" not in line and "Hint" not in line


async def test_failed_and_timed_out_commands_say_so(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    failed = await shell.BASH.run({"command": "echo hi; false"}, ctx)
    assert failed.is_error
    assert result_line("bash", {}, failed.output, True, failed.display or "") == (
        "bash echo hi; false · exit 1"
    )
    slow = await shell.BASH.run({"command": "echo hi; sleep 5", "timeout": 1}, ctx)
    line = result_line("bash", {}, slow.output, True, slow.display or "")
    assert line == "bash echo hi; sleep 5 · timed out after 1 s · exit 124"


def test_plain_results_and_long_errors() -> None:
    assert result_line("glob", {"pattern": "*.py"}, "x", False, "") == "glob *.py"
    long = "Error: " + "word " * 100 + "\nHint: h\ncan_retry: true"
    line = result_line("web_fetch", {}, long, True, "")
    assert len(line) <= 172 and line.endswith("…")
    assert result_line("x", {}, "", True, "") == "x: error"


async def test_a_tool_that_does_not_cap_itself_gets_the_cap_and_a_note(tmp_path: Path) -> None:
    from agent.base.record import RESULT_CAP, Call, Tool, ToolResult
    from agent.core.dispatch import Dispatcher

    async def chatty(args: dict[str, object], ctx: ToolContext) -> ToolResult:
        return ToolResult("word " * 10_000)

    tool = Tool("chatty", "", {"type": "object"}, chatty)
    result = await Dispatcher({"chatty": tool}).execute(
        Call("1", "chatty", {}), ToolContext(tmp_path)
    )
    assert len(result.output) <= RESULT_CAP
    assert "characters cut ... chatty gave more than fits in a result" in result.output


async def test_a_nested_calls_partial_output_stays_with_that_call(tmp_path: Path) -> None:
    """A subagent's bash stopped by Ctrl-C keeps its output in the subagent; the parent's
    `task` call gets the plain interrupted result, not the child's bash output."""
    import asyncio
    import contextlib

    from agent.base.events import Recorder, ToolEnd
    from agent.base.record import Call, Tool, ToolResult
    from agent.core.dispatch import Dispatcher

    inner_done: dict[str, ToolResult] = {}
    ctx = ToolContext(tmp_path)

    async def task(args: dict[str, object], c: ToolContext) -> ToolResult:
        inner = Dispatcher({"bash": shell.BASH})
        command = f"echo CHILD-PRINTED; {OUTPUT_READ}; : > printed; sleep 30"
        call = Call("in1", "bash", {"command": command})
        await inner.run_all([call], c, Recorder(), inner_done)
        return ToolResult("never")

    outer_done: dict[str, ToolResult] = {}
    rec = Recorder()
    outer = Dispatcher({"task": Tool("task", "", {"type": "object"}, task)})
    job = asyncio.ensure_future(outer.run_all([Call("out1", "task", {})], ctx, rec, outer_done))
    for _ in range(600):  # until the tool has read what the child printed
        if (tmp_path / "printed").exists():
            break
        await asyncio.sleep(0.05)
    job.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await job
    assert "CHILD-PRINTED" in inner_done["in1"].output  # the child's call kept its output
    assert "out1" not in outer_done  # the parent's call is answered as plainly interrupted
    assert not [e for e in rec.events if isinstance(e, ToolEnd)]
