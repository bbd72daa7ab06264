"""`agent mcp add|add-json|get|list|remove`: MCP server entries written to, shown from and
removed from the settings files of each scope (agent.config.mcpfiles). Errors are ConfigErrors
(exit 2) naming the file; what is written is said on stdout, with what it means (a project's
servers start once it is trusted; another file's entry of the same name wins)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from argparse import Namespace
from pathlib import Path
from typing import Any

from agent.base.visible import visible
from agent.config import mcpfiles
from agent.config.load import ConfigError
from agent.config.mcpfiles import Entry, Source
from agent.config.settings import project_root
from agent.config.trust import is_own, is_trusted
from agent.mcp.config import HTTP_TYPES

NAME = re.compile(r"[A-Za-z0-9_-]+")
ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TRANSPORTS = ("stdio", "sse", *HTTP_TYPES)
UNTRUSTED = "not started until you trust the project (agent --trust-project)"


def _say(text: str = "", **kw: Any) -> None:
    """Print a line that may quote a project's file (names, commands, URLs) as it shows."""
    print(visible(text), **kw)


def run(args: Namespace, tail: list[str] | None, cwd: Path) -> int:
    root = project_root(cwd.resolve())
    if args.command == "add":
        return _add(args.name, args.scope, entry_from(args, tail), root)
    if args.command == "add-json":
        return _add(args.name, args.scope, entry_from_json(args.json), root)
    if args.command == "get":
        return _get(args.name, root)
    if args.command == "list":
        return _list(root)
    return _remove(args.name, args.scope, root)


def entry_from(args: Namespace, tail: list[str] | None) -> dict[str, Any]:
    """The entry `add`'s arguments describe: a command line (after `--`, or the arguments after
    NAME) for stdio, one URL for http and sse (a URL alone means http)."""
    target = [*args.target, *(tail or [])]
    if not target:
        raise ConfigError(
            "add needs the server: agent mcp add NAME -- COMMAND [ARGS…], "
            "or agent mcp add --transport http NAME URL"
        )
    url = target[0].startswith(("http://", "https://"))
    transport = args.transport or ("http" if url and tail is None else "stdio")
    if transport == "stdio":
        if args.header:
            raise ConfigError("-H/--header is for http and sse servers (stdio ones take -e)")
        env = dict(_pair(e, "=", "-e", ENV_KEY) for e in args.env)
        return {"type": "stdio", "command": target[0], "args": target[1:], **_some("env", env)}
    if args.env:
        raise ConfigError("-e/--env sets a stdio server's environment (http and sse take -H)")
    if len(target) != 1 or not url:
        raise ConfigError(f"--transport {transport} takes one URL (http:// or https://)")
    headers = dict(_pair(h, ":", "-H", None) for h in args.header)
    return {"type": transport, "url": target[0], **_some("headers", headers)}


def _pair(text: str, sep: str, flag: str, key: re.Pattern[str] | None) -> tuple[str, str]:
    name, found, value = text.partition(sep)
    name = name.strip()
    if not found or not name or (key is not None and not key.fullmatch(name)) or " " in name:
        shape = "KEY=VALUE" if sep == "=" else '"Name: value"'
        raise ConfigError(f"{flag} {text!r}: expected {shape}")
    return name, value.strip() if sep == ":" else value


def _some(key: str, value: dict[str, str]) -> dict[str, Any]:
    return {key: value} if value else {}


def entry_from_json(text: str) -> dict[str, Any]:
    """`add-json`'s definition, checked for the shape agent.mcp.config reads."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"add-json: invalid JSON at column {e.colno}: {e.msg}") from None
    if not isinstance(raw, dict):
        raise ConfigError('add-json: expected a JSON object like {"command": "…"}')
    kind = raw.get("type") or ("http" if "url" in raw else "stdio")
    if kind not in TRANSPORTS:
        raise ConfigError(f'add-json: unknown "type" {kind!r} (use {", ".join(TRANSPORTS)})')
    needed = "command" if kind == "stdio" else "url"
    if not isinstance(raw.get(needed), str) or not raw[needed]:
        raise ConfigError(f'add-json: a {kind} server needs "{needed}" (a string)')
    return raw


def _add(name: str, scope: str, entry: dict[str, Any], root: Path) -> int:
    if not NAME.fullmatch(name):
        raise ConfigError(f"server name {name!r}: use letters, digits, - and _")
    src = mcpfiles.source_of(scope, root)
    mcpfiles.add(src, name, entry)
    kind = transport(entry)
    _say(f"Added {kind} MCP server {name!r} to {src.path} ({scope} scope): {target(entry)}")
    if not starts(src, root):
        _say(f"It is {UNTRUSTED}.")
    found, _ = mcpfiles.entries(root)
    mine = next((e for e in found if e.name == name and e.source == src), None)
    if mine is not None and mine.shadowed_by is not None:
        won = mine.shadowed_by
        _say(f"Note: {won.path} ({won.scope}) also declares {name!r}, and its entry is used.")
    return 0


def _get(name: str, root: Path) -> int:
    found, errors = mcpfiles.entries(root)
    mine = [e for e in found if e.name == name]
    if not mine:
        raise ConfigError(_missing(name, errors))
    for e in mine:
        _say(f"{name}  ({e.source.scope}: {e.source.path}){_status(e, root)}")
        for line in details(e.raw):
            _say(f"  {line}")
        if e.source.editable:
            _say(f"  remove with: agent mcp remove {name} --scope {e.source.scope}")
    return 0


def _list(root: Path) -> int:
    found, errors = mcpfiles.entries(root)
    for message in errors:
        _say(f"agent mcp: {message}", file=sys.stderr)
    if not found and not errors:
        _say("No MCP servers. Add one: agent mcp add NAME -- COMMAND [ARGS…]")
    for src in reversed(mcpfiles.sources(root)):  # the file that wins first
        mine = [e for e in found if e.source == src]
        if not mine:
            continue
        _say(f"{src.path} ({src.scope}){'' if starts(src, root) else ', ' + UNTRUSTED}:")
        for e in mine:
            _say(f"  {e.name}: {target(e.raw)} ({transport(e.raw)}){_status(e, root)}")
    return 2 if errors else 0


def _remove(name: str, scope: str | None, root: Path) -> int:
    if scope is not None:
        src = mcpfiles.source_of(scope, root)
    else:
        found, errors = mcpfiles.entries(root)
        mine = [e for e in found if e.name == name]
        editable = [e for e in mine if e.source.editable]
        if not mine:
            raise ConfigError(_missing(name, errors))
        if not editable:
            path = mine[0].source.path
            raise ConfigError(f"{name!r} is declared in {path}, which agent mcp does not edit")
        if len(editable) > 1:
            where = ", ".join(f"{e.source.scope} ({e.source.path})" for e in editable)
            raise ConfigError(f"{name!r} is declared in several scopes: {where}; use --scope")
        src = editable[0].source
    mcpfiles.remove(src, name)
    _say(f"Removed MCP server {name!r} from {src.path} ({src.scope} scope).")
    left = [e for e in mcpfiles.entries(root)[0] if e.name == name]
    for e in left:
        _say(f"Still declared in {e.source.path} ({e.source.scope}).")
    return 0


def _missing(name: str, errors: list[str]) -> str:
    unread = f"; unreadable: {'; '.join(errors)}" if errors else ""
    return f"no MCP server named {name!r} (agent mcp list shows them){unread}"


def starts(src: Source, root: Path) -> bool:
    """Whether the agent starts this file's servers (agent.config.load: a project's files only
    once it is trusted, local settings the agent wrote for the user also before)."""
    if src.scope == "user" or is_trusted(root):
        return True
    return src.scope == "local" and (not src.path.exists() or is_own(src.path))


def _status(e: Entry, root: Path) -> str:
    notes = []
    if isinstance(e.raw, dict) and e.raw.get("disabled") is True:
        notes.append("disabled")
    if e.shadowed_by is not None:
        notes.append(f"overridden by {e.shadowed_by.path}")
    return f" — {', '.join(notes)}" if notes else ""


def transport(raw: Any) -> str:
    if not isinstance(raw, dict):
        return "invalid"
    return str(raw.get("type") or ("http" if "url" in raw else "stdio"))


def target(raw: Any) -> str:
    """What a server is, in one line: its command line or its URL."""
    if not isinstance(raw, dict):
        return f"not an object: {json.dumps(raw)}"
    if "url" in raw or transport(raw) != "stdio":
        return str(raw.get("url", "(no url)"))
    args = raw.get("args")
    args = args if isinstance(args, list) else []
    return shlex.join([str(raw.get("command", "(no command)")), *map(str, args)])


def details(raw: Any) -> list[str]:
    """`get`'s lines for one entry: its type, then each field as written."""
    if not isinstance(raw, dict):
        return [f"invalid: {target(raw)}"]
    lines = [f"type: {transport(raw)}", f"{'url' if 'url' in raw else 'command'}: {target(raw)}"]
    for key in ("env", "headers"):
        if isinstance(raw.get(key), dict):
            sep = "=" if key == "env" else ": "
            lines += [f"{key}: {k}{sep}{v}" for k, v in raw[key].items()]
    skip = ("type", "command", "args", "url", "env", "headers")
    lines += [f"{k}: {json.dumps(v)}" for k, v in raw.items() if k not in skip]
    return lines
