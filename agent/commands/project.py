"""Built-in commands about the project: export, diff, review, security-review, init, memory,
permissions, trust."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.commands.registry import Ctx, command
from agent.config import safefile, trust
from agent.config.settings import ConfigError
from agent.config.trust import at_home
from agent.context.memory import init_prompt, memory_report
from agent.git.diff import GitError, working_diff
from agent.permissions.asking import edit_local
from agent.permissions.rules import parse_rule
from agent.session.export import ExportRefused, Transcript, export
from agent.tools.shared.secret_hits import shown_files

REVIEW_DIFF_CHARS = 60_000  # of the diff sent with /review; the model can run git diff for more
LISTS = {"allow": "alwaysAllow", "ask": "ask", "deny": "neverAllow"}
PROMPTS = Path(__file__).parents[1] / "prompts"


@command("export", usage="[file] [--json] [--force]")
async def export_cmd(ctx: Ctx, args: str) -> None:
    """Write the conversation (tool calls included) as Markdown, or JSON with --json."""

    words = args.split()
    as_json, force = "--json" in words, "--force" in words
    target = " ".join(w for w in words if w not in ("--json", "--force"))
    agent = ctx.agent
    transcript = Transcript(ctx.run.session_id, agent.llm.model, ctx.cfg.cwd, agent.messages)
    try:
        path = export(transcript, target, as_json, force)
    except ExportRefused as e:
        ctx.say(str(e), "yellow")
        return
    ctx.say(f"exported {len(ctx.agent.messages) - 1} messages to {path}")


async def _diff_or_say(ctx: Ctx, for_model: bool = False) -> str:
    """The working tree's changes; `for_model`: what goes to the model, without the content of
    files read_file asks about first (a secret's name, the agent's settings)."""
    denied = tuple(ctx.run.gate.read_denials())
    keep = shown_files(ctx.cfg.cwd, denied) if for_model else (lambda rels: rels)
    try:
        diff = await working_diff(ctx.cfg.cwd, ctx.cfg.trusted, keep=keep)
    except GitError as e:
        ctx.say(f"no diff: {e}", "yellow")
        return ""
    if not diff.strip():
        ctx.say("no changes (the working tree matches HEAD)")
    return diff


@command("diff")
async def diff_cmd(ctx: Ctx, args: str) -> None:
    """Show the uncommitted changes (staged, unstaged and new files), coloured."""
    diff = await _diff_or_say(ctx)
    if diff.strip():
        ctx.diff(diff)


async def _review(ctx: Ctx, template: str, focus: str) -> None:
    diff = await _diff_or_say(ctx, for_model=True)
    if not diff.strip():
        return
    if len(diff) > REVIEW_DIFF_CHARS:
        diff = (
            diff[:REVIEW_DIFF_CHARS]
            + "\n[... the diff was cut here; run `git diff` for the rest]\n"
        )
    text = (PROMPTS / template).read_text(encoding="utf-8")
    fence = "`" * 3
    while fence in diff:
        fence += "`"
    text = text.replace("{focus}", f"Focus especially on: {focus}" if focus else "")
    await ctx.turn(text.replace("{diff}", f"{fence}diff\n{diff}{fence}").strip())


@command("review", usage="[focus]")
async def review_cmd(ctx: Ctx, args: str) -> None:
    """Have the model review the uncommitted changes."""
    await _review(ctx, "review.md", args.strip())


@command("security-review", usage="[focus]")
async def security_review_cmd(ctx: Ctx, args: str) -> None:
    """Have the model look for security problems in the uncommitted changes."""
    await _review(ctx, "security_review.md", args.strip())


@command("init")
async def init_cmd(ctx: Ctx, args: str) -> None:
    """Have the model write (or improve) AGENT.md for this project."""

    await ctx.turn(init_prompt(ctx.cfg.cwd))


@command("memory", usage="[add <text>]")
async def memory_cmd(ctx: Ctx, args: str) -> None:
    """Show the memory files loaded into the system prompt; `add <text>` appends to ./AGENT.md."""

    verb, _, rest = args.strip().partition(" ")
    if verb == "add":
        if not rest.strip():
            ctx.say("usage: /memory add <text>", "yellow")
            return

        path = ctx.cfg.cwd / "AGENT.md"
        try:  # never through a link: a repository's AGENT.md -> ~/.bashrc gets nothing
            old = path.read_text(encoding="utf-8") if path.is_file() else ""
            sep = "" if not old or old.endswith("\n") else "\n"
            safefile.append_text(ctx.cfg.cwd, path, f"{sep}- {rest.strip()}\n", 0o644)
        except OSError as e:
            ctx.say(f"not added: {e}", "yellow")
            return
        ctx.say(f"added to {path} (in the system prompt after /clear or in the next session)")
        return
    if verb:
        ctx.say("usage: /memory [add <text>]", "yellow")
        return

    cfg = ctx.cfg
    ctx.say(memory_report(cfg.cwd, cfg.root, trusted=cfg.trusted))
    if ctx.run.system_prompt() != ctx.agent.system_prompt:
        ctx.say(
            "memory files changed since this conversation began: the model still has the "
            "earlier text (the new one applies after /clear or in the next session)",
            "yellow",
        )


def _local(ctx: Ctx) -> Path:
    return ctx.run.gate.root / ".agent" / "settings.local.json"


def _edit_local(ctx: Ctx, change: Callable[[dict[str, Any]], None]) -> Path:
    """Apply `change(permissions dict)` to .agent/settings.local.json, atomically."""

    return edit_local(ctx.run.gate.root, change)


def _show_rules(ctx: Ctx) -> None:
    gate = ctx.run.gate
    ctx.say(f"mode: {gate.mode} (Shift-Tab cycles default → acceptEdits → plan)")
    rows = gate.table()
    if not rows:
        ctx.say("no rules · /permissions add allow|ask|deny RULE")
        return
    names = {"neverAllow": "deny", "ask": "ask", "alwaysAllow": "allow"}
    home = str(Path.home())
    for r in rows:
        src = r.source.replace(str(gate.root) + "/", "").replace(home, "~")
        ctx.say(f"  {names.get(r.list, r.list):<6}{r.rule:<40} {src}")


async def _add_rule(ctx: Ctx, kind: str, rule: str) -> None:

    key = LISTS.get(kind)
    if key is None or not rule:
        ctx.say("usage: /permissions add allow|ask|deny RULE", "yellow")
        return
    if not parse_rule(rule, ctx.run.gate.ws).valid:
        ctx.say(f"not a valid rule: {rule} (e.g. bash(npm test:*), edit_file(src/**))", "yellow")
        return

    def change(perms: dict[str, Any]) -> None:
        lst = perms.setdefault(key, [])
        if rule not in lst:
            lst.append(rule)

    path = _edit_local(ctx, change)
    live = ctx.run.gate.rules.setdefault(key, [])
    if rule not in live:
        live.append(rule)
    ctx.say(f"{kind} {rule} · saved in {path}")


async def _remove_rule(ctx: Ctx, rule: str) -> None:
    gate = ctx.run.gate
    found = False

    def change(perms: dict[str, Any]) -> None:
        nonlocal found
        for key in LISTS.values():
            if rule in perms.get(key, []):
                perms[key] = [r for r in perms[key] if r != rule]
                found = True

    local = str(_local(ctx))
    others = [
        r.source for r in gate.table() if r.rule == rule and r.source not in (local, "session")
    ]
    if _local(ctx).is_file():
        _edit_local(ctx, change)
    for key in LISTS.values():
        if rule in gate.rules.get(key, []) and not others:
            gate.rules[key] = [r for r in gate.rules[key] if r != rule]
    if rule in gate.session_rules:
        gate.session_rules.remove(rule)
        found = True
    if others:
        ctx.say(f"{rule} is also set in {', '.join(others)}: edit it there", "yellow")
    elif found:
        ctx.say(f"removed {rule}")
    else:
        ctx.say(f"no rule {rule} in {_local(ctx)} or this session", "yellow")


@command("permissions", usage="[add allow|ask|deny RULE | remove RULE]")
async def permissions_cmd(ctx: Ctx, args: str) -> None:
    """Show the permission rules and where they come from; add or remove local rules."""

    words = args.split(maxsplit=2)
    try:
        if not words:
            _show_rules(ctx)
        elif words[0] == "add" and len(words) == 3:
            await _add_rule(ctx, words[1], words[2].strip())
        elif words[0] in ("remove", "rm") and len(words) >= 2:
            await _remove_rule(ctx, args.split(maxsplit=1)[1].strip())
        else:
            ctx.say("usage: /permissions [add allow|ask|deny RULE | remove RULE]", "yellow")
    except ConfigError as e:
        ctx.say(f"cannot edit the settings: {e}", "red")


@command("trust", usage="[yes|no]")
async def trust_cmd(ctx: Ctx, args: str) -> None:
    """Show whether this project is trusted and what waits for it; /trust yes trusts it as it
    is now (what changed since is shown first), /trust no stops; from the next session."""
    cfg, word = ctx.cfg, args.strip().lower()
    if at_home(cfg.root, Path.home()):
        ctx.say("the project is your home directory: its files are your own")
        return
    if not word:
        _show_trust(ctx)
        if ctx.front is None:  # a one-shot `agent "/trust"` trusts, as it always has
            word = "yes"
        else:
            rows = ["yes — trust it as it is now", "no — do not apply its configuration"]
            picked = await ctx.front.choose("trust this project?", rows)
            word = ("yes", "no")[picked] if picked is not None else ""
    if word in ("no", "n", "off"):
        trust.decline(cfg.root)
        ctx.say(f"not trusted: {cfg.root}; from the next session its configuration is not applied")
    elif word in ("yes", "y", "on"):
        _trust(ctx)
    elif word:
        ctx.say("usage: /trust [yes|no]", "yellow")


def _show_trust(ctx: Ctx) -> None:
    cfg = ctx.cfg
    now = trust.state_of(cfg.root)
    if now.folder:
        state = "trusted" + (" (some files changed since: withheld)" if now.withheld else "")
    elif trust.declined(cfg.root):
        state = "not trusted (you said no)"
    else:
        state = "not trusted"
    ctx.say(f"{cfg.root}: {state}")
    waits = trust.waiting(cfg.root, now)
    if waits:
        shown = ", ".join(waits[:10]) + (f" and {len(waits) - 10} more" if len(waits) > 10 else "")
        ctx.say(f"  waiting for trust: {shown}", "dim")


def _trust(ctx: Ctx) -> None:
    cfg = ctx.cfg
    digests = None  # an untrusted project: pinned as it is
    if trust.is_trusted(cfg.root):
        diff, lines, digests = trust.changes(cfg.root)
        if not diff:
            ctx.say("this project is trusted, and nothing changed since you trusted it")
            return
        ctx.say("accepting what changed since you trusted this project:")
        for line in lines:
            ctx.say(line, "dim")
    trust.trust(cfg.root, digests)  # what was shown: a file changed since stays new
    ctx.say(f"trusted {cfg.root} as it is now; it applies from the next session")
