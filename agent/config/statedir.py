"""Where the agent keeps what it records about a project, outside the project: sessions (with
their checkpoints) and the audit log, under the user's state directory.

`$AGENT_STATE_DIR`, else `$XDG_STATE_HOME/agent`, else `~/.local/state/agent`; each project has
`projects/<slug>/` there, the slug made from the project's real path (readable, plus a hash so
that `/a-b` and `/a/b` never share one). Keeping them out of the repository keeps `git status`
clean and past conversations out of every recursive search of the project.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

ENV = "AGENT_STATE_DIR"
CACHE_ENV = "AGENT_CACHE_DIR"
_SLUG_CHARS = re.compile(r"[^A-Za-z0-9._]+")
SLUG_MAX = 80  # characters of the path kept readable in the folder's name


def state_home() -> Path:
    """The agent's state directory (not created here)."""
    own = os.environ.get(ENV, "").strip()
    if own:  # a relative value is taken from where the agent started, made absolute once
        return Path(os.path.expanduser(own)).absolute()
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is invalid, ignore it
        return Path(xdg) / "agent"
    return Path(os.path.expanduser("~")) / ".local" / "state" / "agent"


def cache_home() -> Path:
    """The agent's cache directory (derived data that may be deleted at any time, such as the
    code tags of agent.code): `$AGENT_CACHE_DIR`, else `$XDG_CACHE_HOME/agent`, else
    `~/.cache/agent`. Not created here."""
    own = os.environ.get(CACHE_ENV, "").strip()
    if own:
        return Path(os.path.expanduser(own)).absolute()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "agent"
    return Path(os.path.expanduser("~")) / ".cache" / "agent"


def slug(root: Path) -> str:
    """`-home-me-src-app-1a2b3c4d` for /home/me/src/app: the real path, then its hash."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    readable = _SLUG_CHARS.sub("-", real).strip(".")[-SLUG_MAX:]
    return f"{readable}-{digest}"


def project_state(root: Path) -> Path:
    """This project's folder in the state directory (not created here)."""
    return state_home() / "projects" / slug(root)


def ensure_home() -> Path:
    """The state directory, created private (0700) when missing; the base for safefile writes
    below it. OSError when it cannot be made."""
    home = state_home()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home
