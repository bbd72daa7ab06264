"""Skill folders written for real: `base/<name>/SKILL.md` with front matter."""

from __future__ import annotations

from pathlib import Path


def write_skill(base: Path, name: str, description: str, body: str, extra: str = "") -> Path:
    """`base/<name>/SKILL.md` with front matter; returns the folder."""
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    front = f"---\nname: {name}\ndescription: {description}\n{extra}---\n"
    (folder / "SKILL.md").write_text(front + body, encoding="utf-8")
    return folder
