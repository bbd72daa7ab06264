"""Where an HTTP/SSE MCP server's OAuth tokens are kept: one private file per server in the
user's state directory, `<state>/mcp-auth/<name>-<hash>.json` (mode 0600, folder 0700).

Never in the project (a repository is shared, its files are searched and committed) nor in
`~/.agent` (settings people copy around). The hash covers the server's name and URL, so two
projects that both call a server "github" share a login only when the URL is the same too.
The file holds the tokens, when the access token expires (an absolute time: a later run
refreshes it before use) and the client registration the authorization server handed out.
Written whole and atomically, never through a link (agent.config.safefile). Nothing here
imports the `mcp` SDK; agent.mcp.oauth turns this data into the SDK's models.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.statedir import ensure_home, state_home

AUTH_DIR = "mcp-auth"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def own_authorization(headers: dict[str, str]) -> bool:
    """Whether the server's declaration sets `Authorization` itself (then no OAuth at all)."""
    return any(k.lower() == "authorization" for k in headers)


def token_path(name: str, url: str) -> Path:
    """The file of server `name` at `url` (not created here)."""
    digest = hashlib.sha256(f"{name}\0{url}".encode("utf-8", "surrogateescape")).hexdigest()
    readable = _UNSAFE.sub("_", name).strip("._")[:40] or "server"
    return state_home() / AUTH_DIR / f"{readable}-{digest[:16]}.json"


class TokenFile:
    """One server's stored login: a JSON object read and written whole."""

    def __init__(self, name: str, url: str) -> None:
        self.name = name
        self.url = url
        self.path = token_path(name, url)

    def load(self) -> dict[str, Any]:
        """What is stored; {} when nothing is, or when the file is unreadable or not ours."""
        try:
            data = json.loads(safefile.read_bytes(state_home(), self.path))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != self.url:
            return {}
        return data

    def has_tokens(self) -> bool:
        return isinstance(self.load().get("tokens"), dict)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file's lock (an flock on `<file>.lock` beside it): two sessions, or two
        connections of one, never read-modify-write the file at the same time."""
        fd = self._folder()
        try:
            lock = os.open(
                f"{self.path.name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=fd
            )
        finally:
            os.close(fd)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)  # releases the lock

    def update(self, change: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Re-read the file under its lock, let `change` edit what is stored now and write it
        back when `change` says so; returns what the file holds afterwards."""
        with self.locked():
            data = self.load()
            if change(data):
                self.save(data)
            return data

    def _folder(self) -> int:
        """The folder, made (0700) when missing: an open descriptor the caller closes."""
        fd = safefile.open_dir(ensure_home(), self.path.parent, create=True)
        try:
            os.fchmod(fd, 0o700)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def save(self, data: dict[str, Any]) -> None:
        """Replace the file (0600; its folder is made 0700)."""
        home = ensure_home()
        os.close(self._folder())
        body = {**data, "server": self.name, "url": self.url}
        text = json.dumps(body, indent=1, sort_keys=True) + "\n"
        safefile.write_atomic(home, self.path, text.encode("utf-8"), mode=0o600)

    def remove(self) -> bool:
        """Delete the file; False when there was none."""
        home = state_home()
        try:
            fd = safefile.open_dir(home, self.path.parent)
        except FileNotFoundError:
            return False
        try:
            os.unlink(self.path.name, dir_fd=fd)
        except FileNotFoundError:
            return False
        finally:
            os.close(fd)
        return True
