"""Claude Code's own settings files, read as they are (issue 45): `~/.claude/settings.json`
(user), `.claude/settings.json` (project) and `.claude/settings.local.json` (local), each just
below ours of the same scope (agent.config.layers); and the MCP servers of `~/.claude.json`
(`mcpServers`, and `projects[<project path>].mcpServers`, Claude Code's local scope).

What is read of a settings file: `permissions` (allow/deny/ask, additionalDirectories,
defaultMode: Claude Code's spelling turned into ours by agent.config.claude_json.our_spelling,
the one translation `--settings` uses too), `hooks` (the same schema as ours), `env`, `sandbox`
(`enabled`, `network`), `enabledPlugins` (agent.config.plugins) and `model` unless it names
an Anthropic model (said once: the endpoint here serves other models; no request is made at
start-up to ask it). Their other keys are
Claude Code's own and are left out without a word (docs/coming-from-claude-code-or-codex.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent.config import settings as st
from agent.config.claude_json import our_spelling

READ = ("permissions", "hooks", "env", "sandbox", "model", "enabledPlugins")
# Claude Code's model names and aliases: another vendor's models, not the endpoint's
ANTHROPIC = re.compile(
    r"(?:[\w-]*[./])*(?:claude.*|(?:sonnet|opus|haiku)(?:[-\[@].*)?|opusplan|default|best)", re.I
)


def claude_files(root: Path, home: Path) -> dict[str, Path]:
    """Claude Code's settings file of each scope."""
    return {
        "user": home / ".claude" / "settings.json",
        "project": root / ".claude" / "settings.json",
        "local": root / ".claude" / "settings.local.json",
    }


def read_claude(path: Path, notes: list[str]) -> dict[str, Any]:
    """One Claude Code settings file in our spelling ({} when absent): what it sets that is
    read here, type-checked as our files are (ConfigError naming the file)."""
    data = st.read_settings_json(path)
    kept = {k: v for k, v in data.items() if k in READ}
    perms = kept.get("permissions")
    if (
        isinstance(perms, dict) and perms.get("defaultMode") == "auto"
    ):  # a classifier decides in Claude Code; here the default mode asks
        kept["permissions"] = {**perms, "defaultMode": "default"}
    box = kept.get("sandbox")
    if isinstance(box, dict) and "enabled" not in box:  # sets nothing the sandbox here reads
        del kept["sandbox"]
    kept = our_spelling(kept, notes, str(path))
    model = kept.get("model")
    if isinstance(model, str) and ANTHROPIC.fullmatch(model.strip()):
        del kept["model"]
        notes.append(
            f"{path}: model {model!r} not used: it names an Anthropic model, and this agent "
            "talks to your OpenAI-compatible endpoint (set model in ~/.agent/settings.json)"
        )
    st.check_types(path, kept)
    return kept


def claude_json_servers(root: Path, path: Path, notes: list[str]) -> dict[str, Any]:
    """The MCP servers of `~/.claude.json` (`path`): its user-scope `mcpServers`, then this
    project's (`projects[<root>].mcpServers`) over them. Claude Code's own state file: one that
    does not parse is said, not fatal."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as e:
        notes.append(f"{path}: not read ({e}); its MCP servers are not started")
        return {}
    if not isinstance(data, dict):
        return {}
    servers = _servers(data)
    projects = data.get("projects")
    mine = projects.get(str(root)) if isinstance(projects, dict) else None
    if isinstance(mine, dict):
        servers.update(_servers(mine))
    return servers


def _servers(data: dict[str, Any]) -> dict[str, Any]:
    got = data.get("mcpServers")
    return {str(k): v for k, v in got.items()} if isinstance(got, dict) else {}
