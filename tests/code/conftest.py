"""The code-intelligence tests start with this process's memo of tags empty (the cache
directory is per test already: AGENT_CACHE_DIR)."""

from __future__ import annotations

import pytest

from agent.code import index


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    index._MEMO.clear()
