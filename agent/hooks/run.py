"""Run one hook command: payload on stdin, capped output, timeout, whole process group killed.

The payload is queued on the pipe transport without waiting, so a hook that never reads its
stdin (even with a payload far larger than a pipe buffer) cannot block us; a broken pipe is
ignored. The hook
starts a new session, so its children share its process group: when the hook times out, or
when it has exited but a child still holds its stdout open, the group is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.sandbox.runtime import Sandbox
from agent.tools.shell.bash import Collector, signal_group

OUTPUT_CAP = 64 * 1024  # characters kept of each of stdout and stderr
EXIT_GRACE = 0.5  # seconds to wait for the pipes to close after the hook exited


@dataclass(frozen=True)
class Proc:
    """What one hook process did."""

    code: int | None  # None: did not start, or timed out
    stdout: str
    stderr: str
    timed_out: bool = False
    error: str = ""  # could not start


async def run_command(
    command: str,
    data: bytes,
    timeout: float,
    cwd: Path,
    env: dict[str, str],
    box: Sandbox | None = None,
) -> Proc:
    """Run `command` with a shell (in `box` when given); never raises for the hook's own
    failures."""
    loop = asyncio.get_running_loop()
    argv = ["/bin/sh", "-c", command]
    try:
        transport, proto = await loop.subprocess_exec(
            lambda: Collector(loop),
            *(box.wrap(argv, cwd) if box is not None else argv),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as e:
        return Proc(None, "", "", error=f"could not start: {e}")
    pgid = transport.get_pid()  # start_new_session: the shell leads its own process group
    _feed(transport.get_pipe_transport(0), data)
    try:
        done, _ = await asyncio.wait([proto.exited], timeout=timeout)
        timed_out = not done
        if not timed_out:  # a child still holding stdout must not keep us waiting
            await asyncio.wait(list(proto.closed.values()), timeout=EXIT_GRACE)
    finally:
        _kill_group(pgid)
        await asyncio.wait([proto.exited], timeout=5.0)  # let asyncio reap it, not close()
        transport.close()
    out = proto.streams[1].text()[0][:OUTPUT_CAP]
    err = proto.streams[2].text()[0][:OUTPUT_CAP]
    return Proc(None if timed_out else transport.get_returncode(), out, err, timed_out)


def _feed(stdin: Any, data: bytes) -> None:
    """Queue the payload without waiting: a hook that never reads it cannot block us."""
    if stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        stdin.write(data)
        stdin.write_eof() if stdin.can_write_eof() else stdin.close()


def _kill_group(pid: int) -> None:
    """Kill what is left of the hook's process group (it started its own session)."""
    signal_group(pid, signal.SIGKILL)
