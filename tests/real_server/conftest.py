"""A real llama.cpp `llama-server` with SmolLM2-135M (tests/real_server/build_llama.py builds
it once into a cache): started on a free loopback port per test module, or per test when the
test kills it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama import Server, free_port


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "real_server" in str(item.fspath):
            item.add_marker(pytest.mark.real_server)
            item.add_marker(pytest.mark.timeout(180))


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server(free_port()).start()
    yield s
    s.kill()


@pytest.fixture
def env(server: Server, tmp_path: Path) -> dict[str, str]:
    """The agent against the real server, isolated from the user's files."""
    home = tmp_path / "home"
    home.mkdir()
    keep = {
        k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_", "DEEPSEEK_"))
    }
    return {
        **keep,
        "HOME": str(home),
        "AGENT_STATE_DIR": str(tmp_path / "state"),
        "AGENT_BASE_URL": server.base_url,
        "AGENT_API_KEY": "local",
        "AGENT_MODEL": "smollm2",
        "NO_COLOR": "1",
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p
