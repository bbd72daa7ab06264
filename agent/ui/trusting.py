"""The trust questions at the start of an interactive session.

A project that brings its own configuration (settings, hooks, MCP servers, `.env`, skills,
commands and agent definitions under `.agent/` or `.claude/`, memory that imports from home):
trust it? Yes or no is remembered (`~/.agent/trusted.json`); /trust shows and changes it.
A trusted project whose trust-bearing files were added or changed since: what changed, as a
diff, then whether to apply it. Until the user says yes, those files are not applied
(agent.config.pins).
"""

from __future__ import annotations

import os
import sys

from agent.base.visible import visible
from agent.config import settings as st
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


def _home_imports(cfg: Config) -> str:
    """The project's memory files that import from outside it (skipped until trusted)."""
    from agent.context.memory import load_memory  # deferred: ~45 ms: only for the trust question

    refused = {
        f.parent
        for f in load_memory(cfg.cwd, cfg.root, trusted=False)
        if f.parent is not None and "untrusted project's memory" in f.note
    }
    names = sorted(os.path.relpath(p, cfg.root) for p in refused)
    return f"{', '.join(names)} importing files from your home directory" if names else ""


def waiting_names(cfg: Config) -> str:
    """What of the project waits for the user's trust, named briefly ("" when nothing)."""
    present = list(trust.waiting(cfg.root, cfg.trust))
    if cfg.env_ignored and ".env" not in present:  # its .env names an endpoint or a key
        present.append(".env")
    folders = {p.split("/")[0] + "/" + p.split("/")[1] for p in present if p.count("/") >= 2}
    files = [p for p in present if p.count("/") < 2]
    names = [*files, *(f"{f}/" for f in sorted(folders))]
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return ", ".join(x for x in (shown, _home_imports(cfg)) if x)


def trust_prompt(cfg: Config) -> bool:
    """Ask once whether to trust a project that brings its own configuration; the answer is
    remembered either way. True when the user said yes (the config must be read again)."""
    if cfg.trust.folder or (cfg.root / ".agent").resolve() == st.user_dir().resolve():
        return False
    names = visible(waiting_names(cfg), "")  # the project's own names
    if not names:
        return False
    if trust.declined(cfg.root):
        print(
            f"agent: not applied, as you chose: this project's configuration ({names}); "
            "/trust changes that",
            file=sys.stderr,
        )
        return False
    print(
        f"This project has its own agent configuration ({names}). Trusting it lets it run "
        "hooks, start MCP servers, add commands and skills, loosen permissions and choose the "
        "model endpoint and key.\nTrust this project? [y/N]: ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        trust.decline(cfg.root)
        print("agent: not trusted (remembered; /trust changes it)", file=sys.stderr)
        return False
    trust.trust(cfg.root)
    return True
