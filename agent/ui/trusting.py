"""The question at the start of an interactive session when a trusted project's trust-bearing
files (settings, hooks, MCP servers, `.env`, skills, commands, agent definitions) were added or
changed since the user trusted it: what changed, as a diff, then whether to apply it. Until
they say yes, those files are not applied (agent.config.pins)."""

from __future__ import annotations

import sys

from agent.base.visible import visible
from agent.config import trust
from agent.config.load import Config

MAX_LINES = 200  # of the diff shown before the question


def changes_prompt(cfg: Config) -> bool:
    """Show what changed and ask; True when the user accepted it (the config must be read
    again)."""
    if not cfg.trust.folder or not cfg.trust.withheld:
        return False
    diff, lines, shown_digests = trust.changes(cfg.root)
    if not diff.withheld:
        return False
    shown = [visible(line, "") for line in lines[:MAX_LINES]]  # the repository's text
    if len(lines) > MAX_LINES:
        shown.append(f"… {len(lines) - MAX_LINES} more lines")
    print(
        "Since you trusted this project, these files that configure the agent were added or "
        "changed (by a command, an edit or a pull). They are not applied until you say so:\n"
        + "\n".join(shown)
        + "\nApply them? [y/N]: ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        print("agent: not applied; /trust accepts them later", file=sys.stderr)
        return False
    trust.trust(cfg.root, shown_digests)  # what was shown, not what is there by now
    return True
