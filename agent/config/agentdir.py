"""The project's `.agent/` directory, made on first use with a `.gitignore` for what is
personal (sessions, local settings, the audit log, logs, worktrees) — never through a link."""

from __future__ import annotations

from pathlib import Path

from agent.config import safefile
from agent.config.safefile import SymlinkRefused

GITIGNORE = "sessions/\nsettings.local.json\naudit.jsonl\n*.log\nworktrees/\n"


def ensure_agent_dir(root: Path, notes: list[str] | None = None) -> Path:
    """Create `.agent/` with a .gitignore for what is personal (first creation only).

    Never through a link: a linked `.agent` is left to the writes that need it (they refuse
    it); a linked `.gitignore`, even dangling, is not followed (that would create its target)
    and is said in `notes` when given."""
    d = root / ".agent"
    try:
        safefile.make_dirs(root, d)
        safefile.create_new(root, d / ".gitignore", GITIGNORE.encode("utf-8"))
    except SymlinkRefused as e:
        if notes is not None and e.link == e.path:
            notes.append(f"{e}; not written")
    except OSError:
        pass
    return d
