"""Parsing within a budget: every file is parsed in a process of its own (agent.code.worker)
that the kernel holds to CPU_SECONDS of CPU time per file and MEMORY bytes, and that the
caller kills when it is asked to stop or when the file takes WALL_TIMES its CPU budget on the
wall clock.
tree-sitter runs in C holding the GIL: in the agent's own process a hostile file would
freeze the event loop, Ctrl-C and SIGTERM along with it, and no timeout could end it. So a
file costs at most the budget, the agent goes on, and the file is named with the limit it hit.

A few idle processes are kept for the next calls (starting one costs ~50 ms); the rest are
killed, and the idle ones at exit.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.code.languages import Lang
from agent.code.tags import FileTags
from agent.code.worker import CPU_SECONDS, MEMORY

# Seconds one file may take on the wall clock: a backstop for a process that gets no CPU (a
# busy machine) or waits on a slow disk, so its refusal is not remembered; the CPU limit is
# what a hostile file hits, on a busy machine too
WALL_TIMES = 6.0  # the wall-clock backstop, in CPU budgets
TICK = 0.1  # seconds between looks at `stop` while a file is parsed
IDLE_KEPT = 2
_HOME = str(Path(__file__).resolve().parents[2])  # the folder that holds the `agent` package


@dataclass(frozen=True)
class Parsed:
    """One file's outcome: its tags, nothing (binary, unreadable, without the needle), or the
    limit it hit."""

    tags: FileTags | None = None
    refused: str = ""  # the limit hit, for the note naming the file
    lasting: bool = True  # the refusal holds until the file changes (False: this run only)
    stopped: bool = False  # `stop` said so before the file was done


def _death(proc: subprocess.Popen[bytes]) -> Parsed:
    """What the end of the process says about the file it was parsing: its exit status, and
    its peak memory (tree-sitter out of memory aborts or crashes, whatever the signal)."""
    try:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = returncode = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    except ChildProcessError:
        returncode, peak = proc.wait(), 0
    if returncode == -signal.SIGXCPU:
        return Parsed(refused=f"over {CPU_SECONDS} s of parsing")
    if peak > MEMORY * 0.8 or returncode == -signal.SIGKILL:  # SIGKILL: the OOM killer
        return Parsed(refused=f"over {MEMORY >> 20} MB of memory")
    if returncode < 0:
        return Parsed(refused=f"crashed the parser ({signal.Signals(-returncode).name})")
    return Parsed(refused=f"the parser failed (exit {returncode})", lasting=False)


class Worker:
    """One parsing process, started on first use and again after it was killed."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        # the cwd is the agent's own folder: `-m` puts it first on sys.path, and a repository
        # being parsed must never be able to shadow a module there
        return subprocess.Popen(
            [sys.executable, "-m", "agent.code.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=_HOME,
            start_new_session=True,  # Ctrl-C reaches the agent, which decides; not this one
        )

    def _send(self, line: bytes) -> subprocess.Popen[bytes]:
        for _ in range(2):  # once more with a new process if the old one has gone
            if self.proc is None or self.proc.poll() is not None:
                self.close()
                self.proc = self._start()
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(line)
                self.proc.stdin.flush()
                return self.proc
            except OSError:
                self.close()
        raise OSError("the parsing process takes no requests")

    def parse(
        self, path: str, lang: Lang, needle: bytes = b"", stop: Callable[[], bool] | None = None
    ) -> Parsed:
        request = {
            "path": path,
            "lang": lang.name,
            "needle": needle.decode("latin-1"),
            "cpu": CPU_SECONDS,  # its CPU budget (read here: a test may lower it)
        }
        try:
            proc = self._send(json.dumps(request).encode() + b"\n")
        except OSError as exc:
            return Parsed(refused=f"no parsing process ({exc})", lasting=False)
        assert proc.stdout is not None
        wall = WALL_TIMES * CPU_SECONDS
        deadline = time.monotonic() + wall
        ready = select.poll()  # not select(): an agent with many files open has fds over 1024
        ready.register(proc.stdout, select.POLLIN)
        while not ready.poll(TICK * 1000):
            if stop is not None and stop():
                self.close()
                return Parsed(stopped=True)
            if time.monotonic() > deadline:
                self.close()
                return Parsed(refused=f"over {wall:.0f} s of parsing", lasting=False)
        line = proc.stdout.readline()
        if not line:  # the process ended: a limit, or a crash
            outcome = _death(proc)
            self.close()
            return outcome
        try:
            answer = json.loads(line)
            if "tags" in answer:
                return Parsed(FileTags.of(answer["tags"]))
            return Parsed(refused=str(answer.get("refused", "")))
        except (ValueError, KeyError, TypeError, AttributeError):
            return Parsed()

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()


_IDLE: list[Worker] = []
_LOCK = threading.Lock()


def borrow() -> Worker:
    with _LOCK:
        return _IDLE.pop() if _IDLE else Worker()


def give_back(worker: Worker) -> None:
    with _LOCK:
        if len(_IDLE) < IDLE_KEPT and worker.proc is not None:
            _IDLE.append(worker)
            return
    worker.close()


@atexit.register
def close_idle() -> None:
    with _LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for worker in idle:
        worker.close()
