"""The settings files of a run, merged user < project < local, each project file applied as
far as the user's trust goes (agent.config.trust.Trust: a file changed since they trusted the
project is restricted like an untrusted one), and the warning that names what was withheld."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config import settings as st
from agent.config.claude import ClaudeFlags
from agent.config.mcpfiles import project_servers
from agent.config.trust import TRUST_HINT, UNTRUSTED_SHORT, Trust, admits, is_own, not_applied


def load_settings(
    root: Path,
    trusted: bool | Trust,
    sources: list[tuple[Path, dict[str, Any]]] | None = None,
    only: frozenset[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Merge user < project < local settings; restrict the project's files if untrusted.
    Each file read is added to `sources` as it was written. `only` (--setting-sources) names
    the files read: user (and ~/.agent/hooks.json), project (`.agent/settings.json`,
    `.agent/hooks.json`, `.mcp.json`), local; None: all of them."""
    merged: dict[str, Any] = {}
    warnings: list[str] = []
    why = not_applied(trusted, UNTRUSTED_SHORT)
    user = st.user_dir() / "settings.json"
    files = [(user, False)]
    at_home = (root / ".agent").resolve() == user.parent.resolve()  # a project at ~: the user's
    if not at_home:
        files += [
            (root / ".agent/settings.json", True),
            (root / ".agent/settings.local.json", True),
        ]
    kinds = ("user", "project", "local")
    hooked = [p for p, _ in files[:2]]  # ~/.agent/hooks.json, .agent/hooks.json
    read = [f for f, kind in zip(files, kinds, strict=False) if only is None or kind in only]
    for path, is_project in read:
        data = st.read_settings(path)
        warnings += st.unknown_keys(path, data)
        if sources is not None and data:
            sources.append((path, data))
        data, dropped = applied(root, path, data, trusted) if is_project else (data, [])
        if dropped:
            warnings.append(f"{path}: ignored {', '.join(dropped)} ({why}; {TRUST_HINT})")
        merged = st.merge(merged, data)
    for path, is_project in [(p.parent / "hooks.json", proj) for p, proj in read if p in hooked]:
        hooks = st.read_hooks(path)
        if hooks and is_project and not admits(trusted, path.relative_to(root)):
            warnings.append(f"{path}: hooks ignored ({why}; {TRUST_HINT})")
        elif hooks:
            merged = st.merge(merged, {"hooks": hooks})
    mcp_ok = admits(trusted, ".mcp.json") or at_home
    mcp_read = only is None or "project" in only
    servers, notes = project_servers(root, mcp_ok) if mcp_read else ({}, [])
    warnings += notes
    if servers:  # an entry of the same name in a settings file wins
        merged["mcpServers"] = {**servers, **merged.get("mcpServers", {})}
    return merged, warnings


def run_settings(
    root: Path,
    trusted: Trust,
    sources: list[tuple[Path, dict[str, Any]]],
    claude: ClaudeFlags,
    servers: dict[str, Any],
) -> tuple[dict[str, Any], list[str]]:
    """A run's settings: the files (those --setting-sources names), --settings over them (as in
    Claude Code), then `servers` (--mcp-config's, an editor's: winning a name, as a settings
    entry would; with --strict-mcp-config, the only ones); and the warnings to say."""
    s, warnings = load_settings(root, trusted, sources, claude.sources)
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
