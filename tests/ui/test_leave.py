"""The process ends once the run is over: output flushed and exit handlers run, with no wait
for the interpreter's teardown or for threads whose work no longer matters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAM = """
import atexit, sys, threading, time
from agent.ui.process import leave
atexit.register(lambda: open(sys.argv[1], "w").write("swept"))
threading.Thread(target=time.sleep, args=(600,)).start()  # not a daemon: exit would wait
sys.stdout.write("answer without a newline")  # still in the buffer
sys.stderr.write("a warning")
leave(7)
"""


def test_leave_flushes_runs_exit_handlers_and_waits_for_no_thread(tmp_path: Path) -> None:
    swept = tmp_path / "swept"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(swept)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 7
    assert done.stdout == "answer without a newline"
    assert done.stderr == "a warning"
    assert swept.read_text() == "swept"


def test_a_reader_gone_does_not_stop_it(tmp_path: Path) -> None:
    program = PROGRAM.replace(
        'sys.stdout.write("answer without a newline")',
        'try:\n    sys.stdout.write("x" * 100_000)\nexcept BrokenPipeError:\n    pass',
    )  # the agent's own writes stop quietly (PipeOut); what is left in the buffer is dropped
    proc = subprocess.Popen(
        [sys.executable, "-c", program, str(tmp_path / "swept")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # `agent … | head -c0`
    assert proc.wait(timeout=60) == 7
    assert (tmp_path / "swept").read_text() == "swept"
