"""Claude Code plugins (issue 45): a folder holding `.claude-plugin/plugin.json`, loaded as one
unit — its `commands/`, `agents/`, `skills/`, hooks (`hooks/hooks.json`, or plugin.json's
`hooks`: a path or an object) and MCP servers (`.mcp.json`, or plugin.json's `mcpServers`).

Found under `~/.claude/plugins/` (what Claude Code installed: its `marketplaces/` catalogues
are what could be installed, not read) and `~/.agent/plugins/`, at most MAX_DEPTH folders
down, links not followed; and at the paths settings' `plugins` lists (relative to the
settings file's folder). A project's list is project scope: its plugins load only once the
project is trusted, each one inside the project, pinned file by file as its other
configuring files are (agent.config.pins), so one changed file withholds the whole plugin.
Claude Code's `enabledPlugins` (`{"name@marketplace": false}`) turns a plugin off by name.
`${CLAUDE_PLUGIN_ROOT}` in hook commands and MCP server entries is the plugin's folder.
Each part joins its loader at the plugin's scope: skills (agent.skills.catalog), commands as
`/plugin:command` (agent.commands.user), agent definitions (agent.subagents.defs), hooks and
MCP servers into the settings (agent.config.layers).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from agent.config.settings import ConfigError, check_hooks
from agent.config.trust import Trust, admits, not_applied

MANIFEST = Path(".claude-plugin") / "plugin.json"
MAX_DEPTH = 5  # folders below a plugins folder where a plugin may sit
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
NOT_INSTALLED = ("marketplaces",)  # under ~/.claude/plugins: catalogues, not installed plugins


class Plugin(NamedTuple):  # a NamedTuple: ~5× cheaper to define than a dataclass (start-up)
    """One plugin and where each of its parts is."""

    name: str
    root: Path
    scope: str  # "user" | "project"
    version: str = ""
    description: str = ""
    commands: tuple[Path, ...] = ()  # folders of *.md (or single files)
    agents: tuple[Path, ...] = ()
    skills: tuple[Path, ...] = ()  # folders of */SKILL.md
    hooks: Mapping[str, Any] = MappingProxyType({})  # our hooks config, root expanded
    servers: Mapping[str, Any] = MappingProxyType({})  # mcpServers, root expanded

    @property
    def project(self) -> bool:
        return self.scope == "project"


class Plugins(NamedTuple):
    """The plugins of a run and what was skipped, with why (said at start and by /plugins)."""

    found: tuple[Plugin, ...] = ()
    skipped: tuple[str, ...] = ()

    def user_servers(self, servers: dict[str, Any]) -> frozenset[str]:
        """The MCP servers of the user's own plugins that won their name in `servers` (the
        run's): the user's own, as if declared in their settings."""
        return frozenset(
            n
            for p in self.found
            if not p.project
            for n, entry in p.servers.items()
            if servers.get(n) == entry
        )


class Listed(NamedTuple):
    """A plugin folder a settings file names, and the scope of that file."""

    path: Path
    scope: str
    source: Path


def listed_in(path: Path, data: dict[str, Any], scope: str) -> list[Listed]:
    """The `plugins` a settings file lists, as folders (relative to the file's folder)."""
    got = data.get("plugins")
    items = [got] if isinstance(got, str) else got if isinstance(got, list) else []
    base = path.parent
    return [
        Listed((base / os.path.expanduser(p)).resolve(), scope, path)
        for p in items
        if isinstance(p, str) and p.strip()
    ]


def installed(home: Path) -> list[Path]:
    """The plugin folders under ~/.claude/plugins and ~/.agent/plugins, in a fixed order."""
    out: list[Path] = []
    for top in (home / ".claude" / "plugins", home / ".agent" / "plugins"):
        if not top.is_dir():
            continue
        for here, dirs, _ in os.walk(top):  # links are not followed out of it
            depth = len(Path(here).relative_to(top).parts)
            if (Path(here) / MANIFEST).is_file():
                out.append(Path(here))
                dirs[:] = []
                continue
            skip = NOT_INSTALLED if depth == 0 and top.parent.name == ".claude" else ()
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
            if depth >= MAX_DEPTH:
                dirs[:] = []
    return out


def find_plugins(
    root: Path,
    home: Path,
    listed: list[Listed],
    enabled: dict[str, Any],
    trusted: bool | Trust,
) -> Plugins:
    """Every plugin found and listed, a name found twice kept once (said), those turned off
    by `enabledPlugins` and a project's the user has not trusted (or changed since) left out."""
    off = {str(k).split("@", 1)[0] for k, v in enabled.items() if v is False}
    wanted = [(p, "user", "") for p in installed(home)]
    wanted += [(x.path, x.scope, f" (listed in {x.source})") for x in listed]
    found: dict[str, Plugin] = {}
    skipped: list[str] = []
    for folder, scope, where in wanted:
        why = _refused(root, folder, scope, trusted)
        got = why or read_plugin(folder, scope)
        if isinstance(got, str):
            skipped.append(f"plugin {folder}{where}: {got}")
        elif got.name in off:
            skipped.append(f"plugin {got.name} ({folder}): turned off by enabledPlugins")
        elif got.name in found:
            if found[got.name].root != got.root:
                skipped.append(f"plugin {got.name} ({folder}): hidden by {found[got.name].root}")
        else:
            found[got.name] = got
    return Plugins(tuple(found.values()), tuple(skipped))


def _refused(root: Path, folder: Path, scope: str, trusted: bool | Trust) -> str:
    """Why a listed folder may not load ('' when it may)."""
    if scope == "user":
        return ""
    if not folder.is_relative_to(root.resolve()):
        return "outside the project: a project's plugin must be inside it"
    if not admits(trusted, folder.relative_to(root.resolve())):
        return f"waits for your trust ({not_applied(trusted)})"
    return ""


def read_plugin(folder: Path, scope: str) -> Plugin | str:
    """One plugin folder, or what is wrong with it."""
    try:
        meta = json.loads((folder / MANIFEST).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return f"{MANIFEST} not read ({e})"
    if not isinstance(meta, dict):
        return f"{MANIFEST} is not a JSON object"
    name = str(meta.get("name") or folder.name)
    try:
        hooks = _part(folder, meta.get("hooks"), "hooks/hooks.json", "hooks")
        servers = _part(folder, meta.get("mcpServers"), ".mcp.json", "mcpServers")
        check_hooks(folder / MANIFEST, hooks)
    except (ValueError, ConfigError) as e:
        return str(e)
    return Plugin(
        name=name,
        root=folder,
        scope=scope,
        version=str(meta.get("version") or ""),
        description=str(meta.get("description") or ""),
        commands=_folders(folder, meta.get("commands"), "commands"),
        agents=_folders(folder, meta.get("agents"), "agents"),
        skills=_folders(folder, meta.get("skills"), "skills"),
        hooks=expand_root(hooks, folder),
        servers=expand_root(servers, folder),
    )


def _folders(folder: Path, given: Any, default: str) -> tuple[Path, ...]:
    """The default folder of a part (when it is there) and the paths plugin.json adds."""
    extra = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    paths = [folder / default, *(folder / p for p in extra if isinstance(p, str))]
    return tuple(dict.fromkeys(p for p in paths if p.exists()))


def _part(folder: Path, given: Any, default: str, key: str) -> dict[str, Any]:
    """A JSON part (hooks, MCP servers): plugin.json's object, or the file it (or the default
    path) names; ValueError for one that cannot be read."""
    if isinstance(given, dict):
        data: Any = given
    else:
        path = folder / (given if isinstance(given, str) else default)
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise ValueError(f"{path} not read ({e})") from None
    if isinstance(data, dict) and isinstance(data.get(key), dict):
        data = data[key]  # {"hooks": {...}} / {"mcpServers": {...}}
    if not isinstance(data, dict):
        raise ValueError(f"its {key} is not a JSON object")
    return data


def expand_root(value: Any, folder: Path) -> Any:
    """`value` with ${CLAUDE_PLUGIN_ROOT} in every string turned into the plugin's folder."""
    if isinstance(value, str):
        return value.replace(ROOT_VAR, str(folder))
    if isinstance(value, list):
        return [expand_root(v, folder) for v in value]
    if isinstance(value, dict):
        return {k: expand_root(v, folder) for k, v in value.items()}
    return value


def their_parts(
    plugins: Plugins, servers: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The plugins' hooks (each event's entries, in order) and the MCP servers they add to
    `servers` (a name taken already is kept, and said), with those warnings."""
    hooks: dict[str, Any] = {}
    added: dict[str, Any] = {}
    notes: list[str] = []
    for p in plugins.found:
        for event, entries in p.hooks.items():
            if isinstance(entries, list):
                hooks[event] = [*hooks.get(event, []), *entries]
        for name, entry in p.servers.items():
            if name in servers or name in added:
                notes.append(f"plugin {p.name}: MCP server {name!r} not added: the name is taken")
            else:
                added[name] = entry
    return hooks, added, notes
