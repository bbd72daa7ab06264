"""The JSON values of Claude Code's flags (agent.config.claude): `--mcp-config` (a JSON string
or a file, as many as given), `--settings` (a JSON string or a file, in Claude Code's spelling
or ours, checked as a settings file is) and `--agents` (subagent definitions)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agent.config import settings as st
from agent.config.errors import ConfigError

AGENT_KEYS = ("description", "prompt", "tools", "disallowedTools", "model", "maxTurns")
OUR_SANDBOX = ("mode", "hooks", "mcp", "unixSockets", "denyRead")  # (and network: true|false)


def read_json(value: str, flag: str) -> Any:
    """A flag's JSON: the value itself when it starts like JSON, else the file it names."""
    text, where = value.strip(), flag
    if not text.startswith(("{", "[")):
        where = f"{flag} {value}"
        try:
            text = Path(os.path.expanduser(text)).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise ConfigError(f"{where}: not JSON, and no file to read ({why})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{where}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None


def mcp_configs(values: list[str]) -> dict[str, Any]:
    """The servers of every --mcp-config, a later one winning a name."""
    servers: dict[str, Any] = {}
    for value in values:
        data = read_json(value, "--mcp-config")
        if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
            raise ConfigError('--mcp-config: expected {"mcpServers": {"name": {...}}}')
        for name, entry in data["mcpServers"].items():
            if not isinstance(entry, dict):
                raise ConfigError(f"--mcp-config: server {name!r} must be an object")
            servers[str(name)] = entry
    return servers


def settings_layer(value: str | None, notes: list[str]) -> dict[str, Any]:
    """--settings checked as a settings file (its unknown keys said and left out); Claude
    Code's `permissions.allow|deny|defaultMode` and `sandbox.enabled` read as ours."""
    if value is None:
        return {}
    data = read_json(value, "--settings")
    if not isinstance(data, dict):
        raise ConfigError("--settings: expected a JSON object")
    data = our_spelling(data, notes)
    where = Path("--settings")
    st.check_types(where, data)
    notes += st.unknown_keys(where, data)
    return {k: v for k, v in data.items() if k in st.SCHEMA}


def our_spelling(
    data: dict[str, Any], notes: list[str], where: str = "--settings"
) -> dict[str, Any]:
    """Claude Code's settings keys that have an equivalent here, renamed to it (`where`: the
    flag or file they came from, for the notes): --settings and Claude Code's settings files
    (agent.config.claude_files) share this one translation."""
    out = dict(data)
    perms = out.get("permissions")
    if isinstance(perms, dict):
        p = dict(perms)
        for theirs, ours in (("allow", "alwaysAllow"), ("deny", "neverAllow")):
            value = p.pop(theirs, None)
            if value is not None:
                p[ours] = [*p.get(ours, []), *value] if isinstance(value, list) else value
        if "defaultMode" in p:
            p.setdefault("mode", p.pop("defaultMode"))
        out["permissions"] = p
    box = out.get("sandbox")
    if isinstance(box, dict) and "enabled" in box:
        mine: dict[str, Any] = {"mode": "workspace-write" if box["enabled"] else "off"}
        mine |= {k: v for k, v in box.items() if k in OUR_SANDBOX}
        if isinstance(box.get("network"), bool):
            mine["network"] = box["network"]
        dropped = sorted(k for k in box if k != "enabled" and k not in mine)
        if dropped:
            notes.append(f"{where}: Claude Code's sandbox.{', sandbox.'.join(dropped)} not "
                         "applied (the sandbox here: docs/sandbox-and-trust.md)")  # fmt: skip
        out["sandbox"] = mine
    return out


def agents_of(value: str | None, notes: list[str]) -> dict[str, dict[str, Any]]:
    """--agents: `{"name": {"description", "prompt", "tools", "model", …}}`, each definition
    read later by the definition files' rules (agent.subagents.defs.from_json); what of it
    does not apply here is said."""
    if value is None:
        return {}
    data = read_json(value, "--agents")
    if not isinstance(data, dict) or not all(isinstance(d, dict) for d in data.values()):
        raise ConfigError('--agents: expected {"name": {"description": "…", "prompt": "…"}}')
    for name, d in data.items():
        ignored = [k for k in d if k not in AGENT_KEYS]
        if ignored:
            notes.append(f"--agents: agent {name!r}: {', '.join(ignored)} not applied here")
    return {str(name): d for name, d in data.items()}
