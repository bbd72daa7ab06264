"""Where the first-run set-up keeps an API key: the user's own `~/.agent/.env`, readable by
them alone (0600), or the OS keyring — only when the optional `keyring` package is installed
and has a real backend (the Secret Service, the macOS Keychain, the Windows Credential
Locker), never its stand-ins that fail or keep nothing.

`keyring` is imported only when no key was found elsewhere: a run with a key never pays for it.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.settings import user_dir

SERVICE = "agent"  # the keyring's service name; the user name is the variable (DEEPSEEK_API_KEY)
# A real store ranks 1 or more (Secret Service 5, Keychain 5, KWallet 4.9); the fail and null
# backends rank 0 and -1, keyrings.alt's plain-text files 0.5.
_REAL = 1.0


def keyring_module() -> Any | None:
    """The `keyring` module when it is installed and has a real backend, else None."""
    try:
        if importlib.util.find_spec("keyring") is None:
            return None
        import keyring

        backend = keyring.get_keyring()
        priority = float(getattr(backend, "priority", 0))
    except Exception:  # a backend that cannot start (no D-Bus session) is no keyring
        return None
    kind = type(backend).__module__
    if priority < _REAL or kind.endswith((".fail", ".null")):
        return None
    return keyring


def keyring_name() -> str:
    """What the OS keyring is called here ("" when there is none to use)."""
    module = keyring_module()
    if module is None:
        return ""
    return str(getattr(module.get_keyring(), "name", "") or "the OS keyring")


def from_keyring(var: str) -> str:
    """The key kept under `var` in the OS keyring ("" when none, or no keyring)."""
    module = keyring_module()
    if module is None:
        return ""
    try:
        return str(module.get_password(SERVICE, var) or "")
    except Exception:  # a locked or broken store: as if it held nothing
        return ""


def to_keyring(var: str, key: str) -> str:
    """Keep `key` in the OS keyring under `var`; says where. OSError when it cannot."""
    module = keyring_module()
    if module is None:
        raise OSError("no OS keyring to keep the key in")
    try:
        module.set_password(SERVICE, var, key)
    except Exception as e:
        raise OSError(f"the OS keyring refused the key: {e}") from None
    return f"{keyring_name()} (service {SERVICE!r}, user {var})"


def to_env_file(var: str, key: str) -> Path:
    """Set `var=key` in ~/.agent/.env (an earlier line for it replaced, the rest kept), the
    file readable by the user alone (0600) whatever it was before; never through a link."""
    if not (
        var.isascii() and var.isidentifier()
    ):  # an apiKeyEnv of another shape would break the file
        raise OSError(f"{var!r} is not a variable name to keep a key under")
    home = user_dir()
    path = home / ".env"
    try:
        old = safefile.read_bytes(home, path).decode("utf-8", "replace")
    except FileNotFoundError:
        old = ""
    same = re.compile(rf"\s*(?:export\s+)?{re.escape(var)}\s*=")
    lines = [ln for ln in old.splitlines() if not same.match(ln)]
    text = "\n".join([*lines, f"{var}={key}"]) + "\n"
    safefile.write_atomic(home, path, text.encode("utf-8"), mode=0o600)
    os.chmod(path, 0o600)  # whatever the umask left
    return path
