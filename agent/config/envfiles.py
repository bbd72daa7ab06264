""".env files: the user's `~/.agent/.env` and the project's `.env`, under the real environment.

A project's `.env` arrives with the repository, so until the project is trusted it configures
nothing of the agent: not where requests go or which credential is sent (a committed
`AGENT_BASE_URL=http://elsewhere` with `AGENT_API_KEY=${DEEPSEEK_API_KEY}` would mail the user's
key to that server), not the model, the sandbox or anything else an `AGENT_*` name sets
(`AGENT_SANDBOX=off` would let the user's own `bash(make test)` rule run the repository's
Makefile unconfined). Its names that the agent would read are reported in one warning; the
rest never mattered to the agent. Nor does an untrusted `.env` feed the `${VAR}`s of the
user's settings (an MCP server's URL and token headers): those expand from `expand`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# Names that pick an endpoint, a proxy or a credential: the agent's own overrides, every
# provider's key variable, and the suffixes other tools' keys, tokens and URLs use.
_ROUTING = re.compile(
    r"AGENT_(?:BASE_URL|API_KEY|PROVIDER)"
    r"|.*_(?:API_KEY|APIKEY|KEY|TOKEN|PAT|SECRET|PASSWORD|AUTH|CREDENTIALS?|BASE_URL|API_BASE"
    r"|URL|URI|ENDPOINT|HOST|SERVER|ADDR|DSN|MCP)"
    r"|(?:HTTPS?|ALL|NO|FTP)_PROXY"
    r"|SSL_CERT_(?:FILE|DIR)|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE",
    re.IGNORECASE,
)


ENVIRONMENT = "the environment"
SETTINGS_ENV = "the settings' env"


@dataclass(frozen=True)
class EnvFiles:
    """The merged environment and the names an untrusted project's `.env` was refused."""

    env: dict[str, str]  # what the agent reads its own variables (AGENT_MODEL…) from
    expand: dict[str, str]  # what `${VAR}` in settings expands from: no untrusted project .env
    ignored: tuple[str, ...] = ()
    path: Path | None = None  # the project's .env when something was ignored
    origin: dict[str, str] = field(default_factory=dict)  # name → where its value came from

    def warning(self) -> list[str]:
        if not self.ignored:
            return []
        return [
            f"{self.path}: ignored {', '.join(self.ignored)} (an untrusted project's .env "
            "configures nothing of the agent: no endpoint, key, model or sandbox; run with "
            "--trust-project or answer the trust prompt)"
        ]


def routes(name: str, guarded: Iterable[str] = ()) -> bool:
    """Whether `name` chooses where requests go or which credential is sent."""
    return name in guarded or _ROUTING.fullmatch(name) is not None


def file_values(path: Path, interpolate: bool) -> dict[str, str]:
    from dotenv import dotenv_values

    if not path.is_file():
        return {}
    return {k: v for k, v in dotenv_values(path, interpolate=interpolate).items() if v is not None}


def load_env_files(
    env: dict[str, str],
    root: Path,
    user_dir: Path,
    trusted: bool,
    guarded: Iterable[str] = (),
) -> EnvFiles:
    """`env` (the real environment, which wins) over the project's `.env` over the user's.

    `guarded` adds names that are credentials in this configuration (an `apiKeyEnv`)."""
    users = file_values(user_dir / ".env", interpolate=True)
    merged = dict(users)
    origin = dict.fromkeys(users, str(user_dir / ".env"))
    project = root / ".env"
    own = root.resolve() == user_dir.parent.resolve()  # a project at ~ is the user's own
    ignored: list[str] = []
    if trusted or own:
        mine = file_values(project, interpolate=True)
        merged.update(mine)
        origin.update(dict.fromkeys(mine, str(project)))
        expand = dict(merged)
    else:  # nothing of it configures the agent: say which names it would have
        expand = dict(users)
        guard = frozenset(guarded)
        for name in file_values(project, interpolate=False):
            if name.startswith("AGENT_") or routes(name, guard) or name in users:
                ignored.append(name)
    ignored = [n for n in ignored if n not in env]  # the real environment wins anyway
    merged.update(env)
    expand.update(env)
    origin.update(dict.fromkeys(env, ENVIRONMENT))
    return EnvFiles(merged, expand, tuple(ignored), project if ignored else None, origin)


# Settings' `env` (ours, or Claude Code's): given to the processes the agent starts — commands,
# hooks, checks, MCP servers — under the real environment, which keeps its values. Set once per
# configuration loaded (agent.config.load), as the run's model key names are (providers).
_SETTINGS_ENV: dict[str, str] = {}


def use_settings_env(values: Mapping[str, str]) -> None:
    _SETTINGS_ENV.clear()
    _SETTINGS_ENV.update(values)


def process_env() -> dict[str, str]:
    """The environment of a process the agent starts: the real one over settings' `env`."""
    return {**_SETTINGS_ENV, **os.environ}
