"""Shared helpers: timing statistics, the fake server as a process, child peak RSS, the table."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fake_openai.py"


@dataclass
class Stat:
    median: float
    low: float
    high: float

    def fmt(self, unit: str = "ms", scale: float = 1000) -> str:
        return f"{self.median * scale:.0f} {unit} ({self.low * scale:.0f}–{self.high * scale:.0f})"


def stat(samples: list[float]) -> Stat:
    return Stat(statistics.median(samples), min(samples), max(samples))


def run_child(
    cmd: list[str],
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stdin: bytes | None = None,
) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS in KiB, stdout) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
    )
    out, _ = proc.communicate(stdin)
    wall = time.perf_counter() - t0
    # communicate() reaped the child; its rusage is folded into RUSAGE_CHILDREN's maximum
    import resource

    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} exited {proc.returncode}")
    return wall, rss, out


def peak_rss(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> int:
    """Peak RSS (KiB) of exactly this child, measured by wait4."""
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} exited {proc.returncode}")
    return int(usage.ru_maxrss)


def timed(fn: Callable[[], object], n: int) -> Stat:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return stat(samples)


@contextmanager
def fake_server(*args: str) -> Iterator[str]:
    """The scripted fake as its own process (so it does not share our GIL); yields base URL."""
    proc = subprocess.Popen(
        [sys.executable, str(FAKE), "--port", "0", *args], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def agent_env(base_url: str, home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_", "OPENAI_", "DEEPSEEK_"))
    }
    env.update(
        AGENT_BASE_URL=base_url,
        AGENT_API_KEY="bench",
        AGENT_MODEL="fake-model",
        HOME=str(home),
        NO_COLOR="1",
    )
    return env


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(self, name: str, value: str, baseline: str, budget: str, ok: bool | None) -> None:
        verdict = "—" if ok is None else ("within" if ok else "OVER")
        self.rows.append((name, value, baseline, budget, verdict))
        print(
            f"  {name}: {value} | baseline {baseline} | budget {budget} | {verdict}",
            file=sys.stderr,
        )

    def markdown(self) -> str:
        head = ("figure", "measured (median, min–max)", "baseline (same run)", "budget", "")
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines)
