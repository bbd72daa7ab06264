"""Which provider, endpoint and model a run uses: the command line, then the environment, then
settings files, then Codex's `config.toml` (agent.config.codex), then the defaults."""

from __future__ import annotations

from typing import Any

from agent.config.codex import Codex
from agent.config.errors import ConfigError
from agent.config.providers import Provider, preset, with_overrides

DEFAULT_PROVIDER = "deepseek"  # with no provider named, no base URL and no OpenAI-only key


def pick_provider(
    flag: str | None, base_flag: str | None, env: dict[str, str], s: dict[str, Any], codex: Codex
) -> Provider:
    """--provider > settings > custom when AGENT_BASE_URL (or --base-url) is set > Codex's
    model_provider > deepseek (or openai); a Codex `[model_providers.NAME]` is a name too."""
    name = flag or s.get("provider")
    if not name:
        if env.get("AGENT_BASE_URL") or base_flag:
            name = "custom"
        elif codex.provider:
            name = codex.provider
        elif not env.get("DEEPSEEK_API_KEY") and env.get("OPENAI_API_KEY"):
            name = "openai"
        else:
            name = DEFAULT_PROVIDER
    try:
        return with_overrides(preset(name, codex.providers), s)
    except KeyError as e:
        raise ConfigError(str(e.args[0])) from None


def pick_model(
    p: Provider, flag: str | None, think: bool, env: dict[str, str], s: dict[str, Any], codex: Codex
) -> str:
    """--model > AGENT_MODEL > settings > Codex's `model` (when the run uses the provider Codex
    sends it to) > preset; --think swaps in the reasoning model."""
    theirs = codex.model if p.name == codex.served_by else ""
    explicit = flag or env.get("AGENT_MODEL") or s.get("model") or theirs
    if think and not flag and p.thinking_model:
        return p.thinking_model
    model = explicit or p.model
    if not model:
        raise ConfigError(f"provider {p.name} needs a model: set AGENT_MODEL or pass --model")
    return model


def check_url(url: str) -> None:
    """A base URL the client can use, said before any request: `localhost:8080/v1` would
    fail five times over as a relative path."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("http", "https") or not rest.strip("/"):
        bare = rest or url
        raise ConfigError(
            f"the base URL {url!r} needs http:// or https://: e.g. http://{bare} for a local "
            f"server, https://{bare} for a hosted one (--base-url, AGENT_BASE_URL or baseUrl)"
        )
