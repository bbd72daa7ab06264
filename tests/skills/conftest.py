"""Skill folders written for real in a temporary project and home directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

MakeSkill = Callable[..., Path]


def write_skill(base: Path, name: str, description: str, body: str, extra: str = "") -> Path:
    """`base/<name>/SKILL.md` with front matter; returns the folder."""
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    front = f"---\nname: {name}\ndescription: {description}\n{extra}---\n"
    (folder / "SKILL.md").write_text(front + body, encoding="utf-8")
    return folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of the test's own (user skills, commands and agents live under it)."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    return h


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    (p / "data.csv").write_text("a,b\n1,2\n3,4\n")
    return p
