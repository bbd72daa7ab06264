"""bash and bash_output edge cases with real subprocesses: UTF-8 output with stray bytes, huge
output that must say honestly what was shown and dropped, non-finite timeouts."""

from __future__ import annotations

import asyncio
import re

import pytest

from agent.base.record import RESULT_CAP, ToolContext, ToolResult
from agent.base.schema import validate
from agent.tools.shared.textio import decode_output
from agent.tools.shell import background as shell_bg
from agent.tools.shell import bash as shell

SEQ_BYTES = 14_888_896  # `seq 2000000`: len("".join(f"{n}\n" for n in range(1, 2_000_001)))
STRAY = r"printf 'h\xc3\xa9llo \xe2\x9c\x93\n'; printf '\xff'"


async def bash(ctx: ToolContext, command: str, **kw: object) -> ToolResult:
    return await shell.BASH.run({"command": command, **kw}, ctx)


async def bash_output(ctx: ToolContext, job_id: str) -> ToolResult:
    return await shell_bg.BASH_OUTPUT.run({"id": job_id}, ctx)


async def finished(ctx: ToolContext, command: str) -> str:
    """Start `command` in the background and wait (without reading) until it has exited."""
    result = await bash(ctx, command, run_in_background=True)
    job_id = result.output.split("background as ")[1].split()[0]
    for _ in range(400):
        if shell_bg.JOBS[job_id].proc.poll() is not None:
            return job_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"{command} did not finish")


def test_decode_output_keeps_utf8_with_a_stray_byte() -> None:
    assert decode_output(b"h\xc3\xa9llo \xe2\x9c\x93\n\xff") == ("héllo ✓\n\ufffd", None)
    for encoding, text in (("cp1251", "Привет, мир"), ("gb18030", "你好世界")):
        assert decode_output(text.encode(encoding)) == (text, encoding)
    # No UTF-8 character at all, only lone high bytes: Western text, not U+FFFD
    assert decode_output(b"25\xb0C, caf\xe9") == ("25°C, café", "cp1252")


async def test_a_running_jobs_last_cp1251_letter_is_not_held_back(ctx: ToolContext) -> None:
    line = "Ввод данных"
    octal = "".join(f"\\{b:03o}" for b in line.encode("cp1251"))
    result = await bash(ctx, f"printf '{octal}'; sleep 60", run_in_background=True)
    job_id = result.output.split("background as ")[1].split()[0]
    stdout = shell_bg.JOBS[job_id].files["stdout"]
    for _ in range(600):  # until the letters are written (a busy machine starts bash late)
        if stdout.stat().st_size >= len(line):
            break
        await asyncio.sleep(0.05)
    running = await bash_output(ctx, job_id)
    assert running.output.startswith(f"[{job_id}: running for "), running.output
    assert line in running.output, running.output
    assert "decoded as cp1251" in running.output


async def test_stray_byte_in_utf8_output(ctx: ToolContext) -> None:
    result = await bash(ctx, STRAY)
    assert result.output.startswith("héllo ✓\n\ufffd\n")
    assert "decoded as" not in result.output
    assert "[stdout: 1 byte not valid UTF-8, shown as \ufffd]" in result.output
    clean = await bash(ctx, "printf 'h\\xc3\\xa9llo \\xef\\xbf\\xbd\\n'")  # a real U+FFFD
    assert clean.output.startswith("héllo \ufffd\n[exit code 0")


async def test_stray_byte_in_background_output(ctx: ToolContext) -> None:
    job_id = await finished(ctx, "{ " + STRAY + "; } >&2")
    result = await bash_output(ctx, job_id)
    assert result.output.splitlines()[1:4] == ["[stderr]", "héllo ✓", "\ufffd"]
    assert "decoded as" not in result.output
    assert "[stderr: 1 byte not valid UTF-8, shown as \ufffd]" in result.output


def _numbers(note: str) -> tuple[int, int, int]:
    m = re.search(r"(\d+) bytes new, (\d+) shown, (\d+) not shown", note)
    assert m, note
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


async def test_background_huge_output_says_what_was_dropped(ctx: ToolContext) -> None:
    job_id = await finished(ctx, "seq 1 2000000")
    first = await bash_output(ctx, job_id)
    text = first.output
    assert len(text) <= RESULT_CAP
    lines = text.splitlines()
    assert lines[0] == f"[{job_id}: exit code 0]"
    total, shown, dropped = _numbers(lines[1])  # the note comes first: no cap can cut it
    assert (total, shown + dropped) == (SEQ_BYTES, SEQ_BYTES)
    assert 5000 < shown < RESULT_CAP
    path = shell_bg.JOBS[job_id].files["stdout"]
    assert f"it is all in {path}" in lines[1] and "read_file" in lines[1]
    assert path.stat().st_size == SEQ_BYTES  # the advice works: the file holds everything
    assert "again" not in text  # calling bash_output again would show nothing
    assert lines[2:5] == ["1", "2", "3"]
    assert lines[-1] == "2000000"
    assert f"[... {dropped} bytes not shown ...]" in lines
    assert (await bash_output(ctx, job_id)).output.endswith("(no new output)")


async def test_background_huge_output_while_running(ctx: ToolContext) -> None:
    result = await bash(ctx, "seq 1 2000000; seq 1 2000000 >&2; sleep 30", run_in_background=True)
    job_id = result.output.split("background as ")[1].split()[0]
    files = shell_bg.JOBS[job_id].files
    for _ in range(400):
        if files["stderr"].stat().st_size >= SEQ_BYTES:
            break
        await asyncio.sleep(0.05)
    text = (await bash_output(ctx, job_id)).output
    assert len(text) <= RESULT_CAP
    lines = text.splitlines()
    assert lines[0].startswith(f"[{job_id}: running for ")
    assert _numbers(lines[1])[0] == SEQ_BYTES
    assert lines[1].startswith("[stdout: ") and lines[2].startswith("[stderr: ")
    assert _numbers(lines[2])[0] == SEQ_BYTES
    assert "[stderr]" in lines
    assert lines[-1] == "2000000"


async def test_foreground_huge_output_keeps_its_notes(ctx: ToolContext) -> None:
    cp1251 = "".join(f"\\x{b:02x}" for b in "Привет".encode("cp1251"))
    command = (
        f"seq 1 2000000; printf '{cp1251}'; seq 1 2000000 >&2; printf '{cp1251}\\xff' >&2; "
        "setsid sleep 3 & exit 2"
    )
    text = (await bash(ctx, command)).output
    assert len(text) <= RESULT_CAP
    assert text.startswith("1\n2\n3\n")
    assert "[stdout was not valid UTF-8; decoded as cp1251]" in text
    assert "[stderr was not valid UTF-8; decoded as cp1251]" in text
    for name in ("stdout", "stderr"):
        m = re.search(
            rf"\[{name}: (\d+) bytes, (\d+) shown, (\d+) not shown\b[^\]]*read_file", text
        )
        assert m, text[-2000:]
        total, shown, dropped = map(int, m.groups())
        assert total == shown + dropped
        assert f"[... {dropped} bytes not shown ...]" in text
    assert "holds the output open" in text
    assert "[exit code 2 · " in text


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "nan", "inf"])
async def test_non_finite_timeout_is_an_error(ctx: ToolContext, value: object) -> None:
    args, problems = validate({"command": "echo ran", "timeout": value}, shell.BASH.parameters)
    assert not problems
    result = await shell.BASH.run(args, ctx)
    assert result.is_error
    assert "timeout must be a finite number" in result.output
    assert "ran" not in result.output and "timed out" not in result.output


async def test_numeric_string_timeout_still_works(ctx: ToolContext) -> None:
    args, problems = validate({"command": "echo ran", "timeout": "30"}, shell.BASH.parameters)
    assert not problems
    result = await shell.BASH.run(args, ctx)
    assert result.output.startswith("ran\n[exit code 0")
    assert shell._timeout(shell.BashArgs.parse({"command": "x", "timeout": " 30 "}).timeout) == 30
    assert shell._timeout(10**400) == shell.MAX_TIMEOUT
    soon = await shell.BASH.run({"command": "echo ran", "timeout": "soon"}, ctx)
    assert soon.is_error and "'timeout' must be a number" in soon.output
