"""User commands: Markdown prompt files that become slash commands.

Read from, in this order (the first one wins a name; a clash is said): `.agent/commands/` and
Claude Code's `.claude/commands/` in the project, then `~/.agent/commands/`,
`~/.claude/commands/` and Codex's `~/.codex/prompts/` (also run as `/prompts:name`), then the
plugins' (agent.config.plugins: `/plugin-name:command`, as Claude Code names them). A file
`fix.md` becomes `/fix`; `frontend/test.md` becomes `/frontend:test`. Optional front matter
gives `description` (the /help text), `argument-hint` and `allowed-tools` (permission rules that
hold while the command's turn runs). The body is the prompt sent through the loop, with
`$ARGUMENTS` replaced by everything after the name, `$1`…`$9` by the individual words
(shell-style quoting groups words) and `$NAME` by a `NAME=value` argument (Codex's named
placeholders). A "!`command`" in the body runs through the bash tool, with its permissions, and
its output takes its place (Claude Code's syntax).
"""

from __future__ import annotations

import re
import shlex
import uuid
from dataclasses import dataclass
from pathlib import Path

from agent.base import frontmatter
from agent.base.frontmatter import names_of, text_of
from agent.base.record import RESULT_CAP, Call, cap
from agent.commands.command import Command, Ctx, Handler
from agent.config.plugins import Plugin
from agent.config.trust import Trust, admits, at_home, not_applied
from agent.context.mentions import attach
from agent.permissions.gate import GRANT, NO_GRANT
from agent.permissions.grants import Grant

MAX_BYTES = 200_000  # a command file larger than this is skipped
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9]|[A-Z][A-Z0-9_]*)")
_KEY_VALUE = re.compile(r"([A-Z][A-Z0-9_]*)=(.*)", re.S)
_BANG = re.compile(r"!`([^`\n]+)`")


@dataclass(frozen=True)
class Place:
    folder: Path
    source: str
    project: bool  # a project's allowed-tools hold only once the project is trusted
    alias_prefix: str = ""  # Codex runs its prompts as /prompts:name
    prefix: str = ""  # a plugin's commands are /plugin:name


def places(root: Path, home: Path, plugins: tuple[Plugin, ...] = ()) -> tuple[Place, ...]:
    """Where commands come from, the first winning a name; a plugin's are trusted as a unit
    when it was found (agent.config.plugins)."""
    theirs = tuple(
        Place(f, f"plugin {p.name}", p.project, prefix=f"{p.name}:")
        for p in plugins
        for f in p.commands
    )
    return (
        Place(root / ".agent" / "commands", "project", True),
        Place(root / ".claude" / "commands", "project (.claude)", True),
        Place(home / ".agent" / "commands", "user", False),
        Place(home / ".claude" / "commands", "user (.claude)", False),
        Place(home / ".codex" / "prompts", "user (.codex)", False, "prompts:"),
        *theirs,
    )


def parse_file(text: str) -> tuple[dict[str, str], str]:
    """(front matter fields as text, body); a file without front matter is all body.
    Raises frontmatter.FrontMatterError for front matter that cannot be read."""
    fields, body = frontmatter.split(text)
    return {k.lower(): text_of(v) for k, v in fields.items()}, body


def split_args(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote: plain words
        return args.split()


def expand(body: str, args: str) -> str:
    """The prompt for `/name args`: placeholders filled in one pass over the body (text the
    arguments bring is never expanded again), or the arguments appended."""
    words = split_args(args)
    named = {m[1]: m[2] for w in words if (m := _KEY_VALUE.fullmatch(w))}
    used = False

    def fill(m: re.Match[str]) -> str:
        nonlocal used
        key = m.group(1)
        if key == "ARGUMENTS":
            used = True
            return args
        if key.isdigit():
            used = True
            return words[int(key) - 1] if int(key) <= len(words) else ""
        if key in named:
            used = True
            return named[key]
        return m.group(0)  # `$HOME` in a shell snippet stays as written

    out = _PLACEHOLDER.sub(fill, body)
    if args and not used:
        out = f"{out}\n\n{args}"
    return out


def _files(base: Path, prefix: str = "") -> list[tuple[str, Path]]:
    if base.is_file() and base.suffix == ".md":  # a plugin's command named by its path
        paths, top = [base], base.parent
    elif base.is_dir():
        paths, top = sorted(base.rglob("*.md")), base
    else:
        return []
    out = []
    for path in paths:
        rel = path.relative_to(top).with_suffix("")
        name = prefix + ":".join(rel.parts)
        if re.fullmatch(r"[A-Za-z][\w:.-]*", name):
            out.append((name, path))
    return out


def _command(name: str, path: Path, place: Place) -> Command | str:
    """The command a file makes, or what is wrong with it."""
    try:
        text = frontmatter.read_file(path, MAX_BYTES)
        meta, body = parse_file(text)
    except OSError as e:
        return f"{path}: not loaded ({e})"
    except frontmatter.FrontMatterError as e:
        return f"{path}: not loaded: front matter {e}"
    help = meta.get("description") or next(
        (ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), name
    )
    rules = names_of(meta.get("allowed-tools")) or ()
    aliases = (place.alias_prefix + name,) if place.alias_prefix else ()
    hint = meta.get("argument-hint", "")
    origin = Grant.of_text(rules, f"the command /{name}", path, text)  # the content it runs
    run = runner(body, origin, project=place.project)
    return Command(name, help, run, hint, f"{place.source}: {path}", aliases)


def load_user_commands(
    root: Path,
    home: Path | None = None,
    problems: list[str] | None = None,
    trusted: bool | Trust = False,
    plugins: tuple[Plugin, ...] = (),
) -> list[Command]:
    """Every place's commands, the first found of a name kept (the project's only once it is
    trusted: a repository's prompts and their allowed-tools are its code); what was skipped or
    hidden goes to `problems`."""
    home = home or Path.home()
    found: dict[str, tuple[Command, Path]] = {}
    said = problems if problems is not None else []
    home_project = at_home(root, home)  # its files are the user's own
    untrusted = 0
    for place in places(root, home, plugins):
        if place.project and home_project and not place.prefix:
            continue  # the project is the home directory: these are the user's
        for name, path in _files(place.folder, place.prefix):
            if place.project and not place.prefix and not admits(trusted, path):
                untrusted += 1  # not trusted, or changed since the user trusted it
                continue
            if name in found:
                if not same_file(path, found[name][1]):  # a copy or a link: nothing to say
                    said.append(f"/{name} of {path} is hidden by {found[name][1]}")
                continue
            got = _command(name, path, place)
            if isinstance(got, str):
                said.append(got)
            else:
                found[name] = got, path
    if untrusted:
        said.append(f"{untrusted} project command(s) not loaded: {not_applied(trusted)}")
    return [cmd for cmd, _ in found.values()]


def same_file(a: Path, b: Path) -> bool:
    """The same file, or two with the same content."""
    try:
        return a.resolve() == b.resolve() or a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def runner(body: str, grant: Grant = NO_GRANT, *, project: bool = False) -> Handler:
    """The handler of a prompt command: its "!`command`"s run (from the body only, never from
    the arguments), the arguments filled in, sent through the loop with `rules` allowed for
    that turn alone (a project's only when the project is trusted), as far as a grant may go
    (agent.permissions.grants)."""

    async def run(ctx: Ctx, args: str) -> None:
        allowed = grant if ctx.cfg.trusted or not project else NO_GRANT
        outputs = await _run_bangs(ctx, body, allowed) if _BANG.search(body) else []
        marked = _BANG.sub(lambda m: f"\x00{m.start()}\x00", body) if outputs else body
        text = expand(marked, args)
        for mark, output in outputs:
            text = text.replace(mark, output, 1)
        await send(ctx, text, allowed)

    return run


async def send(ctx: Ctx, text: str, grant: Grant) -> None:
    """Send a prompt command's text (its @mentions attached: `/explain @src/app.py`) as a turn
    that alone holds `grant`'s rules (agent.permissions.gate.GRANT)."""
    token = GRANT.set(grant)
    try:
        await ctx.turn(attach(text, ctx.cfg.cwd))
    finally:
        GRANT.reset(token)


async def _run_bangs(ctx: Ctx, body: str, allowed: Grant) -> list[tuple[str, str]]:
    """(marker, output) of each "!`command`" of the body, run as a call of the registry's
    command tool (permission rules — and the command's `allowed`, while they run —, hooks and
    the sandbox apply; a denied one says so)."""
    gate = ctx.run.gate
    gate.allow_for_turn(allowed)
    try:
        return await _bangs(ctx, body)
    finally:
        gate.end_turn()


async def _bangs(ctx: Ctx, body: str) -> list[tuple[str, str]]:
    shell = next(
        (t for t in ctx.agent.tools.values() if t.target and t.target.what == "command"), None
    )
    out: list[tuple[str, str]] = []
    for m in _BANG.finditer(body):
        mark = f"\x00{m.start()}\x00"
        if shell is None or shell.target is None:
            out.append((mark, f"[not run: no shell tool in this session: {m.group(1)}]"))
            continue
        call = Call(f"command-{uuid.uuid4().hex[:8]}", shell.name, {shell.target.arg: m.group(1)})
        result = await ctx.agent.dispatcher.run_one(call, ctx.agent.ctx, ctx.agent.sink)
        out.append((mark, cap(result.output.strip(), RESULT_CAP)))
    return out
