"""Slash commands: a registry of async `(ctx, args)` functions; their docstrings are the help.

Built-ins live in `builtin.py`, `project.py` and `style.py`; other modules add theirs with
`register(...)` or `@command(...)` (session, MCP and action commands load here when present);
user commands come from Markdown prompt files (agent.commands.user) and skills run as
`/skill-name` (agent.commands.skill_run). Commands that come and go during a session (an MCP
server's prompts) are live sources (`LIVE`), asked each time (`live(ctx)`) by dispatch, /help
and completion. Commands may run turns through the loop (`ctx.turn`); tools never call commands.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable
from pathlib import Path

from agent.base.words import first_line
from agent.commands.command import Command, Ctx, Handler
from agent.commands.skill_run import skill_commands
from agent.commands.user import load_user_commands
from agent.config.plugins import Plugin
from agent.config.trust import Trust
from agent.skills.catalog import Catalog, discover

__all__ = [
    "ALIASES",
    "COMMANDS",
    "LIVE",
    "Command",
    "Ctx",
    "Handler",
    "all_commands",
    "command",
    "live",
]

BUILTIN_MODULES = ("agent.commands.builtin", "agent.commands.project", "agent.commands.style")
# Modules of later features; each registers its commands on import when it exists.
OPTIONAL_MODULES = (
    "agent.commands.session",
    "agent.commands.hooks",
    "agent.commands.mcp",
    "agent.commands.mcp_prompts",
    "agent.commands.actions",
    "agent.commands.workflows",
    "agent.commands.code",
    "agent.commands.checks",
    "agent.commands.commit",
    "agent.commands.skills",
    "agent.commands.status",
    "agent.commands.doctor",
    "agent.commands.settings",
    "agent.commands.workspace",
    "agent.commands.clipboard",
    "agent.commands.plugins",
)
_NAME = re.compile(r"/([A-Za-z][\w:.-]*)(?:\s+(.*))?", re.S)

COMMANDS: dict[str, Command] = {}  # name -> built-in or registered command
ALIASES: dict[str, str] = {}
LOAD_PROBLEMS: list[str] = []  # from the last all_commands(): optional modules that failed
# Sources of commands that come and go during a session: each gives those of one session now.
LIVE: list[Callable[[Ctx], dict[str, Command]]] = []


def register(cmd: Command) -> Command:
    """Add (or replace) a command and its aliases; other modules call this to wire theirs."""
    COMMANDS[cmd.name] = cmd
    for a in cmd.aliases:
        ALIASES[a] = cmd.name
    return cmd


def command(
    name: str,
    help: str | None = None,
    usage: str = "",
    aliases: tuple[str, ...] = (),
    repl_only: bool = False,
) -> Callable[[Handler], Handler]:
    """Decorator: register an async `(ctx, args) -> None`; `help` defaults to its docstring."""

    def wrap(fn: Handler) -> Handler:
        import inspect

        doc = help or inspect.getdoc(fn) or ""
        register(Command(name, doc, fn, usage, aliases=aliases, repl_only=repl_only))
        return fn

    return wrap


def load_modules() -> list[str]:
    """Import the built-in and optional command modules (registration happens on import).

    Returns warnings for optional modules that exist but fail to import: a broken feature
    loses its commands, the REPL still starts."""
    for mod in BUILTIN_MODULES:
        importlib.import_module(mod)
    problems = []
    for mod in OPTIONAL_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                problems.append(f"commands of {mod} not loaded: {e}")
        except Exception as e:
            problems.append(f"commands of {mod} not loaded: {type(e).__name__}: {e}")
    return problems


def all_commands(
    root: Path,
    home: Path | None = None,
    *,
    trusted: bool | Trust = False,
    skills: Catalog | None = None,
    plugins: tuple[Plugin, ...] = (),
) -> dict[str, Command]:
    """Built-in and registered commands, then user commands (the plugins' last), then skills —
    the session's catalog, else found as a session would (`trusted`: the project's commands
    and skills too). None shadows one before it; a name clash goes to LOAD_PROBLEMS."""
    problems = load_modules()
    out = dict(COMMANDS)
    catalog = (
        skills if skills is not None else discover(root, home, trusted=trusted, plugins=plugins)
    )
    mine = load_user_commands(root, home, problems, trusted, plugins)
    for cmd in [*mine, *skill_commands(catalog)]:
        taken = resolve(out, cmd.name)
        if taken is not None:
            why = f"/{cmd.name} of {cmd.source} is hidden by /{taken.name} ({taken.source})"
            problems.append(why)
            continue
        out[cmd.name] = cmd
        for alias in cmd.aliases:
            ALIASES.setdefault(alias, cmd.name)
    LOAD_PROBLEMS[:] = problems
    return out


def live(ctx: Ctx) -> dict[str, Command]:
    """The session's commands now: the loaded ones and what the live sources offer (a loaded
    command keeps its name)."""
    out = ctx.commands
    for source in LIVE:
        extra = source(ctx)
        if extra:
            out = {**extra, **out}
    return out


def parse(line: str) -> tuple[str, str] | None:
    """`/name args` → (name, args); None when the line is not a command (e.g. `/usr/bin/x`,
    or `//text`, which sends `/text` as a message). `/?` is /help."""
    stripped = line.strip()
    if stripped == "/?" or stripped.startswith("/? "):
        return "help", stripped[2:].strip()
    m = _NAME.fullmatch(stripped)
    if not m or "/" in m.group(1):
        return None
    return m.group(1), (m.group(2) or "").strip()


async def dispatch(ctx: Ctx, line: str) -> bool:
    """Run the command on `line`; False when the line is not a command at all."""
    parsed = parse(line)
    if parsed is None:
        return False
    name, args = parsed
    commands = live(ctx)
    cmd = resolve(commands, name)
    if cmd is None:
        ctx.say(f"{unknown_command(name, commands)} — /help lists the commands", "yellow")
        return True
    await cmd.run(ctx, args)
    return True


def as_message(line: str) -> str:
    """A line that is not a command, as it is sent: a leading `//` stands for one `/`."""
    return line.replace("//", "/", 1) if line.lstrip().startswith("//") else line


def unknown_command(name: str, commands: dict[str, Command]) -> str:
    """What an unknown `/name` gets, with the close names (never sent to the model)."""
    near = did_you_mean(name, [*commands, *ALIASES])
    hint = f" (did you mean {', '.join('/' + n for n in near)}?)" if near else ""
    return f"unknown command /{name}{hint}; start with // to send it as text with its slash"


def did_you_mean(name: str, names: list[str]) -> list[str]:
    """Up to three known names close to a mistyped one: spelling first, then shared prefix."""
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    prefix = [n for n in sorted(names) if n.startswith(name[:2]) and n not in close]
    return (close + prefix)[:3]


def help_rows(commands: dict[str, Command]) -> list[tuple[str, str, str]]:
    """(`/name usage`, help, source) for /help and completion, built-ins first, then by name."""
    rows = sorted(commands.values(), key=lambda c: (c.source != "built-in", c.name))
    return [
        (f"/{c.name}{' ' + c.usage if c.usage else ''}", first_line(c.help) + _also(c), c.source)
        for c in rows
    ]


def _also(c: Command) -> str:
    return f" (also {', '.join('/' + a for a in c.aliases)})" if c.aliases else ""


def resolve(commands: dict[str, Command], name: str) -> Command | None:
    """The command `name` names, directly or as an alias."""
    return commands.get(name) or commands.get(ALIASES.get(name, ""))
