"""A project folder for the ACP tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p
