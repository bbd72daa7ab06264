"""`decide` against a 200-rule configuration (budget: 0.2 ms per call, median)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Table

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("bash", {"command": "FOO=1 npm test -- --watch=false && git status | tee out.log"}),
    ("bash", {"command": "rg -n 'def main' src && sed -n 1,40p src/app.py"}),
    ("bash", {"command": "echo $(curl -s https://example.com) > /tmp/x"}),
    ("write_file", {"path": "src/pkg/module.py", "content": "x = 1\n"}),
    ("edit_file", {"path": "../elsewhere/notes.md", "old_string": "a", "new_string": "b"}),
    ("read_file", {"path": "src/app.py"}),
    ("grep", {"pattern": "TODO", "path": "src", "glob": "*.py"}),
    ("web_fetch", {"url": "https://docs.python.org/3/library/asyncio.html"}),
    ("mcp__github__create_issue", {"title": "x"}),
]


def rules_200() -> dict[str, Any]:
    """A large but realistic configuration: prefixes, exact commands, paths, domains, MCP."""
    allow = [f"bash(tool{i} run:*)" for i in range(60)]
    allow += [f"bash(make target{i})" for i in range(30)]
    allow += [f"write_file(pkg{i}/**)" for i in range(20)]
    allow += [f"edit_file(*.ext{i})" for i in range(10)]
    allow += [f"web_fetch(domain:site{i}.example.org)" for i in range(15)]
    allow += [f"mcp__server{i}" for i in range(5)]
    allow += [
        "bash(npm test:*)",
        "bash(git status)",
        "write_file(src/**)",
        "web_fetch(domain:docs.python.org)",
    ]
    deny = [f"bash(danger{i}:*)" for i in range(30)] + [
        f"write_file(secret{i}/**)" for i in range(10)
    ]
    ask = [f"bash(git push{i}:*)" for i in range(16)]
    assert len(allow) + len(deny) + len(ask) == 200
    return {"alwaysAllow": allow, "neverAllow": deny, "ask": ask}


def _per_call(fn: Any, n: int) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def decide_bench(table: Table, n: int) -> None:
    from agent.base.record import Tool, ToolResult
    from agent.permissions.decide import decide

    async def run(args: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult("")

    ro = {"read_file", "grep"}
    tools = {name: Tool(name, "", {}, run, read_only=name in ro) for name, _ in CALLS}
    rules = rules_200()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "src").mkdir()
        (ws / "src" / "app.py").write_text("print(1)\n")
        reps = max(200, n * 100)
        for name, args in CALLS:  # warm: parser, rule compilation, wcmatch
            decide(rules, "default", tools[name], args, ws)
            decide({}, "default", tools[name], args, ws)
        medians, bases = [], []
        for name, args in CALLS:
            tool = tools[name]
            medians.append(
                _per_call(lambda t=tool, a=args: decide(rules, "default", t, a, ws), reps)
            )
            bases.append(_per_call(lambda t=tool, a=args: decide({}, "default", t, a, ws), reps))
    med, base, worst = statistics.median(medians), statistics.median(bases), max(medians)
    table.add(
        "decide, 200 rules (median per call)",
        f"{med * 1e3:.3f} ms",
        f"no rules {base * 1e3:.3f} ms",
        "0.2 ms",
        med <= 0.0002,
    )
    table.add("decide, 200 rules (slowest call kind)", f"{worst * 1e3:.3f} ms", "", "—", None)


def recursive_bench(table: Table, files: int = 5000) -> None:
    """`grep -rn` is judged by walking what it would read: that walk against grep's own run."""
    import subprocess

    from agent.base.record import Tool, ToolResult
    from agent.permissions.decide import decide

    async def run(args: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult("")

    bash = Tool("bash", "", {}, run)
    args = {"command": "grep -rn NEEDLE ."}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        for i in range(files):
            d = ws / f"pkg{i % 50}" / f"mod{i % 7}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"f{i}.py").write_text("def f():\n    return 1\n" * 20)
        assert decide({}, "default", bash, args, ws).kind == "allow"
        check = _per_call(lambda: decide({}, "default", bash, args, ws), 15)
        grep = _per_call(lambda: subprocess.run(["grep", "-rn", "NEEDLE", "."], cwd=ws), 5)
    table.add(
        f"decide `grep -rn` over {files} files (walk for secrets)",
        f"{check * 1e3:.1f} ms",
        f"grep itself {grep * 1e3:.1f} ms ({check / grep:.2f}×)",
        "< grep",
        check < grep,
    )


if __name__ == "__main__":
    t = Table()
    decide_bench(t, 11)
    recursive_bench(t)
    print(t.markdown())
