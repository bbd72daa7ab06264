"""System prompt assembly, memory files and the first message's environment block (SPEC §7).

The system prompt is byte-stable for a session (no dates, no git state): those go into the
first user message instead, so the provider's prefix cache keeps hitting.
"""

from __future__ import annotations

import datetime
import platform
from pathlib import Path

MEMORY_NAMES = ("AGENT.md", ".agent/AGENT.md", "AGENTS.md", "CLAUDE.md")


def base_prompt() -> str:
    return (Path(__file__).parent / "prompts" / "system.md").read_text(encoding="utf-8")


def memory_files(cwd: Path, root: Path, home: Path) -> list[Path]:
    """Memory files, outermost first: ~/.agent/AGENT.md, then root → cwd."""
    found = [home / ".agent" / "AGENT.md"]
    dirs = [cwd, *cwd.parents]
    chain = list(reversed(dirs[: dirs.index(root) + 1])) if root in dirs else [cwd]
    for d in chain:
        found += [d / name for name in MEMORY_NAMES]
    seen: set[Path] = set()
    out = []
    for p in found:
        if p.is_file() and p.resolve() not in seen:
            seen.add(p.resolve())
            out.append(p)
    return out


def system_prompt(cwd: Path, root: Path, home: Path | None = None) -> str:
    """Base prompt plus the project's memory files (read once per session)."""
    parts = [base_prompt().rstrip()]
    for path in memory_files(cwd, root, home or Path.home()):
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            parts.append(f"# Memory: {path}\n{text}")
    return "\n\n".join(parts) + "\n"


def git_summary(root: Path) -> str:
    """Branch name read from .git/HEAD (no subprocess: this is on the start-up path)."""
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text(encoding="utf-8").strip()
    except OSError:
        return "not a git repository" if not (root / ".git").exists() else "git repository"
    if ref.startswith("ref: refs/heads/"):
        return f"git branch {ref.removeprefix('ref: refs/heads/')}"
    return f"git detached HEAD at {ref[:12]}"


def env_block(cwd: Path, root: Path) -> str:
    """Facts that change between sessions: they go in the first user message."""
    today = datetime.date.today().isoformat()
    return (
        f"<env>\ndate: {today}\ncwd: {cwd}\nproject root: {root}\n"
        f"platform: {platform.system()} {platform.release()}\n{git_summary(root)}\n</env>"
    )
