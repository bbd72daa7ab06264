"""`python -m agent` in a real pseudo-terminal (pexpect), its screen kept by a VT emulator (pyte).

prompt_toolkit redraws only the cells that change, so raw output is no place to look for text:
the tests read the emulated screen instead. The emulator also answers cursor-position requests
the way a real terminal does.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pexpect
import pyte

ROWS, COLS = 40, 110
SHIFT_TAB = "\x1b[Z"

READY = "shift-tab"  # in the bottom toolbar: the prompt is up


class Term:
    def __init__(self, env: dict[str, str], cwd: Path, *args: str) -> None:
        self.screen = pyte.HistoryScreen(COLS, ROWS, history=2000)
        self.screen.set_mode(pyte.modes.LNM)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "agent", *args],
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(COLS), "LINES": str(ROWS)},
            cwd=str(cwd),
            dimensions=(ROWS, COLS),
        )
        self.screen.write_process_input = self.child.send  # type: ignore[method-assign]

    def pump(self, wait: float = 0.05) -> None:
        """Feed whatever the program wrote (waiting up to `wait` for the first bytes)."""
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=wait)
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                return
            self.raw += data
            self.stream.feed(data)
            wait = 0.01

    def text(self) -> str:
        """Scrollback and screen, one string, trailing spaces cut."""
        top = ["".join(c.data for c in row.values()) for row in self.screen.history.top]
        lines = [ln.rstrip() for ln in top] + [ln.rstrip() for ln in self.screen.display]
        return "\n".join(lines)

    def bottom(self) -> str:
        return self.screen.display[-1].rstrip()

    def wait_for(self, needle: str, timeout: float = 30.0, where: str = "text") -> str:
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            shown = self.text() if where == "text" else self.bottom()
            if needle in shown:
                return shown
            if time.monotonic() > deadline or (not self.child.isalive() and not self._more()):
                raise AssertionError(
                    f"{needle!r} not shown within {timeout}s; screen:\n{self.text()}"
                )

    def _more(self) -> bool:
        before = len(self.raw)
        self.pump(0.2)
        return len(self.raw) > before

    def count(self, needle: str) -> int:
        self.pump()
        return self.text().count(needle)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def answer(self, key: str) -> None:
        """Answer a permission prompt as a person does: after a pause (keys pressed the moment
        it appears are taken for typing and kept, not as the answer)."""
        time.sleep(0.6)
        self.child.send(key)

    def type(self, line: str) -> None:
        """Type a line and press Enter (a carriage return, as a terminal sends it)."""
        self.child.send(line)
        time.sleep(0.05)  # let the keys land separately from Enter (no paste detection)
        self.child.send("\r")

    def wait_exit(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self.pump(0.1)
        self.pump(0.05)
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def plain_repl(env: dict[str, str], cwd: Path, *args: str) -> pexpect.spawn:
    """The agent with stdout piped (so it falls back to the plain REPL), stdin a terminal."""
    line = " ".join([sys.executable, "-m", "agent", *args, "| cat"])
    return pexpect.spawn("bash", ["-c", line], env=env, cwd=str(cwd))
