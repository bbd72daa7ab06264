"""The settings files of a run, merged user < project < local (Codex's config.toml below
them all, Claude Code's file of each scope just below ours), each project file applied as
far as the user's trust goes (agent.config.trust.Trust: a file changed since they trusted the
project is restricted like an untrusted one), and the warning that names what was withheld."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.config import settings as st
from agent.config.claude import ClaudeFlags
from agent.config.claude_files import claude_files, claude_json_servers, read_claude
from agent.config.codex import codex_for, codex_path
from agent.config.mcpfiles import project_servers
from agent.config.plugins import Listed, Plugins, find_plugins, listed_in, their_parts
from agent.config.trust import TRUST_HINT, UNTRUSTED_SHORT, Trust, admits, is_own, not_applied

PROJECT_DIRS = (".agent", ".claude")


def load_settings(
    root: Path,
    trusted: bool | Trust,
    sources: list[tuple[Path, dict[str, Any]]] | None = None,
    only: frozenset[str] | None = None,
    plugins: list[Plugins] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Merge Codex's config.toml < user < project < local settings, Claude Code's file of each
    scope just below ours; restrict the project's files as far as trust goes. Each file read is
    added to `sources` (in our spelling). `only` (--setting-sources) names the scopes read:
    user (with ~/.agent/hooks.json, ~/.codex/config.toml and ~/.claude.json's MCP servers),
    project (with `.agent/hooks.json` and `.mcp.json`), local; None: all of them. The plugins
    found (agent.config.plugins) add their hooks and servers, and go to `plugins`."""
    warnings: list[str] = []
    listed: list[Listed] = []
    why = not_applied(trusted, UNTRUSTED_SHORT)
    codex = codex_for(only)
    warnings += codex.notes
    merged = {k: v for k, v in codex.layer.items() if k != "mcpServers"}
    claude_json = user_servers(root, only, warnings)
    theirs = {**codex.layer.get("mcpServers", {}), **claude_json}
    _note(sources, codex_path(), codex.layer)
    _note(sources, claude_json_path(), {"mcpServers": claude_json} if claude_json else {})
    for path, kind, claude in settings_files(root, only):
        data = read_claude(path, warnings) if claude else st.read_settings(path)
        warnings += [] if claude else st.unknown_keys(path, data)
        _note(sources, path, data)
        data, dropped = applied(root, path, data, trusted) if kind != "user" else (data, [])
        if dropped:
            warnings.append(f"{path}: ignored {', '.join(dropped)} ({why}; {TRUST_HINT})")
        listed += listed_in(path, data, "user" if kind == "user" else "project")
        merged = st.merge(merged, data)
    for path, is_project in _hook_files(root, only):
        hooks = st.read_hooks(path)
        if hooks and is_project and not admits(trusted, path.relative_to(root)):
            warnings.append(f"{path}: hooks ignored ({why}; {TRUST_HINT})")
        elif hooks:
            merged = st.merge(merged, {"hooks": hooks})
    at_home = _at_home(root)
    mcp_ok = admits(trusted, ".mcp.json") or at_home
    mcp_read = only is None or "project" in only
    servers, notes = project_servers(root, mcp_ok) if mcp_read else ({}, [])
    warnings += notes
    servers = {**theirs, **servers, **merged.get("mcpServers", {})}  # settings' entries win
    merged = _with_plugins(root, merged, servers, (listed, only, trusted), warnings, plugins)
    return merged, list(dict.fromkeys(warnings))


def _with_plugins(
    root: Path,
    merged: dict[str, Any],
    servers: dict[str, Any],
    how: tuple[list[Listed], frozenset[str] | None, bool | Trust],
    warnings: list[str],
    out: list[Plugins] | None,
) -> dict[str, Any]:
    """The settings with the plugins' hooks after the files' and their MCP servers below
    every file's (a name taken is said); the installed ones are the user scope's."""
    listed, only, trusted = how
    home = Path(os.path.expanduser("~"))
    found = find_plugins(root, home, listed, merged.get("enabledPlugins", {}), trusted)
    if only is not None and "user" not in only:
        found = Plugins(tuple(p for p in found.found if p.project), found.skipped)
    warnings += [s for s in found.skipped if not s.endswith("turned off by enabledPlugins")]
    hooks, added, notes = their_parts(found, servers)
    warnings += notes
    if hooks:
        merged = st.merge(merged, {"hooks": hooks})
    servers = {**servers, **added}
    if servers:
        merged["mcpServers"] = servers
    if out is not None:
        out.append(found)
    return merged


def settings_files(root: Path, only: frozenset[str] | None) -> list[tuple[Path, str, bool]]:
    """The settings files read, in the order they apply: (path, scope, Claude Code's). At the
    home directory the project's files are the user's own, read once as such."""
    ours = {"user": st.user_dir() / "settings.json", "project": root / ".agent/settings.json",
            "local": root / ".agent/settings.local.json"}  # fmt: skip
    claude = claude_files(root, Path(os.path.expanduser("~")))
    scopes = ("user",) if _at_home(root) else ("user", "project", "local")
    out = []
    for scope in scopes:
        if only is None or scope in only:
            out += [(claude[scope], scope, True), (ours[scope], scope, False)]
    return out


def user_servers(root: Path, only: frozenset[str] | None, notes: list[str]) -> dict[str, Any]:
    """The MCP servers of Claude Code's `~/.claude.json` (the user's own file)."""
    if only is not None and "user" not in only:
        return {}
    return claude_json_servers(root, claude_json_path(), notes)


def claude_json_path() -> Path:
    return Path(os.path.expanduser("~")) / ".claude.json"


def their_servers(sources: tuple[tuple[Path, dict[str, Any]], ...]) -> frozenset[str]:
    """The MCP servers Codex's config.toml and Claude Code's ~/.claude.json declare: the
    user's own files (agent.config.mcpfiles.own_servers, below every file of ours)."""
    theirs = (codex_path(), claude_json_path())
    return frozenset(
        n for path, data in sources if path in theirs for n in data.get("mcpServers", {})
    )


def _hook_files(root: Path, only: frozenset[str] | None) -> list[tuple[Path, bool]]:
    """~/.agent/hooks.json (user) and .agent/hooks.json (project), when their scope is read."""
    files = [(st.user_dir() / "hooks.json", False, "user")]
    if not _at_home(root):
        files.append((root / ".agent/hooks.json", True, "project"))
    return [(p, proj) for p, proj, scope in files if only is None or scope in only]


def _at_home(root: Path) -> bool:
    """A project at ~: its `.agent/` is the user's."""
    return (root / ".agent").resolve() == st.user_dir().resolve()


def _note(
    sources: list[tuple[Path, dict[str, Any]]] | None, path: Path, data: dict[str, Any]
) -> None:
    if sources is not None and data:
        sources.append((path, data))


def is_project_file(root: Path, path: Path) -> bool:
    """One of the project's settings files (`.agent/` or `.claude/`), not the user's."""
    return not _at_home(root) and path.parent.parent == root and path.parent.name in PROJECT_DIRS


def run_settings(
    root: Path,
    trusted: Trust,
    sources: list[tuple[Path, dict[str, Any]]],
    claude: ClaudeFlags,
    servers: dict[str, Any],
    plugins: list[Plugins] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """A run's settings: the files (those --setting-sources names), --settings over them (as in
    Claude Code), then `servers` (--mcp-config's, an editor's: winning a name, as a settings
    entry would; with --strict-mcp-config, the only ones); and the warnings to say."""
    s, warnings = load_settings(root, trusted, sources, claude.sources, plugins)
    warnings += [*withheld_warning(trusted), *claude.notes]
    s = st.merge(s, claude.settings)
    if claude.strict_mcp:
        s = {**s, "mcpServers": {}}
    if servers:
        s = {**s, "mcpServers": {**s.get("mcpServers", {}), **servers}}
    return s, warnings


def applied(
    root: Path, path: Path, data: dict[str, Any], trusted: bool | Trust
) -> tuple[dict[str, Any], list[str]]:
    """What of one of the project's settings files applies, and the keys dropped: all of it as
    far as the user's trust goes (its local file whole when it holds the user's own answers),
    else what an untrusted project may set (agent.config.settings.restrict_untrusted)."""
    own = path.name == "settings.local.json" and is_own(path)  # the user's answers
    if own or admits(trusted, path.relative_to(root)):
        return data, []
    return st.restrict_untrusted(path, data)


def withheld_warning(trust: Trust) -> list[str]:
    """What changed since the user trusted the project: what is not applied (and how to accept
    it), and what is gone (a removed settings file's deny rules no longer hold)."""
    said = []
    if trust.removed:
        said.append(f"removed since you trusted this project: {', '.join(trust.removed)}")
    if trust.withheld:
        said.append(
            "not applied, changed since you trusted this project: "
            f"{', '.join(sorted(trust.withheld))} (to accept them: answer the question `agent` "
            "asks at start, /trust in a session, or --trust-project for one run)"
        )
    return said
