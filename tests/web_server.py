"""A local HTTP server for the web tools' tests: a quiet handler with a `reply` helper, and a
context manager serving it on 127.0.0.1 in a thread (no other network)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def reply(self, status: int, body: bytes, ctype: str | None, **headers: str) -> None:
        self.send_response(status)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def serve(handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1") -> Iterator[str]:
    """`host:port` of a server running `handler` until the block ends (`host`: another loopback
    address, 127.0.0.2, stands for a second machine)."""
    httpd = ThreadingHTTPServer((host, 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"{host}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
