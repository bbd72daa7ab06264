"""A small Python project for the language-server tests, and a session on it against the
scripted model (the real ty and ruff servers installed with the test extra)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from routed_fake import close_runs, make_run

from agent.app import Run


@pytest.fixture
def pyproj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text("def helper(n: int) -> int:\n    return n * 2\n")
    (root / "pkg" / "app.py").write_text(
        "from pkg.util import helper\n\n\n"
        "def main() -> int:\n"
        "    x: int = helper(2)\n"
        "    return x\n\n\n"
        "def other() -> int:\n"
        "    return helper(5)\n"
    )
    return root


MakeRun = Callable[..., Run]


@pytest.fixture
async def session(fake: FakeOpenAI, pyproj: Path) -> AsyncIterator[MakeRun]:
    def make(**settings: Any) -> Run:
        run, _ = make_run(fake, pyproj, settings=settings)
        return run

    yield make
    await close_runs()
