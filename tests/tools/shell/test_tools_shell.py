"""bash and bash_output with real subprocesses: exit codes, timeouts that leave grandchildren
behind, pipes held open, huge and non-UTF-8 output, background runs, cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from pathlib import Path

import pytest
from helpers import holds

from agent.base.record import RESULT_CAP, ToolContext, ToolResult
from agent.tools.shell import background as shell_bg
from agent.tools.shell import bash as shell


def pids_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def gone(marker: str, within: float = 20.0) -> bool:
    """Whether every process with `marker` ends within `within` seconds (they sleep for 100 s
    and more: gone this soon, they were killed)."""
    return await holds(lambda: not pids_with(marker), within)


async def sleeping(seconds: str, count: int, within: float = 30.0) -> bool:
    """Whether `count` processes `sleep <seconds>` run within `within` seconds (a busy machine
    starts them late)."""
    argv = f"sleep\0{seconds}\0".encode()

    def sleepers() -> int:
        return sum(1 for pid in pids_with(seconds) if _cmdline(pid) == argv)

    return await holds(lambda: sleepers() >= count, within)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def kill_all(marker: str) -> None:
    for pid in pids_with(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def bash(ctx: ToolContext, command: str, **kw: object) -> ToolResult:
    return await shell.BASH.run({"command": command, **kw}, ctx)


async def test_stdout_stderr_exit_code(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo out; echo err >&2; exit 3")
    assert result.output.startswith("out\n[stderr]\nerr\n[exit code 3 · ")
    assert result.is_error  # a failed command; its output and exit code are all there
    assert result.display is not None
    assert result.display == "bash echo out; echo err >&2; exit 3 · exit 3"


async def test_cwd_env_and_no_output(ctx: ToolContext, tmp_path: Path) -> None:
    result = await bash(ctx, "pwd; echo $PYTHONIOENCODING")
    assert result.output.splitlines()[:2] == [str(tmp_path), "utf-8"]
    quiet = await bash(ctx, "true")
    assert quiet.output.startswith("(no output)\n[exit code 0")
    assert (await bash(ctx, "   ")).is_error
    assert (await bash(ctx, "true", timeout=-1)).is_error


async def test_timeout_kills_the_group_with_grandchildren(ctx: ToolContext) -> None:
    t0 = time.monotonic()
    result = await bash(ctx, "echo before; sleep 101.5 & sleep 101.5; echo never", timeout=1)
    assert time.monotonic() - t0 < 45  # not the 101.5 s of the sleeps: they were not waited for
    assert result.is_error
    assert "before" in result.output
    assert "never" not in result.output
    assert "timed out after 1 s — exit 124" in result.output
    assert "Do not retry blindly" in result.output
    assert result.display is not None
    assert result.display.endswith(" · timed out after 1 s · exit 124")
    assert await gone("101.5")


async def test_timeout_escalates_to_sigkill(ctx: ToolContext) -> None:
    t0 = time.monotonic()
    result = await bash(ctx, "trap '' TERM; sleep 102.5 & trap '' TERM; sleep 102.5", timeout=0.5)
    assert time.monotonic() - t0 < 45  # not the 102.5 s of sleeps that ignore SIGTERM
    assert "exit 124" in result.output
    assert await gone("102.5")  # SIGTERM alone would have left both


async def test_grandchild_holding_stdout_does_not_hang(ctx: ToolContext) -> None:
    try:
        t0 = time.monotonic()
        # setsid puts the sleeper outside our process group, still holding our stdout pipe.
        result = await bash(ctx, "setsid sleep 103.5 & echo started", timeout=300)
        assert time.monotonic() - t0 < 45  # not the 103.5 s until the sleeper lets go
        assert result.output.startswith("started\n[exit code 0")  # finished, not timed out
        assert "holds the output open" in result.output
        assert pids_with("103.5"), "the sleeper was still holding the pipe when bash returned"
    finally:
        kill_all("103.5")


async def test_huge_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    result = await bash(ctx, "seq 1 2000000; echo tail-marker >&2; exit 1")
    assert len(result.output) <= RESULT_CAP
    assert result.output.startswith("1\n2\n3\n")
    assert "2000000\n[stderr]\ntail-marker\n[stdout: " in result.output
    assert result.output.splitlines()[-1].startswith("[exit code 1 · ")
    # the note counts everything left out, and stands where no cap cuts it
    m = re.search(r"\[stdout: (\d+) bytes, (\d+) shown, (\d+) not shown", result.output)
    assert m, result.output[-3000:]
    total, shown, dropped = map(int, m.groups())
    assert total == len("".join(f"{n}\n" for n in range(1, 2_000_001))) == shown + dropped
    assert f"[... {dropped} bytes not shown ...]" in result.output
    assert "redirect the output to a file and read it with read_file or grep]" in result.output


def test_capture_memory_is_bounded() -> None:
    capture = shell.Capture()
    for _ in range(200):
        capture.add(b"x" * (1 << 20))
    assert capture.total == 200 << 20
    assert len(capture.head) + len(capture.tail) <= 2 * shell.KEEP_BYTES
    text, encoding = capture.text()
    assert encoding is None
    assert "bytes of output not kept" in text


def test_capture_cut_inside_utf8_character() -> None:
    capture = shell.Capture()
    capture.add(b"a" * (shell.KEEP_BYTES - 1) + "ж".encode() * (shell.KEEP_BYTES * 2))
    text, encoding = capture.text()
    assert encoding is None
    assert "\ufffd" not in text.replace("\ufffd", "", 1)


@pytest.mark.parametrize(("encoding", "text"), [("cp1251", "Привет, мир"), ("gb18030", "你好世界")])
async def test_non_utf8_output_is_decoded_with_a_stated_fallback(
    ctx: ToolContext, encoding: str, text: str
) -> None:
    payload = "".join(f"\\x{b:02x}" for b in text.encode(encoding))
    result = await bash(ctx, f"printf '{payload}\\n'")
    assert result.output.startswith(text + "\n")
    assert f"[stdout was not valid UTF-8; decoded as {encoding}]" in result.output


async def test_utf8_output_and_python_encoding(ctx: ToolContext) -> None:
    result = await bash(ctx, "python3 -c \"print('héllo ✓ 你好')\"")
    assert result.output.startswith("héllo ✓ 你好\n")
    assert "decoded as" not in result.output


async def test_cancellation_kills_the_group(ctx: ToolContext) -> None:
    task = asyncio.create_task(bash(ctx, "sleep 104.5 & sleep 104.5"))
    assert await sleeping("104.5", 2)  # the command runs: both of its sleeps
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone("104.5")


async def until(ctx: ToolContext, job_id: str, text: str, within: float = 30.0) -> ToolResult:
    """bash_output of `job_id` until what it read holds `text` (a busy machine starts bash
    late); the last result, its output all that was read."""
    deadline, seen = time.monotonic() + within, ""
    while True:
        result = await shell_bg.BASH_OUTPUT.run({"id": job_id}, ctx)
        seen += result.output
        if text in seen or time.monotonic() > deadline:
            return result
        await asyncio.sleep(0.05)


async def test_background_and_bash_output(ctx: ToolContext, tmp_path: Path) -> None:
    gate = "for i in $(seq 600); do [ -e gate ] && break; sleep 0.1; done"  # a minute at most
    command = f"echo first; {gate}; echo second; echo problem >&2; exit 4"
    result = await bash(ctx, command, run_in_background=True)
    job_id = result.output.split("background as ")[1].split()[0]
    assert result.display is not None
    assert result.display.endswith(f"background {job_id}")
    early = await until(ctx, job_id, "first")
    # Still waiting for the gate: starting it did not wait for it (that would take a minute).
    assert early.output.startswith(f"[{job_id}: running for ")
    assert "first" in early.output
    assert early.display == f"bash_output {job_id} · running"
    (tmp_path / "gate").touch()
    late = await until(ctx, job_id, "exit code")
    assert late.output.splitlines() == [f"[{job_id}: exit code 4]", "second", "[stderr]", "problem"]
    again = await shell_bg.BASH_OUTPUT.run({"id": job_id}, ctx)
    assert again.output.endswith("(no new output)")
    unknown = await shell_bg.BASH_OUTPUT.run({"id": "bg999"}, ctx)
    assert unknown.is_error
    assert job_id in unknown.output


async def test_shutdown_kills_background_groups(ctx: ToolContext) -> None:
    await bash(ctx, "sleep 105.5 & sleep 105.5", run_in_background=True)
    assert await sleeping("105.5", 2)  # both sleeps (and bash) run
    shell_bg.shutdown()
    assert await gone("105.5")
    assert not shell_bg.JOBS


async def test_background_output_survives_event_loops(ctx: ToolContext) -> None:
    """A background job started in one event loop can be read from another (files, no pipes)."""
    result = await bash(ctx, "printf 'Привет'", run_in_background=True)
    job_id = result.output.split("background as ")[1].split()[0]

    def other_loop() -> str:
        deadline = time.monotonic() + 30  # until the job has ended (at once, unless busy)
        while shell_bg.JOBS[job_id].proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return asyncio.run(shell_bg.BASH_OUTPUT.run({"id": job_id}, ctx)).output

    output = await asyncio.to_thread(other_loop)
    assert "Привет" in output
    assert "exit code 0" in output


def test_timeout_is_clamped() -> None:
    assert shell._timeout(None) == 120
    assert shell._timeout(9999) == 600
    assert shell._timeout(2.5) == 2.5
