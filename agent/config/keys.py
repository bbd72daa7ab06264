"""Where a run's API key comes from, and — when there is none — what to do: which variable,
which file to keep it in, why a project's own .env was not read, which providers there are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config import keystore
from agent.config.envfiles import SETTINGS_ENV, EnvFiles
from agent.config.errors import ConfigError
from agent.config.providers import PRESETS, Provider, hide_key
from agent.config.settings import user_dir

KEYRING = "the OS keyring"


class NoKey(ConfigError):
    """A provider that needs a key has none: a one-shot run stops with the message, an
    interactive one offers the set-up (agent.ui.setup) with what this run would have used."""

    def __init__(self, message: str, p: Provider, var: str, base_url: str, found: Path | None):
        super().__init__(message)
        self.provider, self.var, self.base_url = p, var, base_url
        self.in_project = found  # the untrusted project's .env that holds the key


def api_key(
    p: Provider, env: dict[str, str], s: dict[str, Any], files: EnvFiles, base_url: str = ""
) -> str:
    """AGENT_API_KEY, else the provider's variable, else the OS keyring (when the set-up kept
    it there); NoKey (exit 2) saying where a key goes if one is needed."""
    var = s.get("apiKeyEnv") or p.api_key_env
    hide_key(var)  # commands the model runs never see it
    name = _named(var, env)
    if name:
        return env[name]
    if p.needs_key:
        key = keystore.from_keyring(var)  # imports keyring only now, when nothing else had one
        if key:
            return key
        found = [n for n in (var, "AGENT_API_KEY") if n in files.ignored]
        in_project = files.path if found else None
        raise NoKey(_no_key(p, var, files), p, var, base_url or p.base_url, in_project)
    return "sk-no-key-needed"


def _named(var: str, env: dict[str, str]) -> str:
    """The variable the key is read from: AGENT_API_KEY, else the provider's ("" = neither)."""
    return next((n for n in ("AGENT_API_KEY", var) if env.get(n)), "")


def key_from(
    p: Provider, env: dict[str, str], s: dict[str, Any], origin: dict[str, str], key: str
) -> tuple[str, str]:
    """(variable, where it was found) of the run's `key` — never the key; ("", "") when none
    is sent. A key no variable held came from the OS keyring (the set-up kept it there)."""
    var = s.get("apiKeyEnv") or p.api_key_env
    name = _named(var, env)
    if name:
        return name, origin.get(name, SETTINGS_ENV)  # the files' and environment's are named
    return (var, KEYRING) if p.needs_key and key else ("", "")


def _no_key(p: Provider, var: str, files: EnvFiles) -> str:
    """Where the key goes, which other providers there are, and — when the project's own .env
    holds it — why that one was not read."""
    said = (
        f"no API key for provider {p.name}: set {var} (or AGENT_API_KEY) in the environment or "
        f"in {user_dir() / '.env'} (yours, outside any project)"
    )
    found = [n for n in (var, "AGENT_API_KEY") if n in files.ignored]
    if found and files.path is not None:
        said += (
            f". {found[0]} is in {files.path}, but a project's .env is read only once you trust "
            "the project: move the key to your own .env, or trust it (--trust-project, or the "
            "REPL's trust prompt)"
        )
    others = ", ".join(
        f"{q.name} ({q.api_key_env})" if q.needs_key else f"{q.name} (no key; --base-url)"
        for q in PRESETS.values()
        if q.name != p.name
    )
    return f"{said}. Providers (--provider): {others}"
