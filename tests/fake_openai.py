"""A scripted OpenAI-compatible chat-completions server speaking real SSE over HTTP/1.1.

Each POST /v1/chat/completions consumes the next scripted Turn (see fake_builders.py).
Streams use chunked transfer encoding, one HTTP chunk per SSE event, so a scripted cut
(closing without the terminating chunk) looks to the client exactly like a dropped connection.

Run as a program: python tests/fake_openai.py --port 0 [--script FILE.json] [--echo]
[--fragments N] prints the base URL on its first stdout line and serves until killed.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import signal
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import fake_builders as fb
from fake_builders import *  # noqa: F403  (re-exported: tests import everything from here)
from fake_builders import Json, Turn

NO_TURN_MESSAGE = "fake: no scripted turn left"
_DONE = b"data: [DONE]\n\n"
_KEEPALIVE = b": keep-alive\n\n"


class _Cut(Exception):
    """The stream ends here without its terminating chunk (scripted cut or server stop)."""


def _frame(payload: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def _event(c: Json | str) -> bytes:
    """One SSE event: a chunk as JSON, or a string sent as it is (a malformed event)."""
    data = c if isinstance(c, str) else json.dumps(c, separators=(",", ":"))
    return _frame(b"data: " + data.encode() + b"\n\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, fake: FakeOpenAI, address: tuple[str, int]) -> None:
        self.fake = fake
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls getfqdn(), a DNS lookup that can take seconds.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread, args=(request, client_address), daemon=True
        )
        self.fake._track(thread, request)
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        self.fake._untrack(request)
        super().shutdown_request(request)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # one small write per event: Nagle would add 40 ms stalls
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        window = self.server.fake.n_ctx
        if path == "/props" and window:  # llama.cpp's server settings
            self._json(200, {"default_generation_settings": {"n_ctx": window}}, {})
        elif path == "/v1/models":
            fake = self.server.fake
            with fake._lock:
                fake.model_list_headers.append({k.lower(): v for k, v in self.headers.items()})
            listed = [{"id": m, "object": "model"} for m in fake.models]
            self._json(200, {"object": "list", "data": listed}, {})
        elif path in ("/props", "/health"):  # asked by clients of real servers: not a surprise
            self._json(404, fb.error(404, "not found").body, {})
        else:
            self._unexpected_path()

    def do_POST(self) -> None:
        fake = self.server.fake
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.split("?")[0].rstrip("/") == "/api/show":  # Ollama's model info
            self._json(404, fb.error(404, "not found").body, {})
            return
        if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
            self._unexpected_path()
            return
        try:
            body = json.loads(data or b"{}")
        except ValueError:
            body = {"_invalid_json": data.decode(errors="replace")}
        headers = {k.lower(): v for k, v in self.headers.items()}
        turn = fake._take(body, headers, len(data))
        if turn is None:
            self._json(500, fb.error(500, NO_TURN_MESSAGE).body, {})
            return
        try:
            self._serve(turn, stream=body.get("stream") is True)
        except _Cut:
            self.close_connection = True
        except OSError:  # the client went away mid-answer
            self.close_connection = True
            fake._bump("disconnects")
        except Exception as exc:  # a bug in the fake or a bad turn: fail the test, not silently
            self.close_connection = True
            fake.errors.append(exc)

    def _unexpected_path(self) -> None:
        self.server.fake._bump("unexpected")
        self._json(404, fb.error(404, f"fake: unexpected {self.command} {self.path}").body, {})

    def _start(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def _json(self, status: int, body: Json | str | None, headers: dict[str, str]) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        length = str(len(data))
        self._start(
            status, {"Content-Type": "application/json", "Content-Length": length, **headers}
        )
        self.wfile.write(data)

    def _serve(self, turn: Turn, *, stream: bool) -> None:
        if turn.status != 200 or turn.body is not None:
            body = fb.error(turn.status).body if turn.body is None else turn.body
            self._json(turn.status, body, turn.headers)
        elif stream:
            self._stream(turn)
        else:
            if turn.stall_after is not None:
                self._pause(turn.stall_seconds)
            data = json.dumps(fb.completion(turn))
            if turn.cut_after is not None:  # promise the whole body, deliver half of it
                self._start(200, {"Content-Length": str(len(data))})
                self.wfile.write(data[: len(data) // 2].encode())
                self._cut()
            self._json(200, data, turn.headers)

    def _stream(self, turn: Turn) -> None:
        sse = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        self._start(200, {**sse, "Transfer-Encoding": "chunked", **turn.headers})
        events = [_frame(_KEEPALIVE)] * turn.keepalive + [_event(c) for c in turn.chunks]
        cut = None if turn.cut_after is None else turn.keepalive + turn.cut_after
        stall = None if turn.stall_after is None else turn.keepalive + turn.stall_after
        for i in range(len(events) + 1):
            if i == stall:
                self._pause(turn.stall_seconds)
            if cut is not None and i >= min(cut, len(events)):
                self._cut()
            if i == len(events):
                break
            if i:
                self._pause(turn.delay)
            self.wfile.write(events[i])  # unbuffered: one send per event
        if turn.done:
            self.wfile.write(_frame(_DONE))
        self.wfile.write(b"0\r\n\r\n")

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self.server.fake._abort.wait(seconds):
            self._cut()

    def _cut(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Cut


class FakeOpenAI:
    """Scripted chat-completions server on 127.0.0.1; each request consumes the next Turn."""

    def __init__(self, port: int = 0, *, default: Turn | None = None) -> None:
        fb.reset_ids()
        self.port = port
        self.default = default  # served when the script is empty (echo mode), else a 500
        self.n_ctx = 0  # the context window /props reports, like llama.cpp (0: no /props)
        self.models = ["fake-model"]  # what GET /v1/models lists
        self.model_list_headers: list[dict[str, str]] = []  # the headers of each of those GETs
        self.base_url = ""
        self.requests: list[Json] = []
        self.request_headers: list[dict[str, str]] = []
        self.request_bytes: list[int] = []
        self.errors: list[BaseException] = []
        self.unexpected = 0
        self.disconnects = 0  # answers abandoned by the client mid-way
        self._turns: collections.deque[Turn] = collections.deque()
        self._allow_unused = False
        self._lock = threading.Lock()
        self._abort = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sockets: set[Any] = set()
        self._httpd: _Server | None = None
        self._serve_thread: threading.Thread | None = None

    def start(self) -> FakeOpenAI:
        """Bind and serve in a daemon thread; sets base_url."""
        self._abort.clear()
        self._httpd = _Server(self, ("127.0.0.1", self.port))
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Abort stalls, drop open connections and join every server thread."""
        if self._httpd is None:
            return
        self._abort.set()
        self._httpd.shutdown()
        with self._lock:
            sockets, threads = list(self._sockets), list(self._threads)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(timeout=5)
            if thread.is_alive():
                self.errors.append(RuntimeError("fake: a handler thread did not stop"))
        self._httpd.server_close()
        if self._serve_thread is not None:
            self._serve_thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def script(self, *turns: Turn) -> None:
        """Append turns; each request consumes the next one."""
        with self._lock:
            self._turns.extend(turns)

    def allow_unused(self) -> None:
        """Do not fail the test for unused turns or unexpected requests."""
        self._allow_unused = True

    @property
    def unused(self) -> list[Turn]:
        """Scripted turns no request has consumed yet."""
        with self._lock:
            return list(self._turns)

    def problems(self) -> list[str]:
        """Why the scripted conversation did not go as planned ([] if it did)."""
        found = [f"fake: {type(e).__name__}: {e}" for e in self.errors]
        if not self._allow_unused and self.unused:
            found.append(f"fake: {len(self.unused)} scripted turn(s) left unused")
        if not self._allow_unused and self.unexpected:
            found.append(
                f"fake: {self.unexpected} unexpected request(s) ({NO_TURN_MESSAGE} or unknown path)"
            )
        return found

    def _take(self, body: Json, headers: dict[str, str], size: int) -> Turn | None:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            self.request_bytes.append(size)
            turn = self._turns.popleft() if self._turns else self.default
            if turn is None:
                self.unexpected += 1
        if turn is not None and turn.expect is not None:
            try:
                turn.expect(body)
            except Exception as exc:
                self.errors.append(exc)
        return turn

    def _bump(self, counter: str) -> None:
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)

    def _track(self, thread: threading.Thread, sock: Any) -> None:
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            self._sockets.add(sock)

    def _untrack(self, sock: Any) -> None:
        with self._lock:
            self._sockets.discard(sock)


def main(argv: list[str] | None = None) -> int:
    """Serve a script (or echo forever) until killed; first stdout line is the base URL."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help='JSON list of turns, e.g. [{"text": "hi"}]')
    parser.add_argument("--echo", action="store_true", help="answer every request with text")
    parser.add_argument("--fragments", type=int, default=1, help="echo reply fragments")
    args = parser.parse_args(argv)
    reply = "hello" if args.fragments <= 1 else "hello " * args.fragments
    echo = fb.text(reply, pieces=args.fragments) if args.echo else None
    fake = FakeOpenAI(args.port, default=echo)
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            fake.script(*(fb.from_spec(spec) for spec in json.load(f)))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    fake.start()
    print(fake.base_url, flush=True)
    try:
        threading.Event().wait()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        fake.stop()
        for problem in fake.problems():
            print(problem, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
