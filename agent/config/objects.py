"""The keys inside object-valued settings (toolResults, sandbox, checks, repoMap, sessions,
tools): their types checked when a settings file is read, so the typed view
(agent.config.view) can trust them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config.errors import ConfigError
from agent.config.modes import SANDBOX_MODES
from agent.config.view import EDIT_DIAGNOSTICS, TOOL_SEARCH

TOOL_RESULTS_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "spillAt": ((int,), "a whole number of characters (0: never spill)"),
    "clearAt": ((int, float), "a fraction of contextLimit like 0.4 (0: never clear)"),
    "keepTurns": ((int,), "a whole number of recent model turns"),
    "dedupReads": ((bool,), "true or false"),
}


def check_sandbox(path: Path, values: dict[str, Any]) -> None:
    """`sandbox.mode` is a known mode; network, hooks, mcp and unixSockets are true or false;
    denyRead is a list of paths."""
    mode = values.get("mode")
    if mode is not None and mode not in SANDBOX_MODES:
        raise ConfigError(f"{path}: key 'sandbox.mode' must be one of {', '.join(SANDBOX_MODES)}")
    for key in ("network", "hooks", "mcp", "unixSockets"):
        if key in values and not isinstance(values[key], bool):
            raise ConfigError(f"{path}: key 'sandbox.{key}' must be true or false")
    deny = values.get("denyRead", [])
    if not isinstance(deny, list) or not all(isinstance(p, str) and p.strip() for p in deny):
        raise ConfigError(
            f"{path}: key 'sandbox.denyRead' must be a list of paths like "
            '["secrets/**", "~/.config/work/token"]'
        )


def check_keys(
    path: Path, prefix: str, values: dict[str, Any], spec: dict[str, tuple[tuple[type, ...], str]]
) -> None:
    """The known keys of an object setting have their types (unknown ones are ignored)."""
    for key, value in values.items():
        if key not in spec:
            continue
        types, expected = spec[key]
        if (isinstance(value, bool) != (bool in types)) or not isinstance(value, types):
            raise ConfigError(f"{path}: key '{prefix}.{key}' must be {expected}, got {value!r}")


def check_tool_results(path: Path, values: dict[str, Any]) -> None:
    """`toolResults.*` keys have their types (agent.config.view.ToolResults reads them)."""
    check_keys(path, "toolResults", values, TOOL_RESULTS_KEYS)


CHECKS_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "lint": ((str,), 'a command like "ruff check {files}"'),
    "test": ((str,), 'a command like "pytest -x -q"'),
    "testOnEdit": ((bool,), "true or false"),
    "test_on_edit": ((bool,), "true or false"),
    "maxRounds": ((int,), "a whole number of rounds"),
    "timeout": ((int, float), "seconds"),
}


def check_checks(path: Path, values: dict[str, Any]) -> None:
    """`checks.*` keys have their types (agent.config.view.ChecksSettings reads them)."""
    check_keys(path, "checks", values, CHECKS_KEYS)


def check_repo_map(path: Path, values: dict[str, Any]) -> None:
    """`repoMap.tokens` is a whole number of tokens, 0 or more (0: no map); `repoMap.wait`
    seconds a message waits for it (0 to 60)."""
    tokens = values.get("tokens", 0)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ConfigError(
            f"{path}: key 'repoMap.tokens' must be a whole number of tokens (0: no map), "
            f"got {tokens!r}"
        )
    wait = values.get("wait", 0)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= 60:
        raise ConfigError(
            f"{path}: key 'repoMap.wait' must be seconds from 0 to 60 (how long a message waits "
            f"for the map), got {wait!r}"
        )


def check_sessions(path: Path, sessions: dict[str, Any]) -> None:
    """`sessions.keep` is a positive whole number, `sessions.maxAgeDays` a positive number."""
    for key, types, expected in (
        ("keep", (int,), "a positive whole number of sessions"),
        ("maxAgeDays", (int, float), "a positive number of days"),
    ):
        value = sessions.get(key)
        if value is None and key not in sessions:
            continue
        if isinstance(value, bool) or not isinstance(value, types) or not value > 0:
            raise ConfigError(f"{path}: key 'sessions.{key}' must be {expected}, got {value!r}")


def check_objects(path: Path, data: dict[str, Any]) -> None:
    """Every object-valued setting's known keys have their types."""
    check_sessions(path, data.get("sessions", {}))
    check_tool_results(path, data.get("toolResults", {}))
    check_sandbox(path, data.get("sandbox", {}))
    check_repo_map(path, data.get("repoMap", {}))
    check_checks(path, data.get("checks", {}))
    for key in ("applyPatch", "images"):
        value = data.get("tools", {}).get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: key 'tools.{key}' must be true or false, got {value!r}")
    search = data.get("tools", {}).get("search", "auto")
    if search not in TOOL_SEARCH:
        choices = ", ".join(f'"{c}"' for c in TOOL_SEARCH)
        raise ConfigError(f"{path}: key 'tools.search' must be one of {choices}, got {search!r}")
    check_lsp(path, data.get("lsp", {}), data.get("editDiagnostics", "all"))


LSP_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "command": ((list,), 'a list like ["ty", "server"]'),
    "extensions": ((list,), 'a list like [".py"]'),
    "disabled": ((bool,), "true or false"),
    "env": ((dict,), "an object of strings"),
    "initialization": ((dict,), "an object (the server's initializationOptions)"),
}


def check_lsp(path: Path, servers: Any, diagnostics: Any) -> None:
    """`lsp`: false, or each server an object of LSP_KEYS; `editDiagnostics` one of three."""
    if diagnostics not in EDIT_DIAGNOSTICS:
        choices = ", ".join(f'"{c}"' for c in EDIT_DIAGNOSTICS)
        raise ConfigError(f"{path}: key 'editDiagnostics' must be one of {choices}")
    if servers is True:
        raise ConfigError(f"{path}: key 'lsp' must be false or an object of servers")
    for name, entry in (servers or {}).items():
        if not isinstance(entry, dict):
            raise ConfigError(
                f"{path}: key 'lsp.{name}' must be an object like {{\"disabled\": true}}"
            )
        check_keys(path, f"lsp.{name}", entry, LSP_KEYS)
        for key in ("command", "extensions"):
            if not all(isinstance(v, str) for v in entry.get(key, [])):
                raise ConfigError(f"{path}: key 'lsp.{name}.{key}' must be a list of strings")
