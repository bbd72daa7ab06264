"""What the user vouched for: the projects they trust (`~/.agent/trusted.json`), and the local
settings files the agent wrote from their own answers (`~/.agent/own-settings.json`), which
apply even before the project is trusted."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import pins, safefile
from agent.config.settings import ConfigError, user_dir

UNTRUSTED_SHORT = "project not trusted"
TRUST_HINT = "run with --trust-project or answer the trust prompt"
UNTRUSTED = f"{UNTRUSTED_SHORT}; {TRUST_HINT}"


def at_home(root: Path, home: Path) -> bool:
    """The project is the home directory: its `.agent/` and `.claude/` files are the user's
    own (skills, commands, agent definitions), not a repository's."""
    return root.resolve() == home.resolve()


@dataclass(frozen=True)
class Trust:
    """What of a project the user vouched for: the folder (`folder`), less the trust-bearing
    files added or changed since they confirmed them (`withheld`, relative to `root`), which
    are not applied until they do (agent.config.pins)."""

    folder: bool = False
    root: str = ""
    withheld: frozenset[str] = frozenset()
    removed: tuple[str, ...] = ()  # gone since: nothing to withhold, but worth saying

    def admits(self, path: Path | str) -> bool:
        """Whether a project file (or a folder of one: a skill) may be applied."""
        if not self.folder:
            return False
        rel = str(path)
        if os.path.isabs(rel):
            rel = os.path.relpath(rel, self.root) if self.root else rel
        rel = rel.rstrip("/")
        return not any(
            w == rel or w.startswith(rel + "/") or rel.startswith(w + "/") for w in self.withheld
        )

    def __bool__(self) -> bool:  # `if trust:` would be true for any folder: say which you mean
        raise TypeError("use Trust.folder or Trust.admits(path)")


def admits(trusted: bool | Trust, path: Path | str) -> bool:
    """`trusted` as a run's Trust, or as a plain yes/no for the whole project."""
    return trusted.admits(path) if isinstance(trusted, Trust) else bool(trusted)


def not_applied(trusted: bool | Trust, untrusted: str = "the project is not trusted") -> str:
    """Why a project file was not applied, in a few words (`untrusted`: the words for a
    project the user never trusted)."""
    if isinstance(trusted, Trust) and trusted.folder:
        return "changed since you trusted it"
    return untrusted


def _path() -> Path:
    return user_dir() / "trusted.json"


def _table() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_trusted(root: Path, table: dict[str, Any] | None = None) -> bool:
    """Whether the user trusted this project before (stored in ~/.agent/trusted.json; `table`:
    its content, already read)."""
    projects = (_table() if table is None else table).get("projects", [])
    return isinstance(projects, list) and str(root) in projects


def pinned(root: Path, table: dict[str, Any] | None = None) -> dict[str, str] | None:
    """The digests recorded when the user last confirmed the project (None: none recorded,
    as for a project trusted before content was pinned)."""
    pins = (_table() if table is None else table).get("pins", {})
    got = pins.get(str(root)) if isinstance(pins, dict) else None
    return {str(k): str(v) for k, v in got.items()} if isinstance(got, dict) else None


def own_files(root: Path) -> frozenset[str]:
    """Trust-bearing files that are the user's own answers, never withheld."""
    local = root / ".agent" / "settings.local.json"
    return frozenset({".agent/settings.local.json"}) if is_own(local) else frozenset()


def state_of(root: Path, for_run: bool = False) -> Trust:
    """The run's trust: `for_run` (--trust-project) trusts everything as it is, for this run;
    else what the user confirmed, less what changed since. A project trusted before content
    was pinned is pinned now, as it is."""
    if for_run:
        return Trust(True, str(root))
    table = _table()
    if not is_trusted(root, table):
        return Trust(False, str(root))
    before = pinned(root, table)
    now = pins.scan(root, own_files(root))
    if before is None:
        with contextlib.suppress(ConfigError):
            trust(root, now)
        return Trust(True, str(root))
    diff = pins.compare(before, now)
    return Trust(True, str(root), diff.withheld, diff.removed)


def waiting(root: Path, state: Trust) -> tuple[str, ...]:
    """The project's trust-bearing files (relative paths) not applied for want of the user's
    trust: every one of an untrusted project, those changed since in a trusted one; none at
    home (its files are the user's own). /status and /doctor say them."""
    if at_home(root, Path.home()):
        return ()
    if state.folder:
        return tuple(sorted(state.withheld))
    return tuple(sorted(pins.scan(root, own_files(root))))


def changes(root: Path) -> tuple[pins.Changes, list[str], dict[str, str]]:
    """What changed since the user confirmed the project, how to show it, and the digests it
    was shown from: what a yes pins (a file changed while the question waits stays new)."""
    before = pinned(root) or {}
    now = pins.scan(root, own_files(root))
    diff = pins.compare(before, now)
    return diff, pins.describe(root, before, diff), now


def trust(root: Path, digests: dict[str, str] | None = None) -> None:
    """Remember that the user trusts this project as it is now (atomic write)."""
    data = _table()
    projects = [str(p) for p in data.get("projects", []) if isinstance(p, str)]
    if str(root) not in projects:
        projects.append(str(root))
    got = data.get("pins")
    table: dict[str, Any] = got if isinstance(got, dict) else {}
    now = digests if digests is not None else pins.scan(root, own_files(root))
    pins.keep_copies(root, now)
    no = [p for p in _declined(data) if p != str(root)]
    table = {"projects": projects, "pins": {**table, str(root): now}, "declined": no}
    try:
        _save(_path(), json.dumps(table, indent=2))
    except OSError as e:
        raise ConfigError(f"cannot remember that this project is trusted: {e}") from None


def _declined(data: dict[str, Any]) -> list[str]:
    got = data.get("declined", [])
    return [str(p) for p in got if isinstance(p, str)] if isinstance(got, list) else []


def declined(root: Path) -> bool:
    """Whether the user said no to trusting this project (not asked again; /trust changes it)."""
    return str(root) in _declined(_table())


def decline(root: Path) -> None:
    """Remember that the user does not trust this project (and no longer does, if they did):
    its own configuration is not applied and the question is not asked again."""
    data = _table()
    projects = [str(p) for p in data.get("projects", []) if isinstance(p, str) and p != str(root)]
    got = data.get("pins")
    table = {k: v for k, v in got.items() if k != str(root)} if isinstance(got, dict) else {}
    no = [*(p for p in _declined(data) if p != str(root)), str(root)]
    try:
        _save(_path(), json.dumps({"projects": projects, "pins": table, "declined": no}, indent=2))
    except OSError as e:
        raise ConfigError(f"cannot remember that this project is not trusted: {e}") from None


def repin(root: Path, rel: str) -> None:
    """The user changed one trust-bearing file themselves (agent mcp add): it is theirs."""
    table = _table()
    before = pinned(root, table)
    if before is None or not is_trusted(root, table):
        return
    now = pins.digest_of(root, rel)  # that file alone, not a scan of the project
    if now is not None:
        before[rel] = now
    else:
        before.pop(rel, None)
    with contextlib.suppress(ConfigError):
        trust(root, before)


def _save(path: Path, text: str) -> None:
    """Write a file of ~/.agent atomically (a unique temp file; a link there is refused)."""

    safefile.write_atomic(path.parent, path, text.encode("utf-8"))


# Local settings files the agent wrote from the user's own answers ("remember this"), by real
# path → sha256 of their content: those apply even before the project is trusted, while a
# settings.local.json that arrived with the repository (or was edited since) does not.
OWN_FILE = "own-settings.json"


def digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def digests(name: str) -> dict[str, str]:
    """A table of ~/.agent/`name`: path → sha256 of the content the user vouched for."""
    try:
        data = json.loads((user_dir() / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def record_digest(name: str, key: str, value: str) -> None:
    """Add `key` → `value` to the table ~/.agent/`name` (private); a failure to save only
    means the user is asked again."""
    table = {**digests(name), key: value}
    home = user_dir()
    with contextlib.suppress(OSError):
        safefile.write_atomic(home, home / name, json.dumps(table, indent=2).encode(), 0o600)


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
    return digests(OWN_FILE).get(_own_key(path)) == digest(data)


def _own_key(path: Path) -> str:
    return os.path.abspath(path)  # where it is, not where a link leads


def mark_own(path: Path, text: str, was_own: bool) -> None:
    """Record the agent's write of `text` to `path`, when the file was the user's before
    (absent or written by the agent): a repository's file never becomes "own" this way."""
    if not was_own:
        return
    record_digest(OWN_FILE, _own_key(path), digest(text.encode("utf-8")))
