"""Time from launching `agent` in a pseudo-terminal to its first prompt (budget: 300 ms)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.common import Table, agent_env, fake_server, stat

PY = sys.executable
MARKER = "shift-tab"  # in the bottom toolbar, drawn with the prompt
CPR = "\x1b\\[6n"  # "where is the cursor?"
FLOOR_SCRIPT = """
from prompt_toolkit import PromptSession
PromptSession().prompt("> ", bottom_toolbar="shift-tab")
"""


def first_prompt(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds from spawn until MARKER is on the terminal; then Ctrl-D.

    Cursor-position requests are answered as a terminal would (prompt_toolkit waits for them
    before it draws the toolbar)."""
    import pexpect

    t0 = time.perf_counter()
    child = pexpect.spawn(PY, args, env=env, cwd=str(cwd), dimensions=(40, 120))
    try:
        while child.expect([CPR, MARKER], timeout=30) == 0:
            child.send("\x1b[1;1R")
        dt = time.perf_counter() - t0
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    return dt


def repl_bench(table: Table, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, fake_server("--echo") as url:
        home = Path(tmp) / "home"
        home.mkdir()
        proj = Path(tmp) / "proj"
        proj.mkdir()
        (proj / "README.md").write_text("# demo\n")
        env = {**agent_env(url, home), "TERM": "xterm-256color"}
        script = Path(tmp) / "floor.py"
        script.write_text(FLOOR_SCRIPT)
        floor_s, agent_s = [], []
        for _ in range(n):  # interleaved, so drift hits both alike
            floor_s.append(first_prompt([str(script)], env, proj))
            agent_s.append(first_prompt(["-m", "agent"], env, proj))
        floor, agent = stat(floor_s), stat(agent_s)
        table.add(
            "REPL first prompt",
            agent.fmt(),
            f"bare prompt_toolkit prompt {floor.fmt()}",
            "300 ms",
            agent.median <= 0.300,
        )


if __name__ == "__main__":
    t = Table()
    repl_bench(t, int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    print(t.markdown())
