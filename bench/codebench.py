"""Code intelligence (issue 24): the outline of a 3,000-line file, the repository map of a
generated 2,000-file tree in six languages cold (empty cache) and warm (a new session: this
process's memory empty, the cache full), and the input tokens of a scripted "find where X is
defined and change it" task with outline/symbols against read_file/grep only.

The task runs the real agent against the fake server, in a copy of a real tree (rich, from
the environment), with the same edit at the end; "before" is grep (content) then read_file of
the whole file, as peers do; "after" is symbols then read_file of the definition's range, with
the repository map in the first message. Tokens: every request, sized by the agent's estimator.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table, stat

sys.path.insert(0, str(ROOT / "tests"))


def _big_file(lines: int) -> bytes:
    out = ['"""A generated module."""', "", "import os", ""]
    i = 0
    while len(out) < lines:
        out += [f"class Model{i}(Base):", f'    """Model {i}."""', ""]
        for j in range(8):
            out += [
                f"    def method_{j}(self, value: int, scale: float = 1.5) -> float:",
                f"        result = helper_{j}(value) * scale + {i}",
                "        if result > 100:",
                "            result = result / 2",
                "        return result",
                "",
            ]
        i += 1
    return ("\n".join(out[:lines]) + "\n").encode()


def outline_bench(table: Table, n: int) -> None:
    from agent.code.languages import lang_of
    from agent.code.outline import file_outline
    from agent.code.tags import extract

    src = _big_file(3000)
    lang = lang_of("big.py")
    assert lang is not None
    extract(lang, src)  # the grammar loads once per process
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        tags = extract(lang, src)
        assert tags is not None
        file_outline("big.py", tags)
        samples.append(time.perf_counter() - t0)
    s = stat(samples)
    table.add(
        "outline of a 3,000-line file (parse + render)",
        f"{s.fmt()}, {len(tags.defs)} definitions",
        "",
        "50 ms",
        s.median <= 0.05,
    )


_LANGS = {
    ".py": "def {f}(x):\n    return {g}(x) + 1\n\n\nclass {C}:\n"
           "    def run(self):\n        return {f}(2)\n",
    ".js": "export function {f}(x) {{\n  return {g}(x) + 1;\n}}\n"
           "export class {C} {{\n  run() {{ return {f}(2); }}\n}}\n",
    ".ts": "export function {f}(x: number): number {{\n  return {g}(x) + 1;\n}}\n"
           "export interface {C} {{\n  run(): number;\n}}\n",
    ".go": "package p\n\nfunc {f}(x int) int {{\n\treturn {g}(x) + 1\n}}\n\n"
           "type {C} struct {{\n\tN int\n}}\n",
    ".rs": "pub fn {f}(x: i32) -> i32 {{\n    {g}(x) + 1\n}}\n\n"
           "pub struct {C} {{\n    n: i32,\n}}\n",
    ".java": "class {C} {{\n  int {f}(int x) {{\n    return {g}(x) + 1;\n  }}\n}}\n",
}  # fmt: skip


def _tree(root: Path, files: int) -> None:
    """`files` files over six languages, each ~60 lines, calling functions of other files."""
    rnd = random.Random(5)
    exts = list(_LANGS)
    for i in range(files):
        ext = exts[i % len(exts)]
        body = []
        for k in range(6):
            g = f"fn_{rnd.randrange(files)}_{rnd.randrange(6)}"
            body.append(_LANGS[ext].format(f=f"fn_{i}_{k}", g=g, C=f"Type{i}_{k}"))
        path = root / f"pkg{i % 40}" / f"mod{i}{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(body))


async def _map_once(root: Path) -> tuple[float, str, int]:
    from agent.base.record import ToolContext
    from agent.code.cache import TagCache
    from agent.code.index import tags_for
    from agent.code.repomap import repo_map
    from agent.tools.shared.listing import indexable_files

    t0 = time.perf_counter()
    rels = await indexable_files(ToolContext(cwd=root), root)  # what the map reads
    index = tags_for(root, rels, TagCache.default())
    text = repo_map(index.files, 1000)
    return time.perf_counter() - t0, text, index.parsed


_WARM = """
import asyncio, sys, time
from pathlib import Path
t0 = time.perf_counter()
from bench.codebench import _map_once
took, text, parsed = asyncio.run(_map_once(Path(sys.argv[1])))
assert parsed == 0, parsed
print(time.perf_counter() - t0)
"""


def map_bench(table: Table, n: int, files: int = 2000) -> None:
    """Cold: the cache emptied before each run (this process's grammars already loaded).
    Warm: a new process each run, as a new session is: imports of agent.code, grammar
    stamps, the listing, the cache, the ranking; the interpreter's own start not counted."""
    import os
    import subprocess

    from agent.code import index

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        _tree(root, files)
        os.environ["AGENT_CACHE_DIR"] = str(Path(tmp) / "cache")
        cold, warm = [], []
        for _ in range(max(2, n // 3)):
            shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
            index._MEMO.clear()
            took, _, parsed = asyncio.run(_map_once(root))
            assert parsed >= files * 0.99, parsed
            cold.append(took)
        for _ in range(n):
            out = subprocess.run(
                [sys.executable, "-c", _WARM, str(root)],
                capture_output=True, text=True, check=True, cwd=ROOT,
            )  # fmt: skip
            warm.append(float(out.stdout.strip()))
        del os.environ["AGENT_CACHE_DIR"]
    c, w = stat(cold), stat(warm)
    table.add(f"repo map, {files} files, cold", c.fmt(), "", "3 s", c.median <= 3.0)
    table.add(
        f"repo map, {files} files, warm (new session)", w.fmt(), "", "300 ms", w.median <= 0.3
    )


@dataclass(frozen=True)
class Task:
    """Change the definition of `name` (file, lines) and two calls of it in other files."""

    name: str
    rel: str
    first: int
    last: int
    callers: tuple[tuple[str, int], ...]


def _tasks(root: Path, count: int = 5) -> list[Task]:
    """Functions and methods of 8-60 lines in files over 300 lines, called from two other
    files: the first `count` by name (the same every run)."""
    from agent.code.cache import TagCache
    from agent.code.index import tags_for

    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    files = tags_for(root, rels, TagCache(None)).files
    homes: dict[str, list[str]] = {}
    for rel, tags in files.items():
        for d in tags.defs:
            homes.setdefault(d.name, []).append(rel)
    found = []
    for rel, tags in sorted(files.items()):
        for d in tags.defs:
            if d.kind not in ("function", "method") or len(homes[d.name]) > 1:
                continue
            if not (8 <= d.end - d.line <= 60 and tags.lines > 300 and len(d.name) > 6):
                continue
            calls = []
            for other, t in sorted(files.items()):
                whole = (root / other).read_text()
                text = whole.splitlines()
                lines = [
                    n
                    for n in t.refs.get(d.name, ())
                    if f"{d.name}(" in text[n - 1] and whole.count(text[n - 1]) == 1
                ]
                if other != rel and lines:
                    calls.append((other, lines[0]))
            if len(calls) >= 2:
                found.append(Task(d.name, rel, d.line, d.end, tuple(calls[:2])))
    return sorted(found, key=lambda t: t.name)[:count]


def _edit(root: Path, rel: str, line: int) -> tuple[str, dict[str, Any]]:
    old = (root / rel).read_text().splitlines()[line - 1]
    return ("edit_file", {"path": rel, "old_string": old, "new_string": old + "  # changed"})


def _script(root: Path, task: Task, code_tools: bool) -> list[tuple[str, dict[str, Any]]]:
    """The calls of one run: "before" as peers work (grep, whole files); "after" with symbols
    (definition range, callers' lines) and reads of just those ranges."""
    steps: list[tuple[str, dict[str, Any]]] = []
    if code_tools:
        steps.append(("symbols", {"name": task.name}))
        limit = task.last - task.first + 1
        steps.append(("read_file", {"path": task.rel, "offset": task.first, "limit": limit}))
    else:
        steps.append(("grep", {"pattern": f"def {task.name}\\b", "output_mode": "content"}))
        steps.append(("read_file", {"path": task.rel}))
    steps.append(_edit(root, task.rel, task.first))
    if not code_tools:
        steps.append(("grep", {"pattern": f"{task.name}\\(", "output_mode": "content"}))
    for rel, line in task.callers:
        window = {"path": rel, "offset": max(line - 5, 1), "limit": 11}
        steps.append(("read_file", window if code_tools else {"path": rel}))
        steps.append(_edit(root, rel, line))
    return steps


async def _task(root: Path, task: Task, code_tools: bool) -> int:
    from fake_openai import FakeOpenAI, text, tool_calls

    from agent.app import build
    from agent.base.events import Recorder
    from agent.base.tokens import estimate_messages, estimate_tools
    from agent.config.load import Flags, load_config

    fake = FakeOpenAI().start()
    steps = _script(root, task, code_tools)
    fake.script(*[tool_calls([s], usage=None, usage_mode=None) for s in steps], text("done"))
    settings: dict[str, Any] = {"repoMap": {"tokens": 0}}  # the same first message in both
    if not code_tools:
        settings["permissions"] = {"neverAllow": ["outline", "symbols"]}
    (root / ".agent").mkdir(exist_ok=True)
    (root / ".agent" / "settings.json").write_text(json.dumps(settings))
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    flags = Flags(permission_mode="bypassPermissions", no_mcp=True, trust_project=True)
    run = build(load_config(flags, env, root), Recorder())
    try:
        end = await run.turn(f"change {task.name} and the calls of it")
        assert end.subtype == "success", end.error
    finally:
        await run.end()
        await run.agent.llm.aclose()
        run.store.close()
        fake.stop()
    results = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    failed = [m["content"] for m in results if str(m["content"]).startswith("Error")]
    assert not failed, failed
    return sum(
        estimate_messages(b["messages"]) + estimate_tools(b.get("tools") or [])
        for b in fake.requests
    )


def task_bench(table: Table) -> None:
    import rich

    before, after = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        shutil.copytree(Path(rich.__file__).parent, base / "rich")
        tasks = _tasks(base, 5)
        assert len(tasks) == 5, tasks
        for task in tasks:
            for code_tools in (False, True):
                root = Path(tmp) / f"{task.name}-{code_tools}"
                shutil.copytree(Path(rich.__file__).parent, root / "rich")
                tokens = asyncio.run(_task(root, task, code_tools))
                after, before = (after + tokens, before) if code_tools else (after, before + tokens)
    saved = 1 - after / before
    table.add(
        "change a definition and two calls x5 (rich), input tokens",
        f"{after:,} with symbols + ranges ({saved:.0%} fewer)",
        f"{before:,} with grep + read_file",
        "40% fewer",
        saved >= 0.4,
    )


def code_bench(table: Table, n: int) -> None:
    outline_bench(table, n)
    map_bench(table, n)
    task_bench(table)


if __name__ == "__main__":
    t = Table()
    code_bench(t, 9)
    print(t.markdown())
