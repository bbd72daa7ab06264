"""The sandbox's own files, and the placeholders it leaves in a project only while it runs.

bubblewrap mounts over something that exists, so a protected folder that does not exist yet
(`.claude/`, `.git/` of a folder that is no repository) is held by an empty folder made in the
project when a command starts (git does not show an empty folder). It must go again, but only
once no sandboxed command runs: removing it under a running sandbox would lift that sandbox's
mount there (the kernel detaches a mount whose place is removed from another namespace). Every
sandboxed command holds a lock on one file (`bwrap --lock-file`) for as long as any of its
processes lives; a thread of the agent's removes the placeholders it recorded once that lock is
free (asked with F_GETLK, which takes no lock) — only folders still empty (rmdir refuses one
with anything in it), never through a link, so nothing of the user's goes. The record is shared
by the sessions of one state directory: placeholders recorded by an agent that was killed, or
that ended while another's command ran, are removed by the next one.

Its files, in `<state dir>/sandbox/` (hidden from commands like the rest of the state): the
lock, an empty file that hides a secret file, and the seccomp program bwrap reads.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import struct
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.config import safefile
from agent.config.statedir import ensure_home
from agent.sandbox import seccomp

FOLDER = "sandbox"
POLL = 0.1  # seconds between looks at the lock while placeholders are out
GRACE = 5.0  # a command not seen holding the lock by then is taken as started already


@dataclass(frozen=True)
class Support:
    """Paths of the sandbox's own files (real paths)."""

    lock: str
    empty: str
    seccomp: str  # "" where this machine has no filter (sockets are masked instead)
    record: str


def prepare() -> Support | None:
    """Make (or mend) the sandbox's files; None when the state directory cannot hold them."""
    try:
        home = ensure_home()
        top = home / FOLDER
        safefile.make_dirs(home, top)
        os.chmod(top, 0o700)
        _ensure(home, top / "live.lock", b"")
        _ensure(home, top / "empty", b"")
        bpf = ""
        if seccomp.supported():
            program = seccomp.program()
            path = top / f"seccomp-{seccomp.machine()}.bpf"
            _ensure(home, path, program)
            bpf = str(path)
        return Support(str(top / "live.lock"), str(top / "empty"), bpf, str(top / "made.json"))
    except OSError:
        return None


def _ensure(home: Path, path: Path, data: bytes) -> None:
    """`path` holds exactly `data` (rewritten when not), read-only for everyone."""
    try:
        if safefile.read_bytes(home, path) == data:
            return
    except FileNotFoundError:
        pass
    safefile.write_atomic(home, path, data, mode=0o444, sync=False)


def running(lock: str) -> bool:
    """Whether a sandboxed command holds the lock now. Asked with F_GETLK, which takes no lock:
    a lock taken to test, even for a moment, would make a bwrap starting then fail to take its
    own."""
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        probe = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
        return struct.unpack(_FLOCK, got)[0] != fcntl.F_UNLCK
    except OSError:
        return True  # cannot tell: leave the placeholders for later
    finally:
        os.close(fd)


_FLOCK = "hhqqi4x"  # struct flock on Linux: type, whence, start, len, pid (64-bit off_t)


class Janitor:
    """Records the placeholders commands are about to get; removes them when none runs."""

    def __init__(self, support: Support) -> None:
        self.support = support
        self._mutex = threading.Lock()
        self._out: set[str] = set(self._read())
        self._started = 0.0  # when the newest command was wrapped
        self._seen = True  # the lock was seen held since then
        self._thread: threading.Thread | None = None
        if self._out:
            self._watch()
        atexit.register(self.sweep)  # after the session's last command ended with it

    def made(self, paths: list[str]) -> None:
        """`paths` are about to be made as placeholders by a command starting now."""
        with self._mutex:
            self._started, self._seen = time.monotonic(), False
            new = [p for p in paths if p not in self._out]
            if new:
                self._out.update(new)
                self._update(add=new)
        self._watch()

    def sweep(self) -> int:
        """Remove the recorded placeholders if no command runs; how many went."""
        with self._mutex:
            if not self._out or running(self.support.lock):
                return 0
            gone = [p for p in sorted(self._out) if _remove_empty(p)]
            self._update(drop=sorted(self._out))
            self._out.clear()
            return len(gone)

    def _watch(self) -> None:
        with self._mutex:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._loop, name="sandbox-janitor", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(POLL)
            with self._mutex:
                if not self._out:
                    return
                busy = running(self.support.lock)
                self._seen = self._seen or busy
                young = not self._seen and time.monotonic() - self._started < GRACE
            if not busy and not young:
                self.sweep()

    def _read(self) -> list[str]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(Path(self.support.record).read_text(encoding="utf-8"))
            if isinstance(data, list):
                return [p for p in data if isinstance(p, str) and os.path.isabs(p)]
        return []

    def _update(self, add: Sequence[str] = (), drop: Sequence[str] = ()) -> None:
        """Add to / drop from the record other sessions share (read, changed, written under a
        lock on it: one session's sweep must not forget another's placeholders)."""
        home = Path(self.support.record).parent.parent
        with contextlib.suppress(OSError), open(self.support.lock, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)  # flock: unrelated to the commands' fcntl lock
            now = [p for p in self._read() if p not in drop]
            text = json.dumps(sorted({*now, *add})).encode("utf-8")
            safefile.write_atomic(home, Path(self.support.record), text, 0o600, sync=False)


def _remove_empty(path: str) -> bool:
    """Remove a placeholder that is still what bubblewrap made: an empty folder (rmdir refuses
    one something was put in), never through a link on the way."""
    parent = os.path.dirname(path)
    if os.path.realpath(parent) != parent or os.path.islink(path):
        return False
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True
