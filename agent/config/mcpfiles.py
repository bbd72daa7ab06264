"""The files that declare MCP servers, as `agent mcp add|add-json|get|list|remove` reads and
edits them — Claude Code's scopes, in this agent's files:

- `local`: `<project>/.agent/settings.local.json` (personal, git-ignored; recorded as the user's
  own write, so its servers start before the project is trusted, like remembered answers);
- `project`: `<project>/.mcp.json` (shared with the team; its servers start once the project is
  trusted);
- `user`: `~/.agent/settings.json` (every project).

The project's committed `.agent/settings.json` may declare servers too: they are listed, never
edited here. Which definition of a name is used follows agent.config.load: `.mcp.json` <
user < `.agent/settings.json` < `.agent/settings.local.json`.

A file that does not parse, or whose `mcpServers` is not an object, is a ConfigError naming the
file and the spot, and is never rewritten. Writes replace the file atomically and never go
through a link (agent.config.safefile); the rest of the file is kept as it was parsed.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.agentdir import ensure_agent_dir
from agent.config.settings import ConfigError, read_settings_json, user_dir
from agent.config.trust import UNTRUSTED, is_own, mark_own, repin

SCOPES = ("local", "project", "user")  # what add/remove accept; local is the default
SETTINGS = "project settings"  # the project's .agent/settings.json: listed, not edited


@dataclass(frozen=True)
class Source:
    """One file that may declare servers."""

    scope: str  # local | project | user | project settings (SETTINGS)
    path: Path
    root: Path  # the directory writes stay inside (the project, or ~/.agent)

    @property
    def editable(self) -> bool:
        return self.scope in SCOPES


@dataclass(frozen=True)
class Entry:
    """One server as a file declares it."""

    name: str
    raw: Any  # as written (an object, unless the file is wrong)
    source: Source
    shadowed_by: Source | None = None  # a file that wins declares the same name


def _at_home(root: Path) -> bool:
    """The project is the home directory: its `.agent/` is the user's (agent.config.load)."""
    return (root / ".agent").resolve() == user_dir().resolve()


def sources(root: Path) -> list[Source]:
    """The files in the order agent.config.load applies them, the winning one last."""
    found = [Source("project", root / ".mcp.json", root)]
    found.append(Source("user", user_dir() / "settings.json", user_dir()))
    if not _at_home(root):
        found.append(Source(SETTINGS, root / ".agent" / "settings.json", root))
        found.append(Source("local", root / ".agent" / "settings.local.json", root))
    return found


def source_of(scope: str, root: Path) -> Source:
    """The file a scope's writes go to."""
    if scope not in SCOPES:
        raise ConfigError(f"unknown scope {scope!r}: use {', '.join(SCOPES)}")
    if scope == "local" and _at_home(root):
        raise ConfigError(
            "this project is your home directory, whose .agent/ holds your user settings: "
            "use --scope user"
        )
    return next(s for s in sources(root) if s.scope == scope)


def read_servers(src: Source) -> dict[str, Any]:
    """The file's whole content ({} when it does not exist), checked: ConfigError naming the
    file and the line and column when it is not JSON, or when `mcpServers` is not an object."""
    data = read_settings_json(src.path)
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        got = type(servers).__name__ if servers is not None else "null"
        raise ConfigError(f"{src.path}: key 'mcpServers' must be an object, got {got}")
    return data


def entries(root: Path) -> tuple[list[Entry], list[str]]:
    """Every server every file declares (in the files' order), with the file that overrides
    it; and one error per file that cannot be read (the others are still listed)."""
    found: list[Entry] = []
    errors: list[str] = []
    for src in sources(root):
        try:
            servers = read_servers(src).get("mcpServers", {})
        except ConfigError as e:
            errors.append(str(e))
            continue
        found += [Entry(str(name), raw, src) for name, raw in servers.items()]
    winner = {e.name: e.source for e in found}  # the last file to declare a name wins
    return [
        e if winner[e.name] == e.source else Entry(e.name, e.raw, e.source, winner[e.name])
        for e in found
    ], errors


def add(src: Source, name: str, entry: dict[str, Any]) -> None:
    """Declare `name` in `src`; ConfigError when the file already does (nothing is written)."""
    data = read_servers(src)
    servers = dict(data.get("mcpServers", {}))
    if name in servers:
        raise ConfigError(
            f"an MCP server named {name!r} already exists in {src.path} ({src.scope} scope); "
            f"remove it first: agent mcp remove {name} --scope {src.scope}"
        )
    servers[name] = entry
    _write(src, {**data, "mcpServers": servers})


def remove(src: Source, name: str) -> None:
    """Delete `name` from `src`; ConfigError when the file does not declare it."""
    data = read_servers(src)
    servers = dict(data.get("mcpServers", {}))
    if name not in servers:
        raise ConfigError(f"no MCP server named {name!r} in {src.path} ({src.scope} scope)")
    del servers[name]
    _write(src, {**data, "mcpServers": servers})


def _mode_of(path: Path) -> int:
    """The permissions the rewritten file gets: those it has (a private file stays private),
    0600 for a new one (it may hold headers with credentials)."""
    try:
        return stat.S_IMODE(path.lstat().st_mode)
    except OSError:
        return 0o600


def _write(src: Source, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    was_own = src.scope == "local" and (not src.path.exists() or is_own(src.path))
    try:
        if src.scope == "local":
            ensure_agent_dir(src.root)  # with the .gitignore that keeps the file personal
        safefile.write_atomic(src.root, src.path, text.encode("utf-8"), mode=_mode_of(src.path))
    except safefile.SymlinkRefused as e:
        raise ConfigError(f"{e}; not written") from None
    except OSError as e:
        raise ConfigError(f"{src.path}: cannot write: {e.strerror or e}") from None
    if src.scope == "local":
        mark_own(src.path, text, was_own)
    elif src.scope == "project":
        repin(src.root, ".mcp.json")  # the user's own change: no question next session


def project_servers(root: Path, trusted: bool) -> tuple[dict[str, Any], list[str]]:
    """The raw `mcpServers` of `<root>/.mcp.json` (a settings file of its own), or a warning
    when the project is untrusted: its servers start only once it is trusted."""
    path = root / ".mcp.json"
    if not path.is_file():
        return {}, []
    if not trusted:
        return {}, [f"{path}: MCP servers not started ({UNTRUSTED})"]
    data = read_settings_json(path)
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: key 'mcpServers' must be an object, got {type(servers)}")
    return servers, []


def own_servers(root: Path, trusted: bool, theirs: frozenset[str] = frozenset()) -> frozenset[str]:
    """The servers whose winning definition the user wrote (agent.config.load's order): their
    user settings, a local file the agent wrote for them (`agent mcp add --scope local`), the
    home directory's own files. A repository's `.mcp.json`, `.agent/settings.json` or a
    `settings.local.json` it brought are not the user's, trusted project or not: such a
    server's description of its own tools (`readOnlyHint`) is its claim, not the user's.
    `theirs`: the servers of the user's Codex and Claude Code files, below all of these."""
    owner: dict[str, bool] = dict.fromkeys(theirs, True)
    home = _at_home(root)
    for src in sources(root):
        mine = src.scope == "user" or home or (src.scope == "local" and is_own(src.path))
        if not (mine or trusted):  # an untrusted project's servers do not start at all
            continue
        try:
            servers = read_servers(src).get("mcpServers", {})
        except ConfigError:  # said where the settings are loaded
            continue
        owner.update(dict.fromkeys(map(str, servers), mine))
    return frozenset(name for name, mine in owner.items() if mine)
