"""Where a run's API key came from (for /status and /doctor): the variable, and the place it was
read from — the environment, the user's `~/.agent/.env`, a trusted project's `.env`, the
settings' `env` — in the order agent.config.load reads them (agent.config.keys picks the key:
AGENT_API_KEY, else the provider's variable), else the OS keyring the set-up kept it in
(agent.config.keystore). Never the key itself."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.config.envfiles import file_values as env_file_values
from agent.config.settings import user_dir
from agent.config.trust import at_home

if TYPE_CHECKING:  # annotations only
    from agent.config.load import Config

ENVIRONMENT = "the environment"
SETTINGS_ENV = "the settings' env"
KEYRING = "the OS keyring"


@dataclass(frozen=True)
class KeySource:
    """The variable the key was read from and where ("" and "": no key is sent)."""

    variable: str = ""
    place: str = ""
    wanted: str = ""  # the provider's variable (apiKeyEnv, else the preset's)

    def __str__(self) -> str:
        if not self.variable:
            return "none"
        return f"{self.variable} from {self.place}"


def _places(cfg: Config, environ: Mapping[str, str]) -> list[tuple[str, Mapping[str, str]]]:
    """Where a variable is looked up, the first place that has it winning."""
    mine = user_dir() / ".env"
    places: list[tuple[str, Mapping[str, str]]] = [(ENVIRONMENT, environ)]
    project = cfg.root / ".env"
    if cfg.trust.admits(".env") or at_home(cfg.root, user_dir().parent):
        places.append((str(project), env_file_values(project, interpolate=True)))
    places.append((str(mine), env_file_values(mine, interpolate=True)))
    settings_env = cfg.settings.get("env")
    if isinstance(settings_env, dict):
        places.append((SETTINGS_ENV, {k: str(v) for k, v in settings_env.items()}))
    return places


def key_source(cfg: Config, environ: Mapping[str, str] | None = None) -> KeySource:
    """The variable and place the run's key came from; KeySource() when it sends none."""
    wanted = cfg.options.api_key_env or cfg.provider.api_key_env
    places = _places(cfg, os.environ if environ is None else environ)
    for name in dict.fromkeys(n for n in ("AGENT_API_KEY", wanted) if n):
        for place, values in places:
            if values.get(name):
                return KeySource(name, place, wanted)
    if cfg.provider.needs_key and cfg.api_key:  # none of those: the set-up's keyring entry
        return KeySource(wanted, KEYRING, wanted)
    return KeySource(wanted=wanted)
