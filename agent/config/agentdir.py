"""The project's `.agent/` directory, made on first use with a `.gitignore` for what is
personal (local settings, worktrees, and what earlier versions kept there) — never through a
link. The `.gitignore` lists itself: a run that only saved a personal setting leaves `git status`
clean, while what a team adds there (settings.json, commands/, agents/) still shows."""

from __future__ import annotations

from pathlib import Path

from agent.config import safefile
from agent.config.safefile import SymlinkRefused

GITIGNORE = "/.gitignore\nsettings.local.json\nworktrees/\nsessions/\naudit.jsonl\n*.log\n"


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
