"""A JSON-RPC peer that writes raw lines, anything at all, to a server's stdin (`agent --acp`,
`agent mcp serve`) and reads what it answers: for the tests of malformed input, which no
well-behaved client library can send."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

MALFORMED: list[tuple[bytes, int]] = [  # a line, and the JSON-RPC error code it must get
    (b"[]", -32600),
    (b"null", -32600),
    (b'"text"', -32600),
    (b"42", -32600),
    (b"{}", -32600),
    (b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}]', -32600),  # a batch
    (b'{"jsonrpc": "2.0", "id": [1], "method": "x"}', -32600),
    (b'{"jsonrpc": "2.0", "id": 4, "method": 7}', -32600),
    (b'{"jsonrpc": "2.0", "id": 4}', -32600),
    (b"not json", -32700),
    (b'{"jsonrpc": "2.0", "id": 4, "method"', -32700),
    (b"[" * 200_000, -32700),  # deeper than any parser's recursion
    (b"\xff\xfe\x00garbage", -32700),
]


class RawPeer:
    """The server `cmd` on pipes: lines in, JSON messages out (collected by a thread)."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            cmd, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.early: list[dict[str, Any]] = []  # read while waiting for another id
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.inbox.put(json.loads(line))  # a line that is not JSON fails the test here
        self.inbox.put(None)

    def line(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def send(self, ident: int | None, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if ident is not None:
            msg["id"] = ident
        if params is not None:
            msg["params"] = params
        self.line(json.dumps(msg).encode())

    def reply(self, ident: int | None, timeout: float = 60) -> dict[str, Any]:
        """The next response with this id (notifications and other answers set aside)."""
        for i, msg in enumerate(self.early):
            if "method" not in msg and msg.get("id", "") == ident:
                return self.early.pop(i)
        while True:
            msg = self.inbox.get(timeout=timeout)
            assert msg is not None, "the server closed its output"
            if "method" not in msg and msg.get("id", "") == ident:
                return msg
            self.early.append(msg)

    def call(self, ident: int, method: str, params: Any = None) -> dict[str, Any]:
        self.send(ident, method, params)
        return self.reply(ident)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
