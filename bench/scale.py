"""`python -m bench.scale [FILES]`: the agent in a large repository. A generated git repository of
FILES files (100,000 by default; Python modules importing and calling each other, docs, data)
beside a small one: one-shot start to answer in each, the first request's wait, glob, grep,
`@`-completion's file list, the repository map's build cold and warm, peak memory run after run
— each against its budget (issue 42). The 400-step session's curve is `python -m bench.steps`.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Table, agent_env, fake_server, peak_rss, run_child, stat

PY = sys.executable


def generate(root: Path, files: int, seed: int = 42) -> Path:
    """A repository of `files` files, committed: 70% Python modules in packages ten deep at
    most, the rest Markdown and JSON; each module defines classes and functions and calls
    names of its neighbours (so the map has references to rank)."""
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    dirs = [f"pkg{a}/sub{b}" for a in range(max(files // 2000, 1)) for b in range(20)]
    for i in range(files):
        d = root / dirs[i % len(dirs)]
        d.mkdir(parents=True, exist_ok=True)
        kind = rnd.random()
        if kind < 0.7:
            other = rnd.randrange(files)
            (d / f"mod{i}.py").write_text(
                f'"""Module {i}."""\n\nfrom pkg.mod{other} import Thing{other}\n\n\n'
                f"class Thing{i}:\n    def run(self, n: int) -> int:\n"
                f"        return helper_{i}(n) + Thing{other}().run(n)\n\n\n"
                f"def helper_{i}(n: int) -> int:\n    return n * {i % 7}\n"
            )
        elif kind < 0.85:
            (d / f"doc{i}.md").write_text(f"# Document {i}\n\nSee Thing{i}.\n")
        else:
            (d / f"data{i}.json").write_text(f'{{"id": {i}, "name": "item {i}"}}\n')
    git = ["git", "-c", "user.name=bench", "-c", "user.email=b@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "generated"], cwd=root, check=True)
    return root


def _oneshots(table: Table, big: Path, small: Path, url: str, home: Path, n: int) -> None:
    env = {**agent_env(url, home), "AGENT_CACHE_DIR": os.environ["AGENT_CACHE_DIR"]}
    cmd = [PY, "-m", "agent", "hi"]
    run_child(cmd, env=env, cwd=big)  # the first run in the big repository builds its cache
    big_s, small_s = [], []
    for _ in range(n):  # interleaved
        small_s.append(run_child(cmd, env=env, cwd=small)[0])
        big_s.append(run_child(cmd, env=env, cwd=big)[0])
    b, s = stat(big_s), stat(small_s)
    over = b.median - s.median
    table.add(
        "one-shot hi, large repository", b.fmt(), f"small one {s.fmt()}", "+100 ms", over <= 0.1
    )
    rss = [peak_rss(cmd, env=env, cwd=big) / 1024 for _ in range(5)]
    flat = max(rss) - min(rss) <= 10
    runs = " → ".join(f"{r:.0f}" for r in rss)
    table.add("peak RSS, five runs in a row", f"{runs} MiB", "", "flat (±10 MiB)", flat)


def _timed(fn: object) -> float:
    t0 = time.perf_counter()
    asyncio.run(fn)  # type: ignore[arg-type]
    return time.perf_counter() - t0


def _inside(table: Table, big: Path) -> None:
    """glob, grep, the `@` list and the map, in this process (each its own event loop)."""
    from agent.base.record import ToolContext
    from agent.code import index as code_index
    from agent.code.cache import TagCache
    from agent.code.index import tags_for
    from agent.code.repomap import repo_map
    from agent.context.repomap import _shallow_first
    from agent.tools.search.globbing import GLOB
    from agent.tools.search.grep import GREP
    from agent.tools.shared.listing import indexable_files, project_files

    ctx = ToolContext(cwd=big)
    glob_s = _timed(GLOB.run({"pattern": "**/mod1*.py"}, ctx))
    table.add("glob **/mod1*.py", f"{glob_s * 1000:.0f} ms", "", "1 s", glob_s <= 1)
    grep_s = _timed(GREP.run({"pattern": "helper_12345"}, ctx))
    table.add("grep helper_12345", f"{grep_s * 1000:.0f} ms", "", "1 s", grep_s <= 1)
    paths_s = _timed(project_files(big))
    table.add("@-completion's file list", f"{paths_s * 1000:.0f} ms", "", "1 s", paths_s <= 1)

    async def build() -> str:
        """The map as a session draws it: the listing, the tags (parsed, or from the cache),
        the ranking."""
        rels = _shallow_first(await indexable_files(ctx, big))
        index = await asyncio.to_thread(tags_for, big, rels, TagCache.default())
        return await asyncio.to_thread(repo_map, index.files, 1000)

    cold = _timed(build())
    code_index._MEMO.clear()  # a new session's: from the cache on disk, not this process
    warm = _timed(build())
    table.add("map build, cold", f"{cold:.1f} s", "", "", None)
    table.add("map build, warm (cache)", f"{warm * 1000:.0f} ms", "", "1 s", warm <= 1)


def scale_bench(table: Table, files: int = 100_000, n: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp, fake_server("--echo") as url:
        tmp_path = Path(tmp)
        home = tmp_path / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)  # the tag cache of this run, not the user's
        os.environ["AGENT_CACHE_DIR"] = str(tmp_path / "cache")
        t0 = time.perf_counter()
        big = generate(tmp_path / "big", files)
        small = generate(tmp_path / "small", 50)
        table.add(
            f"generated repository ({files:,} files)",
            f"{time.perf_counter() - t0:.0f} s",
            "",
            "",
            None,
        )
        _inside(table, big)
        _oneshots(table, big, small, url, home, n)


if __name__ == "__main__":
    t = Table()
    scale_bench(t, int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print(t.markdown())
