"""What the bash tests share: a context in a folder of their own, and no background process
left behind by a test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.shell import background as shell_bg


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    yield
    shell_bg.shutdown()
