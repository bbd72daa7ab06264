"""Fixtures of the terminal tests: the agent's REPL in a real pseudo-terminal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_term import Term


@pytest.fixture
def term(fake_env: dict[str, str], project: Path) -> Iterator[Term]:
    t = Term(fake_env, project)
    yield t
    t.close()
