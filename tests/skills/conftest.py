"""A temporary project and home directory for the skills tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    (p / "data.csv").write_text("a,b\n1,2\n3,4\n")
    return p
