"""The main suite under a CPU hog on every core, several times in a row: the proof that the
suite passes on a slow, busy machine (issue 40), not only on a quiet one.

    python scripts/stress.py            # 3 runs of `pytest -q`, a busy loop per core
    python scripts/stress.py --runs 1 -- tests/ui   # other pytest arguments after --

Each run's wall time and outcome are printed, then one line for all; the exit code is 1 when
any run failed. Run it inside the test environment (`pip install -e '.[test]'`), in a
checkout: it changes nothing but the machine's load while it runs.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOG = "while True: pass"


def hogs(n: int) -> list[subprocess.Popen[bytes]]:
    """One busy process per core, at normal priority: each takes a full share of a CPU."""
    return [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(n)]


def run_suite(extra: list[str]) -> tuple[int, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", *extra], cwd=ROOT)
    return done.returncode, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs in a row (default 3)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="busy loops")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the busy loops end with us
    busy = hogs(args.cores)
    results: list[tuple[int, float]] = []
    try:
        for i in range(1, args.runs + 1):
            code, took = run_suite(args.pytest_args)
            results.append((code, took))
            print(f"stress run {i}/{args.runs}: exit {code} in {took / 60:.1f} min", flush=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    failed = sum(1 for code, _ in results if code != 0)
    times = ", ".join(f"{took / 60:.1f}" for _, took in results)
    print(f"stress: {len(results) - failed} of {len(results)} runs passed under {args.cores} "
          f"busy loop(s); minutes: {times}")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
