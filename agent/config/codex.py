"""Codex's `~/.codex/config.toml`, read as it is (issue 45), as the lowest settings layer (below
Claude Code's and ours: agent.config.layers), and its providers as extra `--provider` names.

Read: `model`, `model_provider`, `approval_policy` and `sandbox_mode` (mapped to the permission
and sandbox modes here: MODES below, docs/coming-from-claude-code-or-codex.md),
`[sandbox_workspace_write] network_access`, `[mcp_servers.*]` (stdio: command, args, env, cwd;
HTTP: url, bearer_token_env_var, http_headers, env_http_headers; startup_timeout_sec,
tool_timeout_sec, enabled) and `[model_providers.*]` (base_url, env_key). TOML is read with
the standard library's tomllib, which Python 3.10 lacks: there the file is named in a note and
not read. A file that does not parse stops the run (exit 2) naming it, as a settings file does.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config import settings as st
from agent.config.errors import ConfigError
from agent.config.providers import PRESETS, Provider

# approval_policy -> permission mode; `on-request` lets edits of the workspace through when the
# sandbox holds the rest (workspace-write), and `never` with no sandbox at all asks nothing
APPROVAL = {"untrusted": "default", "on-failure": "default", "on-request": "default",
            "never": "dontAsk"}  # fmt: skip
SANDBOX = {"read-only": "read-only", "workspace-write": "workspace-write",
           "danger-full-access": "off"}  # fmt: skip
OUR_NAMES = {"oss": "ollama"}  # Codex's built-in provider names that are a preset here


@dataclass(frozen=True)
class Codex:
    """What `config.toml` sets here: a settings layer in our spelling (modes, MCP servers), its
    providers, its model and provider (defaults below every settings file: agent.config.choice),
    and notes to say."""

    layer: dict[str, Any] = field(default_factory=dict)
    providers: dict[str, Provider] = field(default_factory=dict)
    provider: str = ""  # model_provider ("": not set)
    model: str = ""
    notes: tuple[str, ...] = ()

    @property
    def served_by(self) -> str:
        """The provider Codex sends `model` to: model_provider, else OpenAI (as in Codex)."""
        return self.provider or "openai"


def codex_for(only: frozenset[str] | None) -> Codex:
    """The Codex configuration when user settings are read (--setting-sources)."""
    return read_codex() if only is None or "user" in only else Codex()


_READ: dict[tuple[str, int, int], Codex] = {}  # one read per file content in a process


def codex_path() -> Path:
    return Path(os.path.expanduser("~")) / ".codex" / "config.toml"


def read_codex(path: Path | None = None) -> Codex:
    """The Codex configuration (empty when there is no file); ConfigError when it does not
    parse or a value has the wrong type."""
    path = path or codex_path()
    try:
        stat = path.stat()
    except OSError:
        return Codex()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _READ:
        _READ.clear()
        _READ[key] = _read(path)
    return _READ[key]


def _read(path: Path) -> Codex:
    if sys.version_info < (3, 11):
        return Codex(notes=(f"{path}: not read: reading TOML needs Python 3.11 or later",))
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    notes: list[str] = []
    providers = _providers(path, _table(path, data, "model_providers"))
    model, provider = data.get("model", ""), data.get("model_provider", "")
    if not isinstance(model, str) or not isinstance(provider, str):
        raise ConfigError(f"{path}: model and model_provider must be strings")
    provider = OUR_NAMES.get(provider, provider)
    if provider not in ("", *PRESETS, *providers):
        notes.append(f"{path}: model_provider {provider!r} is not a provider here; not used")
        provider, model = "", ""
    layer = _modes(path, data)
    servers = {n: _server(e) for n, e in _table(path, data, "mcp_servers").items()}
    if servers:
        layer["mcpServers"] = servers
    st.check_types(path, layer)
    return Codex(layer, providers, provider, model, tuple(notes))


def _table(path: Path, data: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    got = data.get(key, {})
    if not isinstance(got, dict) or not all(isinstance(v, dict) for v in got.values()):
        raise ConfigError(f"{path}: [{key}.NAME] entries must be tables")
    return got


def _modes(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """approval_policy and sandbox_mode as `permissions.mode` and `sandbox`."""
    out: dict[str, Any] = {}
    approval, box = data.get("approval_policy"), data.get("sandbox_mode")
    checked = (("approval_policy", approval, APPROVAL), ("sandbox_mode", box, SANDBOX))
    for key, value, known in checked:
        if value is not None and value not in known:
            raise ConfigError(f"{path}: {key} must be one of {', '.join(known)}, not {value!r}")
    if approval is not None:
        mode = APPROVAL[approval]
        if approval == "on-request" and box == "workspace-write":
            mode = "acceptEdits"
        elif approval == "never" and box == "danger-full-access":
            mode = "bypassPermissions"
        out["permissions"] = {"mode": mode}
    if box is not None:
        out["sandbox"] = {"mode": SANDBOX[box]}
        net = (data.get("sandbox_workspace_write") or {}).get("network_access")
        if box == "workspace-write" and isinstance(net, bool):
            out["sandbox"]["network"] = net
    return out


def _providers(path: Path, table: dict[str, dict[str, Any]]) -> dict[str, Provider]:
    """`[model_providers.NAME]` as providers; a name of a preset here is left to the preset."""
    out: dict[str, Provider] = {}
    for name, entry in table.items():
        url, key = entry.get("base_url"), entry.get("env_key", "")
        if not isinstance(url, str) or not isinstance(key, str):
            raise ConfigError(f"{path}: [model_providers.{name}] needs a base_url string")
        if name not in PRESETS:
            out[name] = Provider(name, url.rstrip("/"), "", key, needs_key=bool(key))
    return out


def _server(e: dict[str, Any]) -> dict[str, Any]:
    """One `[mcp_servers.NAME]` as an `mcpServers` entry (agent.mcp.config reads it)."""
    out: dict[str, Any] = {}
    if "url" in e:
        headers = {str(k): str(v) for k, v in (e.get("http_headers") or {}).items()}
        headers |= {str(k): f"${{{v}}}" for k, v in (e.get("env_http_headers") or {}).items()}
        if e.get("bearer_token_env_var"):
            headers["Authorization"] = f"Bearer ${{{e['bearer_token_env_var']}}}"
        out = {"type": "http", "url": e["url"], "headers": headers}
    else:
        out = {k: e[k] for k in ("command", "args", "env", "cwd") if k in e}
    for theirs, ours in (("startup_timeout_sec", "timeout"), ("tool_timeout_sec", "toolTimeout")):
        if theirs in e:
            out[ours] = e[theirs]
    if e.get("enabled") is False:
        out["disabled"] = True
    return out
