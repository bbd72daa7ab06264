"""What runs later, outside any sandbox: the paths in a project that git, this agent, other
agents and editors read and act on (hooks and config, settings, MCP servers, skills, tasks,
submodules and filters, environment files). One list for the sandbox, which keeps them
read-only (agent.sandbox.policy), and for the decision, which asks before any edit or command
writes them, in every mode (agent.permissions.decide, agent.permissions.shell)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent.permissions.paths import ENV_TEMPLATES

RUNS_LATER_DIRS = (".git", ".agent", ".claude", ".vscode", ".idea")
RUNS_LATER_FILES = (".mcp.json", ".envrc", ".gitmodules", ".gitattributes", ".env")  # + .env*
WORKTREES = ("worktrees",)  # `.agent/worktrees/<name>/`: a checkout to work in, not settings


def runs_later(path: Path | str) -> str:
    """Why writing `path` could run code later, outside the sandbox ("" when it cannot): it is
    in one of RUNS_LATER_DIRS or is one of RUNS_LATER_FILES (an `.env*` file), at any depth —
    except inside a worktree of `.agent/worktrees/`, whose own such paths count again."""
    parts = str(path).lower().split("/")  # `.GIT` is `.git` on a case-insensitive disk
    i = 0
    while i < len(parts):
        part = parts[i]
        tail = parts[i + 1 : i + 3]
        if part == ".agent" and len(tail) == 2 and tail[0] in WORKTREES and i + 3 < len(parts):
            i += 3  # a file of a worktree checkout
            continue
        if part in RUNS_LATER_DIRS and i < len(parts) - 1:
            return f"{part}/ is read later by git, the agent or an editor"
        if i == len(parts) - 1 and (part in RUNS_LATER_DIRS or runs_later_file(part)):
            return f"{part} is read later by git, the agent or an editor"
        i += 1
    return ""


def runs_later_in(path: Path | str, dirs: tuple[str, ...]) -> str:
    """`runs_later` of `path` below the workspace folder holding it ("" outside them all: such a
    write is asked about anyway), so that a project kept in `~/.claude/skills/x` is no setting."""
    p = str(path)
    for d in sorted(dirs, key=len, reverse=True):
        if p == d:
            return ""
        if p.startswith(d.rstrip("/") + "/"):
            return runs_later(p[len(d.rstrip("/")) + 1 :])
    return ""


def first_runs_later(paths: Iterable[Path | str], dirs: tuple[str, ...]) -> str:
    """`runs_later_in` of the first of `paths` that runs later ("" when none does)."""
    return next((why for why in (runs_later_in(p, dirs) for p in paths) if why), "")


def runs_later_file(name: str) -> bool:
    """A file at a folder's top that runs later (`name` in lower case): the sandbox's list too."""
    return name in RUNS_LATER_FILES or (name.startswith(".env") and name not in ENV_TEMPLATES)
