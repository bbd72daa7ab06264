"""Shared for the code-intelligence tests: real source trees to read."""

from __future__ import annotations

from pathlib import Path

import agent

PROJECT = Path(agent.__file__).parent  # our own source


def third_party() -> Path:
    """A real third-party source tree already installed with the test environment (rich, a
    dependency): no network needed."""
    import rich

    return Path(rich.__file__).parent


def py_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root
