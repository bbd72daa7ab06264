"""Tools against the real thing: grep and glob vs `rg` on a generated 50 000-file tree;
read_file of a 10 MB file."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Table, stat, timed

WORDS = ["alpha", "beta", "gamma", "delta", "needle", "omega", "import", "return", "value"]


def make_tree(root: Path, files: int) -> None:
    """Nested dirs of small text files, a .gitignore'd build dir, a few binaries."""
    rng = random.Random(7)
    (root / ".gitignore").write_text("build/\n*.log\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    exts = [".py", ".md", ".txt", ".js", ".log"]
    for i in range(files):
        d = root / f"pkg{i % 50}" / f"mod{(i // 50) % 20}"
        if i % 1000 == 0:
            d = root / "build" / f"b{i}"
        d.mkdir(parents=True, exist_ok=True)
        body = "\n".join(" ".join(rng.choices(WORDS, k=8)) for _ in range(6))
        (d / f"f{i}{exts[i % len(exts)]}").write_text(body + "\n")
    (root / "pkg0" / "blob.bin").write_bytes(b"\x00needle\x00" * 100)


def _tool(name: str, args: dict[str, Any], root: Path) -> Any:
    from agent.base.record import ToolContext
    from agent.tools.builtin import builtin_tools

    tool = {t.name: t for t in builtin_tools()}[name]

    async def once() -> Any:
        return await tool.run(args, ToolContext(cwd=root))

    return lambda: asyncio.run(once())


def tool_bench(table: Table, n: int, files: int = 50_000) -> None:
    from agent.tools.shared.walk import find_rg

    rg = find_rg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        make_tree(root, files)
        print(f"  (tree of {files} files in {time.perf_counter() - t0:.0f} s)", flush=True)
        same = [
            "--no-config",
            "--hidden",
            "--null",
            "--glob",
            "!.git",
        ]  # the tool's file-set flags: rg doing exactly its job
        cases = [
            (
                "grep 'needle' files",
                [rg, *same, "-l", "needle", "./"],
                "grep",
                {"pattern": "needle"},
            ),
            (
                "grep 'needle' count",
                [rg, *same, "-c", "needle", "./"],
                "grep",
                {"pattern": "needle", "output_mode": "count"},
            ),
            (
                "glob **/*.py newest first",
                [rg, *same, "--files", "-g", "*.py", "--sortr", "modified"],
                "glob",
                {"pattern": "**/*.py"},
            ),
        ]
        plain = {
            "grep 'needle' files": [rg, "-l", "needle", "./"],
            "grep 'needle' count": [rg, "-c", "needle", "./"],
            "glob **/*.py newest first": [rg, "--files", "-g", "*.py", "./"],
        }
        for label, cmd, name, args in cases:

            def raw(cmd: list[Any] = cmd) -> None:
                # a pipe, as any consumer reads it: rg takes shortcuts when stdout is /dev/null
                subprocess.run(cmd, cwd=root, capture_output=True, check=False)

            tool = _tool(name, args, root)
            runs: dict[str, list[float]] = {"base": [], "bare": [], "ours": []}
            for _ in range(n):  # interleaved, so drift on a noisy machine hits all three alike
                for key, fn in (
                    ("base", raw),
                    ("bare", lambda c=plain[label]: raw(c)),
                    ("ours", tool),
                ):
                    t0 = time.perf_counter()
                    fn()
                    runs[key].append(time.perf_counter() - t0)
            base, bare, ours = (stat(runs[k]) for k in ("base", "bare", "ours"))
            ratio = ours.median / base.median
            shown = " ".join(str(a) for a in plain[label][1:])
            table.add(
                f"{label} ({files} files)",
                ours.fmt(),
                f"rg, same job {base.fmt()}; plain `{shown}` {bare.fmt()}",
                "1.3× rg",
                ratio <= 1.3,
            )
            table.add(f"{label} ratio", f"{ratio:.2f}×", "", "1.3×", ratio <= 1.3)
        big = root / "big.txt"
        big.write_text(("x" * 99 + "\n") * 100_000)
        s = timed(_tool("read_file", {"path": str(big)}, root), n)
        table.add("read_file 10 MB", s.fmt(), "", "50 ms", s.median <= 0.050)
        os.unlink(big)


def tool_bench_isolated(table: Table, n: int, files: int = 50_000) -> None:
    """Run tool_bench in a fresh process: a long benchmark process's heap and threads skew
    the timing of an allocation-heavy tool; a fresh one is what a user's agent is."""
    import json
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "bench.toolbench", str(n), str(files)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    ).stdout
    for row in json.loads(out.strip().splitlines()[-1]):
        name, value, baseline, budget, verdict = row
        table.add(name, value, baseline, budget, None if verdict == "—" else verdict == "within")


if __name__ == "__main__":
    import json
    import sys

    t = Table()
    tool_bench(t, int(sys.argv[1]), int(sys.argv[2]))
    print(json.dumps(t.rows))
