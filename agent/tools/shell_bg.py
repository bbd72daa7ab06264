"""Background bash commands and bash_output.

A background command writes to files, not pipes: it outlives the event loop that started it,
nothing has to keep reading, and bash_output can pick up new output from any loop. The
registry is module-level; every process group still running is killed at interpreter exit.
"""

from __future__ import annotations

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

from agent.tools import Tool, ToolContext, ToolResult, cap
from agent.tools.common import ToolError, guard, str_arg
from agent.tools.textio import decode_output

READ_CAP = 256 << 10  # bytes of new output read per stream and call (head and tail beyond)


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


def start(command: str, cwd: str) -> ToolResult:
    """Start `command` in its own process group with output going to files; return its id."""
    from agent.tools.shell import child_env, headline

    job_id = f"bg{next(_ids)}"
    directory = _output_dir()
    files = {name: directory / f"{job_id}.{name}" for name in ("stdout", "stderr")}
    with open(files["stdout"], "wb") as out, open(files["stderr"], "wb") as err:
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
            stdout=out, stderr=err, start_new_session=True,
        )  # fmt: skip
    JOBS[job_id] = Job(job_id, command, proc, files)
    text = (
        f"Started in the background as {job_id} (pid {proc.pid}). Read its output with "
        f"bash_output(id='{job_id}'); stop it with bash: kill -- -{proc.pid}"
    )
    return ToolResult(text, display=f"bash {headline(command)} · background {job_id}")


def _read_new(job: Job, name: str, running: bool) -> str:
    """Output of one stream since the last call, decoded; a cut UTF-8 character waits."""
    path, offset = job.files[name], job.offsets[name]
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(offset)
        if size - offset <= 2 * READ_CAP:
            data, gap = f.read(size - offset), 0
        else:
            head = f.read(READ_CAP)
            f.seek(size - READ_CAP)
            data, gap = head + f.read(READ_CAP), size - offset - 2 * READ_CAP
    consumed = len(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if running and exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            consumed = exc.start  # the rest of that character has not been written yet
        text, encoding = decode_output(data[:consumed])
        if encoding:
            text += f"\n[{name} was not valid UTF-8; decoded as {encoding}]"
    job.offsets[name] = offset + consumed + gap
    if gap:
        mid = len(text) // 2  # the head and tail pieces were joined; mark roughly where
        text = f"{text[:mid]}\n[... {gap} bytes skipped ...]\n{text[mid:]}"
    return text


def status(job: Job) -> tuple[str, int | None]:
    code = job.proc.poll()
    if code is None:
        return f"running for {time.monotonic() - job.started:.1f} s", None
    if job.ended is None:
        job.ended = time.monotonic()
    return (f"killed by signal {-code}" if code < 0 else f"exit code {code}"), code


@guard
async def _bash_output(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    job_id = str_arg(args, "id").strip()
    job = JOBS.get(job_id)
    if job is None:
        known = ", ".join(JOBS) or "none"
        raise ToolError(f"no background command with id {job_id!r}", hint=f"known ids: {known}")
    state, code = status(job)  # before reading, so output after the exit is not missed
    out = _read_new(job, "stdout", code is None)
    err = _read_new(job, "stderr", code is None)
    parts = [f"[{job.id}: {state}]"]
    if out:
        parts.append(out.rstrip("\n"))
    if err:
        parts.append("[stderr]\n" + err.rstrip("\n"))
    if not (out or err):
        parts.append("(no new output)")
    text = cap("\n".join(parts), how_to_see_more="call bash_output again for newer output")
    short = "running" if code is None else f"exit {code}"
    return ToolResult(text, display=f"bash_output {job.id} · {short}")


def shutdown() -> None:
    """Kill every background process group that is still running and drop the output files."""
    running = [job for job in JOBS.values() if job.proc.poll() is None]
    for job in running:
        _signal(job, signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    while any(job.proc.poll() is None for job in running) and time.monotonic() < deadline:
        time.sleep(0.02)
    for job in running:
        _signal(job, signal.SIGKILL)  # and anything left in the group
        with contextlib.suppress(subprocess.TimeoutExpired):
            job.proc.wait(timeout=1.0)
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
        "run_in_background=true) since the last read, and whether it is still running."
    ),
    parameters={
        "type": "object",
        "properties": {"id": {"type": "string", "description": "The id bash returned"}},
        "required": ["id"],
        "additionalProperties": False,
    },
    run=_bash_output,
    read_only=True,
)
