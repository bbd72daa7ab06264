"""Starting and stopping a real llama-server for the real-server tests."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass

import build_llama
import pytest

CTX = 8192  # SmolLM2's trained window; the agent's prompt and tools take ~3,000 of it
N_PREDICT = 160  # a reply stops here at the latest: a small model can loop for ever


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    port: int
    proc: subprocess.Popen[bytes] | None = None
    n_predict: int = N_PREDICT

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Server:
        server, model = build_llama.server_path(), build_llama.model_path()
        if not server.exists() or not model.exists():
            pytest.skip("llama-server not built: run python tests/real_server/build_llama.py")
        cmd = [
            str(server), "-m", str(model), "--host", "127.0.0.1", "--port", str(self.port),
            "-c", str(CTX), "-n", str(self.n_predict), "-t", "2", "--jinja",
            "--chat-template-file", str(build_llama.template_path()),
        ]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("llama-server did not become healthy within 60 s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
