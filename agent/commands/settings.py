"""/config: the settings in effect, each with its value and the file it came from; one of them
in full (`/config KEY`); and `/config set KEY VALUE [--user]`, written to the project's
`.agent/settings.local.json` (or `~/.agent/settings.json`) after the validation start-up applies
(agent.config.editing), applied at once where the session can take it, else from the next."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.commands.registry import Ctx, command
from agent.commands.status import shown
from agent.commands.style import apply_system_prompt
from agent.config import editing
from agent.config.layers import applied, is_project_file, load_settings
from agent.config.load import Config
from agent.config.settings import SCHEMA, ConfigError

USAGE = "usage: /config [KEY] · /config set KEY VALUE [--user]"
# Settings whose content is other JSON (and may hold tokens): shown by their entries' names
NAMES_ONLY = ("mcpServers", "hooks", "env", "actions", "prices", "thinkingBody")
VALUE_WIDTH = 60


def leaves(data: dict[str, Any]) -> dict[str, Any]:
    """`sandbox.mode`-style keys of a settings object (one level down, as its objects go)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and value and key not in NAMES_ONLY:
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def shown_value(key: str, value: Any) -> str:
    """A value as /config prints it: JSON, cut; the named-only settings by their names."""
    if key.split(".")[0] in NAMES_ONLY and isinstance(value, dict):
        return "{" + ", ".join(value) + "}"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def layers(cfg: Config) -> list[tuple[Path, dict[str, Any], dict[str, Any]]]:
    """Each settings file read: (path, what it holds, what of it applies)."""
    out = []
    for path, data in cfg.sources:
        project = is_project_file(cfg.root, path)
        out.append((path, data, applied(cfg.root, path, data, cfg.trust)[0] if project else data))
    return out


def origin(cfg: Config, key: str) -> str:
    """The files a key in effect comes from (the last one wins a plain value)."""
    files = [shown(p, cfg.root) for p, _, used in layers(cfg) if editing.has(used, key)]
    if not files and key.split(".")[0] == "hooks":
        return "hooks.json"
    if not files and key.split(".")[0] == "mcpServers":
        return ".mcp.json"
    return ", ".join(files) or "(the command line or an editor)"


def _show_all(ctx: Ctx) -> None:
    cfg = ctx.cfg
    effective = leaves(cfg.settings)
    if not effective:
        ctx.say("no settings set: the defaults apply (/config set KEY VALUE sets one)")
    else:
        ctx.say("settings in effect (user < project < local; flags and AGENT_* variables win):")
    width = max((len(k) for k in effective), default=0) + 2
    for key in sorted(effective):
        value = shown_value(key, effective[key])
        ctx.say(f"  {key:<{width}}{value:<24} {origin(cfg, key)}")
    ignored = sorted(
        {
            (key, shown(path, cfg.root))
            for path, data, used in layers(cfg)
            for key in leaves(data)
            if not editing.has(used, key)
        }
    )
    if ignored:
        ctx.say("not applied (the project is not trusted, or the file changed since: /trust):")
        for key, path in ignored:
            ctx.say(f"  {key:<{width}}{path}")
    ctx.say(USAGE, "dim")


def _session_value(ctx: Ctx, key: str) -> Any:
    """What this session uses for the keys a flag, a variable or a command may set instead."""
    run = ctx.run
    live: dict[str, Callable[[], Any]] = {
        "model": lambda: run.agent.llm.model,
        "provider": lambda: run.cfg.provider.name,
        "baseUrl": lambda: run.cfg.base_url,
        "permissions.mode": lambda: run.gate.mode,
        "temperature": lambda: run.agent.llm.temperature,
        "maxTurns": lambda: run.agent.max_steps,
        "language": lambda: run.language or None,
    }
    return live[key]() if key in live else None


def _show_one(ctx: Ctx, key: str) -> None:
    cfg = ctx.cfg
    try:
        editing.check_key(key)
    except ConfigError as e:
        ctx.say(str(e), "yellow")
        return
    if editing.has(cfg.settings, key):
        ctx.say(f"{key} = {shown_value(key, editing.lookup(cfg.settings, key))}")
    else:
        ctx.say(f"{key} is not set: its default applies ({SCHEMA[key.split('.')[0]][1]})")
    for path, data, used in layers(cfg):
        if editing.has(data, key):
            value = shown_value(key, editing.lookup(data, key))
            note = "" if editing.has(used, key) else "  (not applied: /trust)"
            ctx.say(f"  {shown(path, cfg.root)}: {value}{note}")
    now = _session_value(ctx, key)
    if now is not None and now != editing.lookup(cfg.settings, key):
        why = "a flag, an AGENT_* variable, the provider's default or a command chose it"
        ctx.say(f"this session uses {json.dumps(now)} ({why})")
    ctx.say(f"/config set {key} VALUE [--user] changes it", "dim")


def _mode(ctx: Ctx, value: Any) -> None:
    ctx.run.set_mode(value)


def _language(ctx: Ctx, value: Any) -> None:
    ctx.run.language = value
    apply_system_prompt(ctx)


def _temperature(ctx: Ctx, value: Any) -> None:
    ctx.agent.llm.temperature = value


def _max_turns(ctx: Ctx, value: Any) -> None:
    ctx.agent.max_steps = value


# Settings this session takes at once; the rest apply from the next session.
LIVE: dict[str, Callable[[Ctx, Any], None]] = {
    "permissions.mode": _mode,
    "language": _language,
    "temperature": _temperature,
    "maxTurns": _max_turns,
}


def _parse_set(args: str) -> tuple[str, str, bool] | None:
    """`set [--user] KEY VALUE [--user]` → (key, value text, user); None when it is not that."""
    rest, user = args.strip()[len("set") :].strip(), False
    if rest.startswith("--user "):
        rest, user = rest[len("--user ") :].strip(), True
    if rest.endswith(" --user"):
        rest, user = rest[: -len(" --user")].strip(), True
    key, _, value = rest.partition(" ")
    return (key, value.strip(), user) if key and value.strip() else None


def _set(ctx: Ctx, key: str, text: str, user: bool) -> None:
    value = editing.parse_value(key, text)
    try:
        path = editing.write_setting(ctx.cfg.root, key, value, user)
    except ConfigError as e:
        ctx.say(f"not set: {e}", "red")
        return
    ctx.say(f"{key} = {shown_value(key, value)} · saved in {shown(path, ctx.cfg.root)}")
    try:
        now, _ = load_settings(ctx.cfg.root, ctx.cfg.trust)
    except ConfigError as e:  # another file broke since the session began
        ctx.say(f"the settings do not load now: {e}", "yellow")
        return
    merged = isinstance(value, (list, dict))  # merged with the other files' values
    if not editing.has(now, key):
        ctx.say("but it is not applied: the project is not trusted (/trust)", "yellow")
    elif editing.lookup(now, key) != value and not merged:
        in_effect = shown_value(key, editing.lookup(now, key))
        ctx.say(
            f"but {in_effect} stays in effect: a later file sets it (/config {key} shows where)",
            "yellow",
        )
    elif key in LIVE:
        LIVE[key](ctx, value)
        ctx.say("applied at once", "dim")
    else:
        ctx.say("applies from the next session", "dim")


@command("config", usage="[KEY | set KEY VALUE [--user]]")
async def config_cmd(ctx: Ctx, args: str) -> None:
    """Show the settings in effect and the file each comes from; `KEY` shows one; `set KEY
    VALUE` saves one in .agent/settings.local.json (with --user: ~/.agent/settings.json)."""
    words = args.split()
    if not words:
        _show_all(ctx)
    elif words[0] == "set":
        parsed = _parse_set(args)
        if parsed is None:
            ctx.say(USAGE, "yellow")
            return
        _set(ctx, *parsed)
    elif len(words) == 1:
        _show_one(ctx, words[0])
    else:
        ctx.say(USAGE, "yellow")
