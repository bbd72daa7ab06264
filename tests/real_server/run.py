"""The real-server suite, as `.ci/run` runs it after the main suite: build llama-server once
(tests/real_server/build_llama.py, cached), then the tests marked real_server. When the build
tools are missing it says why and skips, exit 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    built = subprocess.run([sys.executable, str(HERE / "build_llama.py")])
    if built.returncode == 3:  # build_llama.MISSING_TOOLS: it printed why
        print("real-server suite skipped: the build tools are missing (see above)")
        return 0
    if built.returncode != 0:
        return built.returncode
    # one process: the tests share one llama-server, and it wants the cores to itself
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"]
    cmd += ["--durations", "10", "-m", "real_server"]
    return subprocess.run([*cmd, str(HERE)]).returncode


if __name__ == "__main__":
    sys.exit(main())
