"""Background bash commands and bash_output.

A background command writes to files, not pipes: it outlives the event loop that started it,
nothing has to keep reading, and bash_output can pick up new output from any loop. The
registry is module-level; every process group still running is killed at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.base.args import Args, arg
from agent.base.record import RESULT_CAP, Tool, ToolContext, ToolResult, cap
from agent.sandbox.runtime import Sandbox, end_inside, inner_pids
from agent.tools.shared.common import ToolError, guard
from agent.tools.shared.textio import output_is_utf8
from agent.tools.shell.output import (
    MARKER_ROOM,
    NOTE_ROOM,
    Excerpt,
    child_env,
    excerpt,
    headline,
    partial_char,
    share,
)

READ_CAP = 256 << 10  # bytes of new output read per stream and call (head and tail beyond)
STREAMS = ("stdout", "stderr")
# Characters of output per bash_output result: the header and both streams' notes and markers
# fit beside it within RESULT_CAP, so the cap never cuts what says output was left out.
BODY_CAP = RESULT_CAP - 2 * (NOTE_ROOM + MARKER_ROOM) - 200


@dataclass
class Job:
    id: str
    command: str
    proc: subprocess.Popen[bytes]
    files: dict[str, Path]
    started: float = field(default_factory=time.monotonic)
    offsets: dict[str, int] = field(default_factory=lambda: {"stdout": 0, "stderr": 0})
    ended: float | None = None


JOBS: dict[str, Job] = {}
_ids = itertools.count(1)
_state: dict[str, Path] = {}  # "dir": where output files live, made on first use


def _output_dir() -> Path:
    if "dir" not in _state:
        _state["dir"] = Path(tempfile.mkdtemp(prefix="agent-bg-"))
        atexit.register(shutdown)
    return _state["dir"]


def start(command: str, cwd: str, box: Sandbox | None = None) -> ToolResult:
    """Start `command` (in `box` when given) in its own process group with output going to
    files; return its id."""
    job_id = f"bg{next(_ids)}"
    directory = _output_dir()
    files = {name: directory / f"{job_id}.{name}" for name in ("stdout", "stderr")}
    with open(files["stdout"], "wb") as out, open(files["stderr"], "wb") as err:
        argv = ["bash", "-c", command]
        proc = subprocess.Popen(
            box.wrap(argv, cwd) if box else argv, cwd=cwd, env=child_env(),
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
        )  # fmt: skip
    JOBS[job_id] = Job(job_id, command, proc, files)
    text = (
        f"Started in the background as {job_id} (pid {proc.pid}). Read its output with "
        f"bash_output(id='{job_id}'); stop it with bash_output(id='{job_id}', stop=true)"
    )
    return ToolResult(text, display=f"bash {headline(command)} · background {job_id}")


def _read_new(job: Job, name: str, size: int, room: int, running: bool) -> Excerpt:
    """Output of one stream since the last read, its start and end within `room` characters.

    Everything up to `size` counts as read (the excerpt says what was not shown), except a
    UTF-8 character cut at the end while the command runs: its rest is not written yet."""
    path, offset = job.files[name], job.offsets[name]
    new = max(size - offset, 0)
    with open(path, "rb") as f:
        f.seek(offset)
        if new <= 2 * READ_CAP:
            head, tail = f.read(new), b""
        else:
            head = f.read(READ_CAP)
            f.seek(size - READ_CAP)
            tail = f.read(READ_CAP)
    # A UTF-8 character cut at the end waits for its rest; a cp1251 letter is whole already.
    utf8 = output_is_utf8(head + tail)
    wait = partial_char(tail or head) if running and utf8 else 0
    if wait:
        head, tail = (head, tail[:-wait]) if tail else (head[:-wait], tail)
    job.offsets[name] = offset + new - wait
    return excerpt(head, tail, new - wait, room)


def status(job: Job) -> tuple[str, int | None]:
    code = job.proc.poll()
    if code is None:
        return f"running for {time.monotonic() - job.started:.1f} s", None
    if job.ended is None:
        job.ended = time.monotonic()
    return (f"killed by signal {-code}" if code < 0 else f"exit code {code}"), code


class OutputArgs(Args):
    id: str
    stop: bool = arg(False, "end it first")


@guard
async def _bash_output(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = OutputArgs.parse(args)
    job_id = a.id.strip()
    job = JOBS.get(job_id)
    if job is None:
        known = ", ".join(JOBS) or "none"
        raise ToolError(f"no background command with id {job_id!r}", hint=f"known ids: {known}")
    if a.stop:
        await asyncio.to_thread(stop, [job])
    state, code = status(job)  # before reading, so output after the exit is not missed
    sizes = {name: path.stat().st_size for name, path in job.files.items()}
    new = [sizes[name] - job.offsets[name] for name in STREAMS]
    rooms = dict(zip(STREAMS, share(BODY_CAP, *new), strict=True))
    shown = {name: _read_new(job, name, sizes[name], rooms[name], code is None) for name in STREAMS}
    parts = [f"[{job.id}: {state}]"]
    for name, part in shown.items():  # first, where no cap can cut them
        where = f"it is all in {job.files[name]}: read it with read_file (offset, limit) or grep"
        note = part.size_note(name, "bytes new", where)
        parts += [note] if note else []
    for name, part in shown.items():
        if part.text:
            label = "[stderr]\n" if name == "stderr" else ""
            parts.append(label + part.text.rstrip("\n"))
            parts += part.encoding_notes(name)
    if not any(part.text for part in shown.values()):
        parts.append("(no new output)")
    text = cap("\n".join(parts), how_to_see_more=f"all output is in {_output_dir()}")
    short = "running" if code is None else f"exit {code}"
    return ToolResult(text, display=f"bash_output {job.id} · {short}")


def stop(jobs: list[Job]) -> None:
    """SIGTERM the jobs' process groups, a second to go, then SIGKILL what is left — and, for
    a sandboxed one, everything in its namespace (its own PID namespace: a `kill` run through
    bash could not reach it)."""
    running = [job for job in jobs if job.proc.poll() is None]
    inside = [pid for job in running for pid in inner_pids(job.proc.pid)]  # sandboxes' inits
    for job in running:
        _signal(job, signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    while any(job.proc.poll() is None for job in running) and time.monotonic() < deadline:
        time.sleep(0.02)
    for job in running:
        _signal(job, signal.SIGKILL)  # and anything left in the group
        with contextlib.suppress(subprocess.TimeoutExpired):
            job.proc.wait(timeout=1.0)
    end_inside(inside)  # and everything left in their namespaces


def shutdown() -> None:
    """Kill every background command that is still running and drop the output files."""
    stop(list(JOBS.values()))
    JOBS.clear()
    directory = _state.pop("dir", None)
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


def _signal(job: Job, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(job.proc.pid, sig)


BASH_OUTPUT = Tool(
    name="bash_output",
    description=(
        "Read the new output of a background bash command (started with "
        "run_in_background=true) since the last read, and whether it is still running. Long "
        "output shows its start and end; the result names the file that holds all of it."
    ),
    parameters=OutputArgs.schema(),
    run=_bash_output,
    read_only=True,
    kind="read",  # the output of a command already allowed
    serves="bash",
)
