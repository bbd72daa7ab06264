"""bash: run a command in the workspace, in its own process group, with a hard timeout that
kills the whole group. Background runs and bash_output live in shell_bg.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import time
from collections.abc import Callable
from typing import Any

from agent.base.args import Args, arg
from agent.base.record import RESULT_CAP, Target, Tool, ToolContext, ToolResult, cap
from agent.sandbox.runtime import SANDBOX_ARG, Sandbox, end_inside, inner_pids, sandbox_of
from agent.tools.shared.common import ToolError, guard, keep_partial
from agent.tools.shared.editor_io import editor_of
from agent.tools.shared.textio import decode_output
from agent.tools.shell import background as shell_bg
from agent.tools.shell.output import (
    MARKER_ROOM,
    MORE,
    NOTE_ROOM,
    TIMED_OUT,
    Excerpt,
    child_env,
    excerpt,
    headline,
    share,
    shown_output,
    terminal_result,
)

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
OUTPUT_CAP = 30_000  # characters of stdout+stderr kept (head and tail) within RESULT_CAP
KEEP_BYTES = 1 << 20  # bytes of each stream's head and tail held in memory
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL for the process group
PIPE_GRACE = 1.0  # seconds to keep reading after the shell exits (a grandchild may hold a pipe)
HELD = "[a background process still holds the output open; its later output is lost]"
OnData = Callable[[int, bytes], None]  # (fd 1 or 2, chunk) as output arrives


class Capture:
    """One output stream, keeping only its head and tail so huge output costs no memory."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[: max(len(self.tail) - KEEP_BYTES, 0)]

    @property
    def dropped(self) -> int:
        """Bytes neither in the head nor in the tail kept."""
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> tuple[str, str | None]:
        """Decoded text (with a marker where bytes were dropped) and any fallback encoding."""
        head, encoding = decode_output(bytes(self.head))
        dropped = self.dropped
        if not self.tail:
            return head, encoding
        tail = bytes(self.tail)
        skip = 0
        while not encoding and skip < min(3, len(tail)) and tail[skip] >> 6 == 2:
            skip += 1  # do not start in the middle of a UTF-8 character
        tail = tail[skip:]
        tail_text, tail_encoding = decode_output(tail)
        gap = f"\n[... {dropped} bytes of output not kept ...]\n" if dropped else ""
        return head + gap + tail_text, encoding or tail_encoding

    def excerpt(self, room: int) -> Excerpt:
        """The start and end of the stream within `room` characters (see shell_text)."""
        return excerpt(bytes(self.head), bytes(self.tail), self.total, room)


class Collector(asyncio.SubprocessProtocol):
    """Feeds both pipes into Captures and reports exit and pipe closure as futures.

    `on_data(fd, bytes)`, when given, also sees every chunk as it arrives (streaming output).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, on_data: OnData | None = None) -> None:
        self.streams = {1: Capture(), 2: Capture()}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed = {1: loop.create_future(), 2: loop.create_future()}
        self.on_data = on_data

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.streams[fd].add(data)
        if self.on_data is not None:
            self.on_data(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self.closed and not self.closed[fd].done():
            self.closed[fd].set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(pgid, sig)


async def kill_group(pgid: int, exited: asyncio.Future[None]) -> None:
    """SIGTERM the group, give it TERM_GRACE to exit, then SIGKILL whatever is left (in a
    sandbox, all of its namespace)."""
    inside = inner_pids(pgid)  # the group leader's children: a sandbox's namespace init
    signal_group(pgid, signal.SIGTERM)
    await asyncio.wait([exited], timeout=TERM_GRACE)
    signal_group(pgid, signal.SIGKILL)  # also stragglers that ignored SIGTERM
    end_inside(inside)
    # Let asyncio see the exit before the transport closes: closing a live transport polls the
    # child itself, reaping it behind the child watcher's back.
    await asyncio.wait([exited], timeout=5.0)


async def execute(
    command: str, cwd: str, timeout: float, box: Sandbox | None = None
) -> tuple[int | None, Collector, bool]:
    """Run `command` (in `box` when given); returns (exit code or None on timeout, collected
    output, pipes held)."""
    argv = ["bash", "-c", command]
    return await execute_argv(box.wrap(argv, cwd) if box else argv, cwd, timeout)


async def execute_argv(
    argv: list[str],
    cwd: str,
    timeout: float,
    env: dict[str, str] | None = None,
    on_data: OnData | None = None,
) -> tuple[int | None, Collector, bool]:
    """Run `argv` (no shell) in its own process group; same results and kills as `execute`."""
    loop = asyncio.get_running_loop()
    transport, proto = await loop.subprocess_exec(
        lambda: Collector(loop, on_data), *argv, cwd=cwd, env=env or child_env(),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    pgid = transport.get_pid()  # start_new_session: the process leads its own group
    try:
        done, _ = await asyncio.wait([proto.exited], timeout=timeout)
        timed_out = not done
        if timed_out:
            await kill_group(pgid, proto.exited)
        # Output still in the pipes arrives at once; a background grandchild that keeps them
        # open must not hang the tool, so stop reading after a short grace.
        _, pending = await asyncio.wait(list(proto.closed.values()), timeout=PIPE_GRACE)
        code = None if timed_out else transport.get_returncode()
        return code, proto, bool(pending) and not timed_out
    except asyncio.CancelledError as stop:
        signal_group(pgid, signal.SIGKILL)  # the user interrupted: stop everything now
        await asyncio.wait([proto.exited], timeout=2.0)
        stop.collector = proto  # type: ignore[attr-defined]  # the output so far, for the caller
        raise
    finally:
        transport.close()


def format_result(
    code: int | None,
    proto: Collector,
    elapsed: float,
    timeout: float,
    held: bool = False,
    interrupted: bool = False,
    room: int = RESULT_CAP,
) -> str:
    """The tool result: each stream's start and end within `room` characters (the result cap,
    or more when the loop saves long results: then all that was kept), with notes saying how
    much was produced and left out (sized so that no later cap can cut them), then the
    status."""
    if interrupted:
        closing = [
            f"[interrupted by the user after {elapsed:.1f} s; the command and everything it "
            "started were killed]"
        ]
    elif code is None:
        closing = [TIMED_OUT.format(timeout)]
    else:
        status = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        closing = [f"[{status} · {elapsed:.1f} s]"]
    if held:
        closing.append(HELD)
    budget = room - len("\n".join(closing)) - 2 * (NOTE_ROOM + MARKER_ROOM) - 20
    wanted = min(OUTPUT_CAP, budget) if room <= RESULT_CAP else budget
    rooms = share(wanted, proto.streams[1].total, proto.streams[2].total)
    out, err = (proto.streams[fd].excerpt(room) for fd, room in zip((1, 2), rooms, strict=True))
    parts = [out.text.rstrip("\n")] if out.text.strip() else []
    if err.text.strip():
        parts.append("[stderr]\n" + err.text.rstrip("\n"))
    if not parts:
        parts.append("(no output)")
    for name, shown in (("stdout", out), ("stderr", err)):
        parts += shown.encoding_notes(name)
        note = shown.size_note(name, "bytes", f"to see all of it, {MORE}")
        parts += [note] if note else []
    return cap("\n".join(parts + closing), room, how_to_see_more=MORE)


class BashArgs(Args):
    command: str
    timeout: float | None = None  # seconds, bounded by _timeout
    run_in_background: bool = False
    description: str = arg("", "What the command does (5-10 words)")
    sandbox: bool = arg(
        True,
        "false: run outside the sandbox (asks the user; only after a command failed because "
        "of the sandbox)",
        name=SANDBOX_ARG,
    )


def _timeout(value: float | None) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    # NaN fails every comparison; a huge int compares with inf exactly (no float overflow)
    if not 0 < value < math.inf:
        raise ToolError(
            f"timeout must be a finite number of seconds above 0, got {value!r}",
            hint=f"give seconds up to {MAX_TIMEOUT:g}, or omit it for {DEFAULT_TIMEOUT:g}",
        )
    return float(min(value, MAX_TIMEOUT))


@guard
async def _bash(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = BashArgs.parse(args)
    command = a.command
    if not command.strip():
        raise ToolError("the command is empty")
    timeout = _timeout(a.timeout)
    box = sandbox_of(ctx.sandbox) if a.sandbox else None
    if a.run_in_background:
        return shell_bg.start(command, str(ctx.cwd), box)
    editor = editor_of(ctx)
    if editor is not None:  # the editor's terminal shows it live (ACP)
        argv = ["bash", "-c", command]
        ran = await editor.run(box.wrap(argv, str(ctx.cwd)) if box else argv, str(ctx.cwd), timeout)
        if ran is not None:
            return terminal_result(command, ran, timeout, box, ctx.result_room)
    started = time.monotonic()
    try:
        code, proto, held = await execute(command, str(ctx.cwd), timeout, box)
    except asyncio.CancelledError as stop:  # keep what it printed before the user stopped it
        collected = getattr(stop, "collector", None)
        if collected is not None:
            elapsed = time.monotonic() - started
            text = format_result(None, collected, elapsed, timeout, interrupted=True)
            keep_partial(stop, text)
        raise
    elapsed = time.monotonic() - started
    text = format_result(code, proto, elapsed, timeout, held, room=ctx.result_room)
    status = f"timed out after {timeout:g} s · exit 124" if code is None else f"exit {code}"
    display = f"bash {headline(command)} · {status}"  # renderers add the time
    failed = code != 0  # a failed command shows as one (its output and exit code are all kept)
    note = box.blocked_note(text, failed) if box is not None else ""
    shown = shown_output(proto.streams[1], proto.streams[2], failed)
    text = f"{text}\n{note}" if note else text
    return ToolResult(text, is_error=failed, display=display, shown=shown)


BASH = Tool(
    name="bash",
    description=(
        "Run a shell command with `bash -c` in the workspace; returns stdout, stderr and the exit "
        f"code. timeout: seconds (default {DEFAULT_TIMEOUT:g}, max {MAX_TIMEOUT:g}), then the "
        "process group is killed. Long output keeps its head and tail. run_in_background=true "
        "returns an id at once: read its output with bash_output. Commands run in the session's "
        "OS sandbox, if any; sandbox=false runs one outside it, always asking the user first. "
        "Prefer read_file/grep/glob over cat/grep/find."
    ),
    parameters=BashArgs.schema(),
    run=_bash,
    kind="exec",
    target=Target("command", "command"),
    aliases=("Bash",),
    sandbox_arg=SANDBOX_ARG,
)


TOOLS: tuple[Tool, ...] = (BASH, shell_bg.BASH_OUTPUT)
