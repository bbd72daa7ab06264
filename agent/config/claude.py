"""Claude Code's command-line flags, as the Claude Agent SDKs pass them to the CLI they spawn
(issue 44), turned into configuration: `--tools`, `--agents`, `--mcp-config`,
`--strict-mcp-config`, `--settings`, `--setting-sources`, `--session-id`, `--fork-session`,
`--permission-prompt-tool`, the thinking flags, and the flags accepted with a note on stderr
because nothing here matches them (`--betas`, `--effort`, `--fallback-model`…).

Values are read and checked once, at start-up: a file that cannot be read, JSON that does not
parse or an entry of the wrong shape stops the run (exit 2) with a message naming the flag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.config import settings as st
from agent.config.claude_json import agents_of, mcp_configs, settings_layer
from agent.config.errors import ConfigError
from agent.config.modes import PermissionMode, is_mode

if TYPE_CHECKING:  # annotations only
    from argparse import Namespace

_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)

__all__ = ["ClaudeFlags", "claude_flags", "permission_mode"]

SOURCES = ("user", "project", "local")  # --setting-sources
# Flags that change nothing here, with what the note on stderr says of them.
NO_EFFECT = {
    "betas": "Anthropic API betas do not apply to an OpenAI-compatible endpoint",
    "effort": "no reasoning-effort setting for every provider (thinkingBody in settings sets one)",
    "fallback_model": "no fallback model here; every request goes to the run's model",
    "thinking_display": "reasoning is shown as the model sends it",
    "include_hook_events": "hook runs are not reported as messages",
    "plugin_dir": 'not read: name the folder in settings\' "plugins" (docs: plugins)',
    "task_budget": "no task budget here (--max-tokens-total caps the run's tokens)",
    "resume_session_at": "a session resumes whole, with every message",
    "resume_drops_turn": "a session resumes whole, with every message",
    "session_mirror": "sessions are kept by the agent only (agent -r lists them)",
}


@dataclass(frozen=True)
class ClaudeFlags:
    """What the Claude Code flags ask of a run (all off by default)."""

    tools: tuple[str, ...] | None = None  # --tools: the built-in tools offered (None = all)
    # --agents: name -> its JSON definition (read as agent.subagents.defs.from_json reads it)
    agents: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    sdk_servers: frozenset[str] = frozenset()  # --mcp-config "type": "sdk" (the program's)
    strict_mcp: bool = False  # --strict-mcp-config: only the --mcp-config servers
    settings: dict[str, Any] = field(default_factory=dict)  # --settings, checked, our spelling
    sources: frozenset[str] | None = None  # --setting-sources (None = every settings file)
    session_id: str = ""  # --session-id: the new session's id
    fork_session: bool = False  # --fork-session: resume into a new session
    prompt_tool: str = ""  # --permission-prompt-tool ("stdio": the program answers)
    think: bool = False  # --thinking adaptive|enabled, --max-thinking-tokens N > 0
    notes: tuple[str, ...] = ()  # said on stderr at start


def claude_flags(args: Namespace, mcp: dict[str, Any]) -> ClaudeFlags:
    """The ClaudeFlags of parsed arguments (agent.cli); the --mcp-config servers are added to
    `mcp` (the run's own servers). Raises ConfigError."""
    notes = _said(args)
    sdk: set[str] = set()
    for name, entry in mcp_configs(getattr(args, "mcp_config", None) or []).items():
        mcp[name] = entry
        if isinstance(entry, dict) and entry.get("type") == "sdk":
            sdk.add(name)
    agents = agents_of(getattr(args, "agents", None), notes)
    settings = settings_layer(getattr(args, "settings", None), notes)
    return ClaudeFlags(
        tools=_tools(getattr(args, "tools", None)),
        agents=agents,
        sdk_servers=frozenset(sdk),
        strict_mcp=bool(getattr(args, "strict_mcp_config", False)),
        settings=settings,
        sources=_sources(getattr(args, "setting_sources", None)),
        session_id=_session_id(getattr(args, "session_id", None)),
        fork_session=bool(getattr(args, "fork_session", False)),
        prompt_tool=getattr(args, "permission_prompt_tool", None) or "",
        think=_thinks(args, notes),
        notes=tuple(notes),
    )


def _said(args: Namespace) -> list[str]:
    """The notes for flags given that change nothing here, or less than in Claude Code."""
    notes: list[str] = []
    for name, why in NO_EFFECT.items():
        value = getattr(args, name, None)
        if value not in (None, False, [], ""):
            notes.append(f"--{name.replace('_', '-')} has no effect: {why}")
    partial = getattr(args, "include_partial_messages", False)
    if partial and getattr(args, "output_format", "") != "stream-json":
        notes.append("--include-partial-messages has no effect without --output-format stream-json")
    if getattr(args, "permission_mode", None) == "auto":
        notes.append("--permission-mode auto: no classifier here; the default mode asks instead")
    prompt_tool = getattr(args, "permission_prompt_tool", None) or ""
    served = prompt_tool == "stdio" and getattr(args, "input_format", "") == "stream-json"
    if prompt_tool and not served:
        notes.append(
            f"--permission-prompt-tool {prompt_tool}: only `stdio` with --input-format "
            "stream-json is served; calls that need approval are denied"
        )
    return notes


def permission_mode(value: str | None) -> PermissionMode | None:
    """--permission-mode; Claude Code's `auto` (a model classifies each call) is `default`."""
    if value == "auto":
        return "default"
    return value if is_mode(value) else None


def _tools(value: str | None) -> tuple[str, ...] | None:
    """--tools: `default` (or not given) offers every built-in tool; "" none; else the names."""
    if value is None or value.strip() == "default":
        return None
    return st.split_rules([value])


def _sources(value: str | None) -> frozenset[str] | None:
    if value is None:
        return None
    names = st.split_rules([value])
    bad = [n for n in names if n not in SOURCES]
    if bad:
        raise ConfigError(
            f"--setting-sources: unknown source {bad[0]!r}; use a comma list of "
            f'{", ".join(SOURCES)} (or "" for none)'
        )
    return frozenset(names)


def _session_id(value: str | None) -> str:
    if not value:
        return ""
    if not _UUID.fullmatch(value):  # (not the uuid module: it loads `platform`, ~5 ms)
        raise ConfigError(f"--session-id {value!r}: not a UUID")
    return value


def _thinks(args: Namespace, notes: list[str]) -> bool:
    """--thinking adaptive|enabled and --max-thinking-tokens N (N > 0) turn on --think; the
    budget itself is not sent (said once)."""
    mode = getattr(args, "thinking", None)
    budget = getattr(args, "max_thinking_tokens", None)
    if mode not in (None, "adaptive", "enabled", "disabled"):
        raise ConfigError(f"--thinking {mode!r}: use adaptive, enabled or disabled")
    if budget is not None and budget < 0:
        raise ConfigError(f"--max-thinking-tokens must be 0 or more, not {budget}")
    if mode == "disabled" or (mode is None and not budget):
        return False
    if budget:
        notes.append(f"--max-thinking-tokens {budget}: reasoning is on, as with --think; "
                     "the provider decides how many tokens it takes")  # fmt: skip
    return True
