"""`python -m agent ARGS` for the tests, started by fork from a process that has imported the
agent and its libraries once (a "zygote"), instead of by exec.

Hundreds of tests run the agent as a user does: its own process, its own stdin, stdout and
stderr, environment, working folder and exit code. Each exec spent 0.8 s of CPU importing
openai, pydantic models and the agent before doing anything, over half of the suite's CPU. A
forked child gets everything a real start gets (a new process; real pipes, /dev/null for a
closed stdin; the environment, folder and arguments it was given; `agent.__main__` run as
`python -m agent` runs it; the interpreter's normal exit with its threads and atexit), except
that its modules are already imported (nothing in `agent` reads the environment at import).
What only a real start shows is tested with real starts: the REPL in a pseudo-terminal, the
editor and MCP server modes, `--version` without heavy imports, the real-server suite.

One zygote per test process, started on first use; a second caller at the same time, or an
environment that changes how the interpreter starts (PYTHON*, the locale), gets a real exec.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Variables the interpreter reads as it starts: a child that needs others than the zygote's
# is started for real.
_STARTUP = ("PYTHON", "LC_", "LANG")
_WARM = ("agent.cli", "agent.app", "agent.ui.oneshot", "openai", "mcp")


def _startup_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP)}


class Zygote:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            cwd=Path(__file__).parent, env=self.env,
        )  # fmt: skip
        theirs.close()
        self.lock = threading.Lock()
        self.ready = self.sock.recv(64) == b"ready"

    def fits(self, env: dict[str, str]) -> bool:
        return self.ready and _startup_env(env) == _startup_env(self.env)

    def run(
        self, env: dict[str, str], cwd: Path, args: list[str], stdin: str | None, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """What `subprocess.run(python -m agent ARGS, capture_output=True, text=True)` gives."""
        r_in, w_in = os.pipe() if stdin is not None else (os.open(os.devnull, os.O_RDONLY), -1)
        r_out, w_out = os.pipe()
        r_err, w_err = os.pipe()
        request = json.dumps({"env": env, "cwd": str(cwd), "args": args}).encode()
        try:
            socket.send_fds(self.sock, [request], [r_in, w_out, w_err])
        finally:
            for fd in (r_in, w_out, w_err):
                os.close(fd)
        pid = int(self.sock.recv(64))
        deadline = time.monotonic() + timeout
        out, err = _communicate(w_in, stdin, r_out, r_err, deadline)
        if out is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self.sock.recv(64)  # the zygote reaped it
            raise subprocess.TimeoutExpired(["agent", *args], timeout)
        self.sock.settimeout(max(deadline - time.monotonic(), 0.1))
        try:
            code = int(self.sock.recv(64))
        except TimeoutError:  # its outputs ended, the process lives on: as subprocess.run
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self.sock.settimeout(None)
            self.sock.recv(64)
            raise subprocess.TimeoutExpired(["agent", *args], timeout) from None
        finally:
            self.sock.settimeout(None)
        return subprocess.CompletedProcess(["agent", *args], code, _text(out), _text(err or b""))

    def close(self) -> None:
        self.sock.close()  # the zygote sees the end and leaves
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _text(data: bytes) -> str:
    """As text=True decodes: the locale's encoding (UTF-8 here), universal newlines."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _communicate(
    w_in: int, stdin: str | None, r_out: int, r_err: int, deadline: float
) -> tuple[bytes | None, bytes | None]:
    """Write `stdin`, read both outputs to their end; (None, None) when `deadline` passes."""
    pending = stdin.encode() if stdin is not None else b""
    chunks: dict[int, list[bytes]] = {r_out: [], r_err: []}
    sel = selectors.DefaultSelector()
    sel.register(r_out, selectors.EVENT_READ)
    sel.register(r_err, selectors.EVENT_READ)
    if w_in >= 0:
        if pending:
            os.set_blocking(w_in, False)
            sel.register(w_in, selectors.EVENT_WRITE)
        else:
            os.close(w_in)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return None, None
            for key, _ in sel.select(min(left, 1.0)):
                fd = int(key.fd)
                if fd == w_in:
                    try:
                        pending = pending[os.write(fd, pending[:65536]) :]
                    except BrokenPipeError:
                        pending = b""
                    if not pending:
                        sel.unregister(fd)
                        os.close(fd)
                    continue
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    sel.unregister(fd)
        return b"".join(chunks[r_out]), b"".join(chunks[r_err])
    finally:
        for fd in list(sel.get_map()):
            with contextlib.suppress(OSError):
                os.close(fd)
        sel.close()
        for fd in (r_out, r_err):
            with contextlib.suppress(OSError):
                os.close(fd)


_ZYGOTE: list[Zygote] = []


def zygote() -> Zygote | None:
    """This process's zygote (started on first use), None when it could not start or
    AGENT_TESTS_EXEC=1 asks for a real exec every time."""
    if os.environ.get("AGENT_TESTS_EXEC") == "1":
        return None
    if not _ZYGOTE:
        z = Zygote()
        _ZYGOTE.append(z)
    return _ZYGOTE[0] if _ZYGOTE[0].ready else None


def close() -> None:
    while _ZYGOTE:
        _ZYGOTE.pop().close()


# -- the zygote itself ---------------------------------------------------------------------


def _serve(sock: socket.socket) -> dict[str, Any] | None:
    """Fork a child per request; in the child, return its request (None: the tests ended)."""
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
        except OSError:
            return None
        if not msg:
            return None
        pid = os.fork()
        if pid == 0:
            sock.close()
            request: dict[str, Any] = json.loads(msg)
            request["fds"] = fds
            return request
        for fd in fds:
            os.close(fd)
        sock.send(str(pid).encode())
        _, status = os.waitpid(pid, 0)
        sock.send(str(os.waitstatus_to_exitcode(status)).encode())


def _become(request: dict[str, Any]) -> None:
    """The forked child turns into `python -m agent ARGS` started in the request's folder."""
    for target, fd in enumerate(request["fds"]):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    sys.path.insert(0, request["cwd"])  # as `python -m` puts it first


if __name__ == "__main__":
    import importlib
    import runpy

    channel = socket.socket(fileno=int(sys.argv[1]))
    sys.path.pop(0)  # this folder: the agent's imports must not see the tests' modules
    for name in _WARM:
        importlib.import_module(name)
    if threading.active_count() != 1:  # an import started a thread: forking is not safe
        sys.exit(1)
    channel.send(b"ready")
    job = _serve(channel)
    if job is None:
        sys.exit(0)
    _become(job)
    sys.argv = ["-m", *job["args"]]
    runpy.run_module("agent", run_name="__main__", alter_sys=True)
