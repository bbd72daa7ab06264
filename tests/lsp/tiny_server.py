"""A tiny language server over stdio, for what the real ones cannot be made to do on cue:
it pushes diagnostics (every line holding BAD is an error, WARN a warning) with the document's
version, and answers nothing else. `--needs PORT` makes it reach a local service first (as a
server that asks a daemon or a registry does) and exit when it cannot: the sandbox has no
network.
`--garbage` answers `initialize` with a frame that is no JSON."""

from __future__ import annotations

import json
import socket
import sys
from typing import Any


def read() -> dict[str, Any] | None:
    length = -1
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(sys.stdin.buffer.read(length))
    return message


def send(message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def publish(uri: str, version: int, text: str) -> None:
    found = []
    for n, line in enumerate(text.splitlines()):
        for word, severity in (("BAD", 1), ("WARN", 2)):
            if word in line:
                span = {"line": n, "character": line.index(word)}
                where = {"start": span, "end": span}
                said = {"code": word.lower(), "message": f"{word} here", "source": "tiny"}
                found.append({"range": where, "severity": severity, **said})
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": found}})  # fmt: skip


def main() -> int:
    if "--needs" in sys.argv:
        port = int(sys.argv[sys.argv.index("--needs") + 1])
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        except OSError as e:
            print(f"cannot reach my service: {e}", file=sys.stderr)
            return 3
    while (m := read()) is not None:
        method, params = m.get("method"), m.get("params") or {}
        if method == "initialize":
            if "--garbage" in sys.argv:
                sys.stdout.buffer.write(b"Content-Length: 5\r\n\r\n{oops")
                sys.stdout.buffer.flush()
                continue
            send(
                {
                    "jsonrpc": "2.0",
                    "id": m["id"],
                    "result": {"capabilities": {"textDocumentSync": 1}},
                }
            )
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        elif method == "exit":
            return 0
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            publish(doc["uri"], doc["version"], doc["text"])
        elif method == "textDocument/didChange":
            doc = params["textDocument"]
            publish(doc["uri"], doc["version"], params["contentChanges"][-1]["text"])
        elif "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
