"""What every front end does before a session starts: load the configuration and add the
warnings the layers above config owe it (settings rules that do not parse, a broken
`.agent/actions.json`, bad MCP entries and unset `${VAR}`s), each said once, naming its file.

Kept apart from agent.app (openai and the whole session, ~290 ms to import) so that the REPL's
prompt is drawn before any of that loads.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent.actions.registry import load_actions
from agent.config.load import Config, Flags, load_config
from agent.config.trust import at_home
from agent.mcp.config import load_specs
from agent.permissions.rules import Vocabulary, bad_rules
from agent.session.migrate import migrate


def configure(flags: Flags, env: dict[str, str] | None = None, cwd: Path | None = None) -> Config:
    """The run's Config (agent.config.load) with the warnings the layers above config owe it:
    settings rules that do not parse, a broken `.agent/actions.json`, bad MCP entries and unset
    `${VAR}`s — each said once, at start-up, naming its file. Sessions an earlier version kept
    in the project move to the state directory first (said once), so `-c`/`-r` find them."""
    cfg = load_config(flags, env, cwd)
    moved = migrate(cfg.root)
    notes = [moved] if moved else []
    if at_home(cfg.root, Path.home()):
        notes.append(
            f"the project is your home directory ({cfg.root}): everything below it is in reach "
            "of the agent's tools; start it in a project's folder instead"
        )
    notes += _rule_warnings(cfg)
    notes += load_actions(cfg.root, cfg.trust).warnings
    if cfg.options.mcp_servers and not cfg.no_mcp:
        notes += load_specs(cfg.options, cfg.env)[1]
    return replace(cfg, warnings=(*cfg.warnings, *notes)) if notes else cfg


def _rule_warnings(cfg: Config) -> list[str]:
    """Rules in settings files that do not parse. What a specifier means depends on the tool
    (a command, a path, a domain), so only rules with one need the tool records."""
    with_spec = any(
        "(" in str(rule)
        for _, data in cfg.sources
        for rules in (data.get("permissions") or {}).values()
        if isinstance(rules, list)
        for rule in rules
    )
    if not with_spec:
        vocab = Vocabulary()
    else:
        # deferred: ~30 ms of tool modules, before the REPL's prompt: only when rules need them
        from agent.tools.builtin import builtin_tools

        vocab = Vocabulary.of(builtin_tools())
    return [w for path, data in cfg.sources for w in bad_rules(path, data, cfg.root, vocab)]
