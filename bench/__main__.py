"""`python -m bench [--quick]`: run every benchmark and print a markdown table of figures."""

from __future__ import annotations

import argparse
import platform
import sys
import time

from bench import permissions, prompt, spine
from bench.common import Table


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m bench")
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = p.parse_args()
    n = 5 if args.quick else 11
    table = Table()
    print(f"bench: {platform.platform()}, Python {platform.python_version()}", file=sys.stderr)
    t0 = time.monotonic()
    spine.startup(table, n * 2)
    spine.oneshot(table, n)
    spine.streaming(table, max(3, n // 2))
    prompt.prompt_bench(table)
    permissions.decide_bench(table, 2000)
    cpu = platform.processor() or platform.machine()
    stamp = f"{time.strftime('%Y-%m-%d')} · {platform.node()} · {cpu}"
    print(f"\n{stamp} · Python {platform.python_version()} · {time.monotonic() - t0:.0f} s\n")
    print(table.markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
