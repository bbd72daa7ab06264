"""Settings files: read, validate and merge user < project < local (SPEC §3).

A file that is not valid JSON or has a wrong type raises ConfigError naming the file and the
line/column or key; unknown keys are warnings. A project's files are someone else's code: until
the project is trusted, keys that could run code, redirect traffic or loosen permissions are
dropped with one warning.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.errors import ConfigError
from agent.config.modes import MODES, TIGHTER_MODES
from agent.config.objects import check_objects

__all__ = ["ConfigError"]  # (re-exported: its users read it from here)


# key -> (accepted types, what a user should read in the message)
SCHEMA: dict[str, tuple[tuple[type, ...], str]] = {
    "provider": ((str,), "a provider name"),
    "model": ((str,), "a model name"),
    "baseUrl": ((str,), "a URL"),
    "apiKeyEnv": ((str,), "an environment variable name"),
    "thinkingModel": ((str,), "a model name"),
    "thinkingBody": ((dict,), "an object sent as extra request fields with --think"),
    "webFetch": ((dict,), 'an object like {"allowedHosts": ["localhost:8000"]}'),
    "webSearch": ((dict,), 'an object like {"provider": "brave"}'),
    "contextLimit": ((int,), "a number of tokens"),
    "compactThreshold": ((int, float), "a fraction of contextLimit like 0.8"),
    "compactKeepTurns": ((int,), "a whole number of recent user turns"),
    "maxTurns": ((int,), "a whole number"),
    "sandbox": (
        (dict,),
        'an object like {"mode": "workspace-write", "network": false}',
    ),
    "toolResults": (
        (dict,),
        'an object like {"spillAt": 12000, "clearAt": 0.4, "keepTurns": 4, "dedupReads": true}',
    ),
    "repoMap": ((dict,), 'an object like {"tokens": 1000}'),
    "tools": ((dict,), 'an object like {"applyPatch": true, "search": "auto"}'),
    "checks": ((dict,), 'an object like {"lint": "ruff check {files}", "test": "pytest -x -q"}'),
    "lsp": ((dict, bool), 'false, or an object like {"ty": {"disabled": true}}'),
    "editDiagnostics": ((str,), '"all", "errors" or "off"'),
    "temperature": ((int, float), "a number"),
    "language": ((str,), 'a language code like "ru", or "auto" (the language you write in)'),
    "includeUsage": ((bool,), "true or false"),
    "reasoningInput": ((str,), '"none", "tool_calls" or "all"'),
    "priceIn": ((int, float), "USD per million tokens"),
    "priceCached": ((int, float), "USD per million tokens"),
    "priceOut": ((int, float), "USD per million tokens"),
    "prices": ((dict,), 'an object like {"my-model": {"in": 0.5, "cached": 0.05, "out": 1.5}}'),
    "permissions": ((dict,), "an object"),
    "mcpServers": ((dict,), "an object"),
    "mcpTimeout": ((int, float), "seconds to wait for an MCP server to connect"),
    "mcpToolTimeout": ((int, float), "seconds to wait for an MCP tool call"),
    "hooks": ((dict,), "an object"),
    "disallowedTools": ((list,), "a list of rules"),
    "env": ((dict,), "an object of strings"),
    "timeouts": ((dict,), 'an object like {"firstToken": 60, "idle": 60, "total": 600}'),
    "retry": ((dict,), 'an object like {"attempts": 5, "baseDelay": 1.0, "maxDelay": 30}'),
    "actions": ((dict,), "an object"),
    "plugins": ((list,), "a list of plugin folders (relative to the settings file's folder)"),
    "enabledPlugins": ((dict,), 'an object like {"name@marketplace": false}'),
    "sessions": ((dict,), 'an object like {"keep": 200, "maxAgeDays": 60}'),
    "subagents": (
        (dict,),
        'an object like {"maxDepth": 1, "maxTurns": 30, "maxParallel": 4, "tools": ["read_file"]}',
    ),
}
# A reply language: a code or a name of up to four words (it goes into the system prompt).
LANGUAGE = re.compile(r"[^\W\d_]+(?:[ -][^\W\d_]+){0,3}", re.UNICODE)
PERMISSION_LISTS = ("alwaysAllow", "ask", "neverAllow", "approvedDirs", "additionalDirectories")
# What an untrusted project's settings may set: only what cannot change where requests go,
# what runs, what is allowed, what it costs or what is kept. Everything else in them waits for
# the user's trust (one warning names it); `permissions` only tightens (deny and ask rules, a
# stricter mode): see restrict_untrusted.
UNTRUSTED_ALLOW = ("temperature", "language", "includeUsage", "permissions", "disallowedTools")


def read_settings(path: Path) -> dict[str, Any]:
    """Parse and type-check one settings file; {} when it does not exist."""
    data = read_settings_json(path)
    check_types(path, data)
    return data


def read_settings_json(path: Path) -> dict[str, Any]:
    """Parse one JSON object file; {} when it does not exist; ConfigError naming the spot."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"{path}: cannot read settings: {e.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return data


def check_types(path: Path, data: dict[str, Any]) -> None:
    """Raise ConfigError for a known key with the wrong type."""
    for key, value in data.items():
        if key not in SCHEMA:
            continue
        types, expected = SCHEMA[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            got = type(value).__name__ if value is not None else "null"
            raise ConfigError(f"{path}: key {key!r} must be {expected}, got {got}")
    language = data.get("language")
    if isinstance(language, str) and not LANGUAGE.fullmatch(language.strip()):
        raise ConfigError(
            f"{path}: key 'language' must be a language code or name like \"ru\" or "
            '"Brazilian Portuguese", or "auto"'
        )
    perms = data.get("permissions", {})
    for key in PERMISSION_LISTS:
        value = perms.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: key 'permissions.{key}' must be a list of strings")
    mode = perms.get("mode")
    if mode is not None and mode not in MODES:
        raise ConfigError(f"{path}: key 'permissions.mode' must be one of {', '.join(MODES)}")
    if isinstance(data.get("hooks"), dict):
        check_hooks(path, data["hooks"])
    check_objects(path, data)


def read_hooks(path: Path) -> dict[str, Any]:
    """A `hooks.json` file: `{"PreToolUse": [...]}` (or `{"hooks": {...}}`); {} when absent."""
    data = read_settings_json(path)
    if isinstance(data.get("hooks"), dict):
        data = data["hooks"]
    check_hooks(path, data)
    return data


def check_hooks(path: Path, hooks: dict[str, Any]) -> None:
    """Raise ConfigError for hook entries of the wrong shape."""
    for event, entries in hooks.items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ConfigError(f"{path}: hooks.{event} must be a list of objects")
        for e in entries:
            inner = e.get("hooks", [e])
            if not isinstance(inner, list) or not all(
                isinstance(h, dict)
                and (isinstance(h.get("command"), str) or h.get("type", "command") != "command")
                for h in inner
            ):  # other hook types (Claude Code's "prompt") are skipped, not fatal
                raise ConfigError(
                    f'{path}: hooks.{event} entries need "command" (or "hooks": '
                    '[{"type": "command", "command": "..."}])'
                )


def unknown_keys(path: Path, data: dict[str, Any]) -> list[str]:
    """Warnings for keys this version does not know (typos, newer settings)."""
    return [f"{path}: unknown setting {k!r} ignored" for k in data if k not in SCHEMA]


def restrict_untrusted(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Keep what an untrusted project may set (UNTRUSTED_ALLOW); return it and the dropped
    keys (unknown keys are warned about as such, not here)."""
    dropped = [k for k in data if k in SCHEMA and k not in UNTRUSTED_ALLOW]
    out = {k: v for k, v in data.items() if k in UNTRUSTED_ALLOW}
    perms = dict(out.get("permissions", {}))
    for key in [k for k in perms if k not in ("neverAllow", "ask", "mode")]:
        if perms.pop(key):
            dropped.append(f"permissions.{key}")
    if "mode" in perms and perms["mode"] not in TIGHTER_MODES:
        dropped.append(f"permissions.mode={perms.pop('mode')}")
    if "permissions" in out:
        out["permissions"] = perms
    return out, dropped


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Later wins for scalars; lists are concatenated; objects merge key by key."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if key == "mcpServers" and isinstance(old, dict) and isinstance(value, dict):
            out[key] = {**old, **value}  # a server defined again is replaced whole, not merged
        elif isinstance(old, list) and isinstance(value, list):
            out[key] = old + [v for v in value if v not in old]
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge(old, value)
        else:
            out[key] = value
    return out


def save_user_setting(key: str, value: object) -> Path:
    """Set (or with None remove) one key of ~/.agent/settings.json, keeping the rest as it is;
    written atomically, never through a link. A broken file raises ConfigError (not replaced)."""
    path = user_dir() / "settings.json"
    data = read_settings_json(path)
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    safefile.write_atomic(path.parent, path, text.encode("utf-8"))
    return path


def user_dir() -> Path:
    """~/.agent, where user settings, trust decisions and history live."""
    return Path(os.path.expanduser("~")) / ".agent"


def project_root(cwd: Path) -> Path:
    """The nearest ancestor holding `.agent/` (the home directory's only when it is cwd: there
    it is the user's own folder) or `.git`, else cwd itself; inside a worktree made
    by `--worktree` (`<repo>/.agent/worktrees/<name>`), the main repository."""
    home = Path(os.path.expanduser("~"))
    for d in (cwd, *cwd.parents):
        in_worktrees = d.parent.name == "worktrees" and d.parent.parent.name == ".agent"
        if in_worktrees and (d / ".git").is_file():
            return d.parent.parent.parent
        # ~/.agent is the user's own folder, no sign that every folder below ~ is one project
        agent_dir = (d / ".agent").is_dir() and (d != home or d == cwd)
        if agent_dir or (d / ".git").exists():
            return d
    return cwd


def split_rules(values: list[str]) -> tuple[str, ...]:
    """`a,b(c, d) e` → ("a", "b(c, d)", "e"): commas and spaces separate rules (as Claude Code
    reads --allowedTools), except inside parentheses."""
    out: list[str] = []
    for value in values:
        depth, cur = 0, ""
        for ch in value:
            depth += (ch == "(") - (ch == ")")
            if (ch == "," or ch.isspace()) and depth == 0:
                out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        out.append(cur.strip())
    return tuple(r for r in out if r)
