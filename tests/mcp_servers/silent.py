"""A "dead" MCP server: it starts, reads its stdin and never answers `initialize`."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    if os.environ.get("MCP_SILENT_STUBBORN"):  # ignores SIGTERM: only SIGKILL ends it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pidfile = os.environ.get("MCP_SILENT_PIDFILE")
    if pidfile:
        Path(pidfile).write_text(str(os.getpid()))
    print("silent server: up, and never answering", file=sys.stderr, flush=True)
    while True:
        time.sleep(3600)
