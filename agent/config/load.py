"""load_config(flags, env, cwd) -> Config: environment, .env, settings files and flags merged."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import settings as st
from agent.config.automation import Automation, automation_from
from agent.config.choice import check_url, pick_model, pick_provider
from agent.config.claude import ClaudeFlags, claude_flags, permission_mode
from agent.config.codex import codex_for
from agent.config.envfiles import EnvFiles, load_env_files, use_settings_env
from agent.config.keys import api_key, key_from
from agent.config.layers import load_settings, run_settings, their_servers
from agent.config.mcpfiles import own_servers
from agent.config.modes import SANDBOX_MODES, PermissionMode
from agent.config.plugins import Plugins
from agent.config.prices import Price, price_for
from agent.config.providers import PRESETS, Provider
from agent.config.settings import ConfigError
from agent.config.trust import Trust, state_of
from agent.config.view import Settings

__all__ = ["Config", "ConfigError", "Flags", "load_config", "load_settings"]


if TYPE_CHECKING:  # annotations only
    from argparse import Namespace


@dataclass(frozen=True)
class Flags:
    """Command-line choices that override settings (None = not given)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    think: bool = False
    max_turns: int | None = None
    permission_mode: PermissionMode | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    trust_project: bool = False
    no_mcp: bool = False
    verbose: bool = False
    sandbox: str | None = None  # --sandbox MODE
    add_dirs: tuple[str, ...] = ()  # --add-dir: more permissions.additionalDirectories
    automation: Automation = field(default_factory=Automation)  # --output-schema, budgets…
    # MCP servers an editor passes with an ACP session, or --mcp-config (the user's choice)
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    claude: ClaudeFlags = field(default_factory=ClaudeFlags)  # Claude Code's flags (the SDKs')


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait for the first token, between data, and for a whole request."""

    first_token: float = 120.0
    idle: float = 90.0
    total: float = 900.0


@dataclass(frozen=True)
class Config:
    """Everything a run needs, resolved once at start-up."""

    cwd: Path
    root: Path
    provider: Provider
    model: str
    base_url: str
    api_key: str
    think: bool
    extra_body: dict[str, Any]
    max_steps: int
    temperature: float | None
    permission_mode: PermissionMode
    permissions: dict[str, Any]
    settings: dict[str, Any]
    # The environment `${VAR}` in settings (MCP servers) expands from: the real one, the user's
    # .env, a trusted project's .env (never an untrusted one's), then settings' env.
    env: dict[str, str] = field(default_factory=dict)
    env_ignored: tuple[str, ...] = ()  # names an untrusted project's .env may not set
    key_from: tuple[str, str] = ("", "")  # (variable, where) of the key (agent.config.keys)
    trust: Trust = field(default_factory=Trust)  # what of the project may be applied
    timeouts: Timeouts = field(default_factory=Timeouts)
    warnings: tuple[str, ...] = ()
    # Each settings file read, with what it held: the layers above check their own parts
    # (permission rules, MCP entries, actions) and add warnings naming the file (agent.app).
    sources: tuple[tuple[Path, dict[str, Any]], ...] = ()
    no_mcp: bool = False
    verbose: bool = False
    sandbox_flag: str = ""  # --sandbox MODE ("" = the `sandbox` setting, or the default)
    sandbox_consent: bool = False  # --sandbox workspace-write on the command line, this run
    automation: Automation = field(default_factory=Automation)  # agent.config.automation
    # The MCP servers the user declared themselves (agent.config.mcpfiles.own_servers)
    mcp_own: frozenset[str] = frozenset()
    claude: ClaudeFlags = field(default_factory=ClaudeFlags)  # agent.config.claude
    plugins: Plugins = field(default_factory=Plugins)  # agent.config.plugins

    @property
    def trusted(self) -> bool:
        """The user trusts the project folder (trust.withheld may still hold files)."""
        return self.trust.folder

    @property
    def options(self) -> Settings:
        """The settings, typed (agent.config.view)."""
        return Settings(self.settings)

    def price(self, model: str) -> Price | None:
        """What `model` costs here (agent.config.prices); None when nobody knows."""
        return price_for(model, self.provider.name, self.settings)


def _timeouts(t: Mapping[str, Any]) -> Timeouts:
    d = Timeouts()
    first, idle = t.get("firstToken", d.first_token), t.get("idle", d.idle)
    return Timeouts(float(first), float(idle), float(t.get("total", d.total)))


# model requests in one user turn, unless --max-turns or maxTurns says: high, as a long task
# needs; a model in a loop is stopped by its repeats (agent.core.turn_state.STUCK_LIMIT)
MAX_STEPS = 200


def _max_steps(flag: int | None, setting: Any) -> int:
    value = flag if flag is not None else setting
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        where = "--max-turns" if flag is not None else "maxTurns in settings"
        raise ConfigError(f"{where} must be a whole number of at least 1, not {value!r}")
    return value


def _permissions(flags: Flags, s: dict[str, Any]) -> dict[str, Any]:
    """The settings' permissions with the command line's rules added to their lists."""
    perms = dict(s.get("permissions", {}))
    perms["alwaysAllow"] = [*perms.get("alwaysAllow", []), *flags.allowed_tools]
    if flags.add_dirs:
        perms["additionalDirectories"] = [*perms.get("additionalDirectories", []), *flags.add_dirs]
    perms["neverAllow"] = [
        *perms.get("neverAllow", []),
        *s.get("disallowedTools", []),
        *flags.disallowed_tools,
    ]
    return perms


def _think_body(p: Provider, flags: Flags, model: str, warnings: list[str]) -> dict[str, Any]:
    """The extra request fields --think adds; a warning when the provider has no way to think."""
    body = p.thinking_body if flags.think and model != p.thinking_model else {}
    if flags.think and not body and model != p.thinking_model:
        warnings.append(
            f"--think: provider {p.name} has no reasoning model or thinking switch configured; "
            f"using {model} as it is (set thinkingModel or thinkingBody in settings, or pick a "
            "reasoning model with --model)"
        )
    return dict(body)


def load_config(flags: Flags, env: dict[str, str] | None = None, cwd: Path | None = None) -> Config:
    """Resolve the run's configuration; raises ConfigError (exit 2) with a fix-it message."""
    cwd = (cwd or Path.cwd()).resolve()
    root = st.project_root(cwd)
    trust = state_of(root, flags.trust_project)
    sources: list[tuple[Path, dict[str, Any]]] = []
    found: list[Plugins] = []
    s, warnings = run_settings(root, trust, sources, flags.claude, flags.mcp_servers, found)
    plugins = found[0] if found else Plugins()
    files, env, expand = _environment(dict(os.environ if env is None else env), root, trust, s)
    warnings = [*files.warning(), *warnings]
    codex = codex_for(flags.claude.sources)
    p = pick_provider(flags.provider, flags.base_url, env, s, codex)
    base_url = flags.base_url or env.get("AGENT_BASE_URL") or s.get("baseUrl") or p.base_url
    if not base_url:
        raise ConfigError("provider custom needs a base URL: set AGENT_BASE_URL or --base-url")
    check_url(base_url)
    model = pick_model(p, flags.model, flags.think, env, s, codex)
    think_body = _think_body(p, flags, model, warnings)
    perms = _permissions(flags, s)
    return Config(
        cwd=cwd,
        root=root,
        provider=p,
        model=model,
        base_url=base_url,
        api_key=(key := api_key(p, env, s, files, base_url)),
        key_from=key_from(p, env, s, files.origin, key),
        think=flags.think,
        extra_body=dict(think_body),
        max_steps=_max_steps(flags.max_turns, s.get("maxTurns", MAX_STEPS)),
        temperature=s.get("temperature"),
        permission_mode=flags.permission_mode or perms.get("mode") or "default",
        permissions=perms,
        settings=s,
        trust=trust,
        env=expand,
        env_ignored=files.ignored,
        timeouts=_timeouts(s.get("timeouts", {})),
        warnings=(*warnings, *flags.automation.warnings(model, price_for(model, p.name, s))),
        sources=tuple(sources),
        no_mcp=flags.no_mcp,
        verbose=flags.verbose,
        sandbox_flag=_sandbox_mode(flags, env),
        sandbox_consent=flags.sandbox == "workspace-write",
        automation=flags.automation,
        mcp_own=_own_servers(root, trust, tuple(sources), flags, plugins, s),
        claude=flags.claude,
        plugins=plugins,
    )


def _own_servers(
    root: Path,
    trust: Trust,
    sources: tuple[tuple[Path, dict[str, Any]], ...],
    flags: Flags,
    plugins: Plugins,
    s: dict[str, Any],
) -> frozenset[str]:
    """The MCP servers the user declared: in their files, an editor's, their plugins'."""
    mine = own_servers(root, trust.folder, their_servers(sources)) | frozenset(flags.mcp_servers)
    return mine | plugins.user_servers(s.get("mcpServers", {}))


def _environment(
    real: dict[str, str], root: Path, trust: Trust, s: dict[str, Any]
) -> tuple[EnvFiles, dict[str, str], dict[str, str]]:
    """The .env files read under the real environment; the environment the agent reads its
    own variables from (settings' `env` fills gaps only); what `${VAR}` in settings expands
    from (agent.config.envfiles)."""
    guarded = [s.get("apiKeyEnv", ""), *(p.api_key_env for p in PRESETS.values())]
    files = load_env_files(real, root, st.user_dir(), trust.admits(".env"), guarded)
    settings_env = {k: str(v) for k, v in s.get("env", {}).items()}
    use_settings_env(settings_env)
    env = {**files.env, **{k: v for k, v in settings_env.items() if k not in files.env}}
    return files, env, {**settings_env, **files.expand}


def _sandbox_mode(flags: Flags, env: dict[str, str]) -> str:
    """--sandbox > AGENT_SANDBOX ("" = the `sandbox` setting, then the platform's default)."""
    mode = flags.sandbox or env.get("AGENT_SANDBOX", "").strip()
    if mode and mode not in SANDBOX_MODES:
        raise ConfigError(f"AGENT_SANDBOX must be one of {', '.join(SANDBOX_MODES)}")
    return mode


def flags_from(args: Namespace) -> Flags:
    """The Flags of parsed command-line arguments (agent.cli's parser)."""
    servers: dict[str, Any] = {}  # --mcp-config's
    claude = claude_flags(args, servers)
    return Flags(
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        think=args.think or claude.think,
        max_turns=args.max_turns,
        permission_mode=permission_mode(args.permission_mode),
        allowed_tools=st.split_rules(args.allowed_tools),
        disallowed_tools=st.split_rules(args.disallowed_tools),
        trust_project=args.trust_project,
        no_mcp=args.no_mcp,
        verbose=args.verbose,
        sandbox=args.sandbox,
        add_dirs=tuple(getattr(args, "add_dir", None) or ()),
        automation=automation_from(args),
        mcp_servers=servers,
        claude=claude,
    )
