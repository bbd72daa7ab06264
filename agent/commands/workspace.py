"""What the session works with: /add-dir (another working directory, as --add-dir), /agents (the
subagent definitions the task tool offers), /optimizer (the code-outline tools on or off)."""

from __future__ import annotations

import os
from pathlib import Path

from agent.app import Run
from agent.base.record import Tool
from agent.commands.registry import Ctx, command
from agent.commands.status import shown
from agent.permissions.paths import within
from agent.subagents.defs import AgentDef
from agent.subagents.records import Limits
from agent.subagents.runner import runner_of
from agent.tools.code.tools import TOOLS as OUTLINE_TOOLS

GENERAL = "general"  # the subagent the task tool starts without an `agent`
ADDED = "add-dir"  # ctx.state: the folders /add-dir added


def add_dir(run: Run, folder: Path) -> None:
    """Take `folder` into the live session's workspace: the permission gate (file tools read
    and edit there as in the project), the tools' own view of it, the sandbox's writable
    roots and where checkpoints track deletions."""
    run.gate.add_dir(folder)
    ctx = run.agent.ctx
    real = os.path.realpath(folder)
    ctx.added_dirs = (*ctx.added_dirs, real)
    box = run.sandbox()
    box.extra = (*box.extra, Path(real))
    run.recorder.snapshots.workspace = run.gate.ws


def folder(raw: str, cwd: Path) -> Path | str:
    """The real path of the folder `raw` names (`~` and relative to `cwd`), or why not."""
    path = Path(os.path.expanduser(raw.strip("'\"")))
    path = path if path.is_absolute() else cwd / path
    if not path.is_dir():
        return f"{path} {'is not a directory' if path.exists() else 'does not exist'}"
    return Path(os.path.realpath(path))


@command("add-dir", usage="[PATH]")
async def add_dir_cmd(ctx: Ctx, args: str) -> None:
    """Add a working directory for this session (as --add-dir does); alone, list them."""
    gate, added = ctx.run.gate, ctx.state.setdefault(ADDED, [])
    raw = args.strip()
    if not raw:
        if not gate.ws.extra:
            ctx.say("no added directories: /add-dir PATH adds one for this session")
        for d in gate.ws.extra:
            ctx.say(f"  {shown(d)}{'  (this session)' if str(d) in added else ''}")
        return
    real = folder(raw, ctx.cfg.cwd)
    if not isinstance(real, Path):
        ctx.say(f"not added: {real}", "yellow")
        return
    if within(real, gate.ws.dirs):
        ctx.say(f"{shown(real)} is in the workspace already")
        return
    add_dir(ctx.run, real)
    added.append(str(real))
    ctx.say(f"added {shown(real)} for this session: the tools may read and edit there")
    ctx.say("to keep it: --add-dir, or permissions.additionalDirectories in your settings", "dim")


def general_line(limits: Limits) -> str:
    """What the built-in subagent is."""
    tools = ", ".join(limits.tools) if limits.tools is not None else "your tools"
    return f"the default: a fresh context with {tools} (subagents.tools in settings)"


def _source(d: AgentDef, root: Path) -> str:
    return shown(d.source, root) if d.source else "built-in"


def _show_def(ctx: Ctx, d: AgentDef) -> None:
    ctx.say(f"{d.name} ({_source(d, ctx.cfg.root)})", "bold")
    ctx.say(d.description)
    ctx.say(f"tools: {', '.join(d.tools) if d.tools is not None else 'the default subset'}")
    model = d.model or "the session's"
    ctx.say(f"model: {model}")
    if d.max_steps:
        ctx.say(f"max turns: {d.max_steps}")
    ctx.say("")
    ctx.say(d.prompt.strip())


@command("agents", usage="[NAME]")
async def agents_cmd(ctx: Ctx, args: str) -> None:
    """List the subagent definitions the task tool offers (built-in and from .agent/agents,
    .claude/agents, ~/.agent/agents); NAME shows one in full."""
    runner = runner_of(ctx.agent.ctx)
    if runner is None:
        ctx.say("no subagents in this session", "yellow")
        return
    defs, name = runner.defs, args.strip()
    if name:
        if name == GENERAL:
            ctx.say(f"{GENERAL} (built-in)", "bold")
            ctx.say(general_line(runner.limits))
        elif name in defs:
            _show_def(ctx, defs[name])
        else:
            ctx.say(f"no agent {name} (agents: {', '.join([GENERAL, *defs])})", "yellow")
        return
    width = max((len(n) for n in [GENERAL, *defs]), default=0) + 2
    ctx.say(f"  {GENERAL:<{width}}{'built-in':<30} {general_line(runner.limits)}")
    for d in defs.values():
        about = " ".join(d.description.split())
        ctx.say(f"  {d.name:<{width}}{_source(d, ctx.cfg.root):<30} {about[:90]}")
    if not defs:
        ctx.say("add one as .agent/agents/NAME.md (front matter: description, tools)", "dim")
    for warning in runner.warnings:
        ctx.say(f"skipped: {warning}", "yellow")
    ctx.say("/agents NAME shows one · the model starts them with the task tool", "dim")


def outline_state(tools: dict[str, Tool]) -> bool:
    """Whether the code-outline tools are offered to the model."""
    return any(t.name in tools for t in OUTLINE_TOOLS)


def set_outline(ctx: Ctx, on: bool) -> None:
    """Offer the code-outline tools again (in their place), or take them away."""
    tools = ctx.agent.tools
    kept: dict[str, Tool] = ctx.state.setdefault("optimizer", {})
    if not on:
        order = list(tools)
        for t in OUTLINE_TOOLS:
            if t.name in tools:
                kept[t.name] = tools.pop(t.name)
        ctx.state["optimizer-order"] = order
    else:
        order = ctx.state.get("optimizer-order", [])
        merged = {n: kept.get(n) or tools[n] for n in order if n in kept or n in tools}
        merged.update(tools)
        merged.update({n: t for n, t in kept.items() if n not in merged})
        tools.clear()
        tools.update(merged)  # the same dict: the dispatcher and the gate share it
        kept.clear()
    ctx.agent.refresh_tools()  # the tools list changes at the next turn


@command("optimizer", usage="[on|off]")
async def optimizer_cmd(ctx: Ctx, args: str) -> None:
    """Show or switch the code-outline tools (outline, symbols) offered to the model."""
    names = ", ".join(t.name for t in OUTLINE_TOOLS)
    on = outline_state(ctx.agent.tools)
    word = args.strip().lower()
    if not word:
        ctx.say(f"optimizer: {'on' if on else 'off'} ({names} {'' if on else 'not '}offered)")
        ctx.say("/optimizer on|off switches it for this session", "dim")
        return
    if word not in ("on", "off"):
        ctx.say("usage: /optimizer [on|off]", "yellow")
        return
    want = word == "on"
    if want == on:
        ctx.say(f"optimizer is {word} already")
        return
    if want and not ctx.state.get("optimizer"):
        ctx.say(f"{names} are not among this session's tools", "yellow")
        return
    set_outline(ctx, want)
    did = "back: the model is offered" if want else "off: the model is no longer offered"
    ctx.say(f"optimizer {did} {names}")
    ctx.say("note: the next request pays a cold prompt cache (the tools list changed)", "dim")
