"""Where a run's API key comes from, and — when there is none — what to do: which variable,
which file to keep it in, why a project's own .env was not read, which providers there are."""

from __future__ import annotations

from typing import Any

from agent.config.envfiles import EnvFiles
from agent.config.errors import ConfigError
from agent.config.providers import PRESETS, Provider, hide_key
from agent.config.settings import user_dir


def api_key(p: Provider, env: dict[str, str], s: dict[str, Any], files: EnvFiles) -> str:
    """AGENT_API_KEY, else the provider's variable; exit 2 saying where a key goes if needed."""
    var = s.get("apiKeyEnv") or p.api_key_env
    hide_key(var)  # commands the model runs never see it
    key = env.get("AGENT_API_KEY") or env.get(var, "")
    if key:
        return key
    if p.needs_key:
        raise ConfigError(_no_key(p, var, files))
    return "sk-no-key-needed"


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
