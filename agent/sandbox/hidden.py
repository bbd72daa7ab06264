"""What a sandboxed command may not read: it reads these as empty, in every mode.

- the credential stores the file tools refuse too (agent.permissions.paths.HOME_SECRETS: one
  list for both);
- the agent's own folders: `~/.agent` (its `.env`, settings, trust list; its skills stay
  readable, their scripts are meant to run), the state directory (every session of every
  project, MCP tokens, the audit log) and the cache directory (what the code index knows of
  every project);
- every path a read deny rule names (`neverAllow: ["read_file(secrets/**)"]` holds for `cat`
  and `python3` too) and the `sandbox.denyRead` setting's paths. A pattern is found at the
  start of a session: a folder pattern (`secrets/**`) hides the folder, so what is made in it
  later is hidden too; other patterns (`**/*.pem`) hide the files that match then, up to
  MAX_MATCHES.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from agent.config.settings import user_dir
from agent.config.statedir import cache_home, state_home
from agent.permissions.paths import home_secrets

# Environment variables that look like credentials: unset inside the sandbox (a command's
# `env` would show them to the model), the model API keys among them.
SECRET_ENV = re.compile(
    r"(?i)(token|secret|passw(?:or)?d|credential|api_?key|access_?key|private_?key|_key$|_auth$"
    r"|_pat$|_dsn$|^database_url$)|^(aws|azure|gcp|google|gh|github|huggingface|hf)_"
)
MAX_MATCHES = 500  # files one pattern hides
SEARCH_SECONDS = 1.0  # spent finding what one pattern names
KEEP_SHOWN = ("skills",)  # inside ~/.agent: readable, as the skills' scripts run from there
_MAGIC = "*?[{"


def _literal_prefix(pattern: str) -> tuple[str, str]:
    """(the folder before the first component with a wildcard, the rest)."""
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        if any(c in part for c in _MAGIC):
            return "/".join(parts[:i]) or "/", "/".join(parts[i:])
    return pattern, ""


def expand(pattern: str) -> list[str]:
    """The existing paths an absolute path pattern names (a folder for `dir/**`), found within
    MAX_MATCHES and SEARCH_SECONDS (a `/**/x` would walk the whole disk)."""
    top, rest = _literal_prefix(pattern.rstrip("/"))
    if rest in ("", "**", "**/*", "*"):
        return [top] if os.path.lexists(top) and top != "/" else []
    from wcmatch import glob  # deferred: ~15 ms: only for a deny rule with a pattern

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX | glob.BRACE
    found, out = glob.iglob(rest, root_dir=top, flags=flags), []
    deadline = time.monotonic() + SEARCH_SECONDS
    for p in itertools.islice(found, MAX_MATCHES):
        out.append(os.path.join(top, p))
        if time.monotonic() > deadline:
            break
    return out


def matched(patterns: Iterable[str]) -> list[str]:
    """What the deny patterns name now (once, at the start of a session)."""
    return list(dict.fromkeys(os.path.realpath(p) for pattern in patterns for p in expand(pattern)))


def own_dirs() -> None:
    """The agent's own folders, made (private) if missing: hidden from commands, they must
    exist when the sandbox starts."""
    for own in (user_dir(), state_home(), cache_home()):
        with contextlib.suppress(OSError):
            own.mkdir(mode=0o700, parents=True, exist_ok=True)


def hidden_paths(home: Path, extra: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """(real paths to hide, folders inside them to show again read-only): what exists now of
    the credential stores and the agent's own folders (a few stats: worked out for every
    command, so a store made during the session is hidden too; the agent's folders are made
    first: own_dirs), and `extra` (what the deny patterns matched)."""
    wanted = [p for p, _ in home_secrets(str(home))]
    wanted += [str(user_dir()), str(state_home()), str(cache_home())]
    found = [os.path.realpath(p) for p in wanted if os.path.lexists(p)]
    hidden = list(dict.fromkeys([*found, *extra]))
    agent = os.path.realpath(user_dir())
    shown = [os.path.join(agent, d) for d in KEEP_SHOWN]
    return hidden, [s for s in shown if os.path.isdir(s) and agent in hidden]


def secret_env(names: Iterable[str]) -> list[str]:
    """Of `names` (the environment's), those that look like credentials."""
    return sorted(n for n in names if SECRET_ENV.search(n))
