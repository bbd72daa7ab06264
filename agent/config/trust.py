"""What the user vouched for: the projects they trust (`~/.agent/trusted.json`), and the local
settings files the agent wrote from their own answers (`~/.agent/own-settings.json`), which
apply even before the project is trusted."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from agent.config import safefile
from agent.config.settings import ConfigError, user_dir

UNTRUSTED = "project not trusted; run with --trust-project or answer the trust prompt"


def at_home(root: Path, home: Path) -> bool:
    """The project is the home directory: its `.agent/` and `.claude/` files are the user's
    own (skills, commands, agent definitions), not a repository's."""
    return root.resolve() == home.resolve()


def is_trusted(root: Path) -> bool:
    """Whether the user trusted this project before (stored in ~/.agent/trusted.json)."""
    try:
        data = json.loads((user_dir() / "trusted.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and str(root) in data.get("projects", [])


def trust(root: Path) -> None:
    """Remember that the user trusts this project (atomic write)."""
    path = user_dir() / "trusted.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        projects = list(data.get("projects", []))
    except (OSError, ValueError, AttributeError):
        projects = []
    if str(root) not in projects:
        projects.append(str(root))
    try:
        _save(path, json.dumps({"projects": projects}, indent=2))
    except OSError as e:
        raise ConfigError(f"cannot remember that this project is trusted: {e}") from None


def _save(path: Path, text: str) -> None:
    """Write a file of ~/.agent atomically (a unique temp file; a link there is refused)."""

    safefile.write_atomic(path.parent, path, text.encode("utf-8"))


# Local settings files the agent wrote from the user's own answers ("remember this"), by real
# path → sha256 of their content: those apply even before the project is trusted, while a
# settings.local.json that arrived with the repository (or was edited since) does not.
OWN_FILE = "own-settings.json"


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _own_table() -> dict[str, str]:
    try:
        data = json.loads((user_dir() / OWN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def is_own(path: Path) -> bool:
    """Whether `path` holds exactly what the agent last wrote there for the user.

    Never through a symlink (the file or its `.agent` directory): a repository could link
    its settings.local.json to another project's, whose recorded hash would then vouch for it."""
    try:
        if path.is_symlink() or path.parent.is_symlink():
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return _own_table().get(_own_key(path)) == _digest(data)


def _own_key(path: Path) -> str:
    return os.path.abspath(path)  # where it is, not where a link leads


def mark_own(path: Path, text: str, was_own: bool) -> None:
    """Record the agent's write of `text` to `path`, when the file was the user's before
    (absent or written by the agent): a repository's file never becomes "own" this way."""
    if not was_own:
        return
    table = _own_table()
    table[_own_key(path)] = _digest(text.encode("utf-8"))
    with contextlib.suppress(OSError):  # unrecorded, the file just needs trust like any other
        _save(user_dir() / OWN_FILE, json.dumps(table, indent=2))
