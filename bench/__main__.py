"""`python -m bench [--quick] [--no-footprint]`: every benchmark, printed as a markdown table.

Figures are medians with min–max over repeated runs, each beside a baseline measured in the
same run on the same machine, and marked within / OVER their budget.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time

from bench import (
    acpbench,
    codebench,
    economy,
    editbench,
    extra,
    hostile,
    loopbench,
    lsp,
    permissions,
    prompt,
    sandbench,
    scale,
    spine,
    steps,
    storebench,
    toolbench,
    toolsearch,
)
from bench.common import Table


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m bench")
    p.add_argument("--quick", action="store_true", help="fewer repetitions, smaller trees")
    p.add_argument("--no-footprint", action="store_true", help="skip the fresh-venv install")
    args = p.parse_args()
    n = 5 if args.quick else 11
    table = Table()
    print(f"bench: {platform.platform()}, Python {platform.python_version()}", file=sys.stderr)
    t0 = time.monotonic()
    spine.startup(table, n * 2)
    _repl(table, n)
    spine.oneshot(table, n)
    extra.read_then_answer(table, n)
    loopbench.loop_bench(table, max(3, n // 2))
    steps.steps_bench(table, 100 if args.quick else 400)
    economy.economy_bench(table)
    toolsearch.toolsearch_bench(table)
    codebench.code_bench(table, n)
    lsp.lsp_bench(table)
    hostile.hostile_bench(table)
    editbench.edit_bench(table)
    acpbench.acp_bench(table, max(3, n // 2))
    sandbench.sandbox_bench(table, max(15, n * 3))
    spine.streaming(table, max(3, n // 2))
    prompt.prompt_bench(table)
    toolbench.tool_bench_isolated(table, max(5, n // 2), 10_000 if args.quick else 50_000)
    scale.scale_bench(table, 10_000 if args.quick else 100_000, max(3, n // 2))
    permissions.decide_bench(table, 2000)
    permissions.recursive_bench(table)
    storebench.store_bench(table)
    extra.import_breakdown(table)
    if not args.no_footprint:
        extra.footprint(table)
    cpu = platform.processor() or platform.machine()
    stamp = f"{time.strftime('%Y-%m-%d')} · {platform.node()} · {cpu}"
    print(f"\n{stamp} · Python {platform.python_version()} · {time.monotonic() - t0:.0f} s\n")
    print(table.markdown())
    return 0


def _repl(table: Table, n: int) -> None:
    try:
        repl = importlib.import_module("bench.repl")
    except ModuleNotFoundError:
        table.add("REPL first prompt", "not measured (bench/repl.py missing)", "", "300 ms", None)
        return
    repl.repl_bench(table, n)


if __name__ == "__main__":
    raise SystemExit(main())
