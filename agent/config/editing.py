"""One setting written from a command (/config set): a dotted key (`sandbox.mode`) looked up in
the schema, the value read as JSON where it is JSON, the file's new content validated as a
settings file is at start-up (agent.config.settings.check_types), then written atomically,
never through a link. The project's `.agent/settings.local.json` stays the user's own when it
was (agent.config.trust.mark_own): it then applies before the project is trusted."""

from __future__ import annotations

import copy
import difflib
import json
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.agentdir import ensure_agent_dir
from agent.config.errors import ConfigError
from agent.config.settings import SCHEMA, check_types, read_settings_json, user_dir
from agent.config.trust import is_own, mark_own


def lookup(data: Any, key: str) -> Any:
    """The value at a dotted key (`permissions.mode`), or None when it is not there."""
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def has(data: Any, key: str) -> bool:
    """Whether `data` holds the dotted key."""
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def check_key(key: str) -> None:
    """ConfigError naming a key this version does not know (with the close names)."""
    top = key.split(".")[0]
    if top in SCHEMA and all(key.split(".")):
        return
    near = difflib.get_close_matches(top, list(SCHEMA), n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise ConfigError(f"unknown setting {key!r}{hint}; /config lists the settings in effect")


def parse_value(key: str, text: str) -> Any:
    """What `/config set KEY TEXT` means: JSON (`true`, `0.5`, `["a"]`, `"x"`), else the text
    as it is; a key that takes only text keeps its text (`model 123` is the name "123")."""
    text = text.strip()
    types = SCHEMA.get(key, ((),))[0]
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return text if types == (str,) and not isinstance(value, str) else value


def with_key(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of `data` with the dotted key set (objects made on the way)."""
    out = copy.deepcopy(data)
    here = out
    parts = key.split(".")
    for i, part in enumerate(parts[:-1]):
        nxt = here.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"{'.'.join(parts[: i + 1])} is not an object: cannot set {key}")
        here = nxt
    here[parts[-1]] = value
    return out


def settings_file(root: Path, user: bool) -> Path:
    """Where /config set writes: ~/.agent/settings.json, or the project's local settings."""
    return user_dir() / "settings.json" if user else root / ".agent" / "settings.local.json"


def write_setting(root: Path, key: str, value: Any, user: bool = False) -> Path:
    """Set one dotted key in the user's or the project's local settings file; ConfigError
    (naming the key) when the key is unknown or the value has the wrong type, or when the
    file cannot be read or written (it is never replaced when it does not parse)."""
    check_key(key)
    user = user or (root / ".agent").resolve() == user_dir().resolve()  # a project at ~
    path = settings_file(root, user)
    data = with_key(read_settings_json(path), key, value)
    check_types(path, data)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        if user:
            path.parent.mkdir(parents=True, exist_ok=True)
            safefile.write_atomic(path.parent, path, text.encode("utf-8"))
            return path
        ensure_agent_dir(root)
        was_own = not path.exists() or is_own(path)
        safefile.write_atomic(root, path, text.encode("utf-8"))
        mark_own(path, text, was_own)
    except OSError as e:  # a link on the way (SymlinkRefused) too
        raise ConfigError(f"{path}: not written: {e}") from None
    return path
