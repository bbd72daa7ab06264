"""Built-in commands about the conversation: help, clear, compact, context, cost, model, think,
btw, tools, exit."""

from __future__ import annotations

import json
from typing import Any

from agent.base.tokens import cost_report
from agent.commands.doctor import served_models
from agent.commands.registry import Ctx, command, help_rows, live, resolve
from agent.commands.style import side_reply
from agent.core.report import context_report

KEYS = (
    "Enter sends · Alt-Enter or Ctrl-J new line · Tab completes /commands and @files · "
    "Ctrl-R searches history · !cmd runs a shell command · Shift-Tab cycles the permission "
    "mode · Ctrl-C or Esc stops a turn · Ctrl-D (or Ctrl-C twice) exits"
)
BTW_NOTE = (
    "[side question: answer briefly from the conversation so far; do not call tools; this "
    "exchange is not kept in the history]"
)


@command("help", usage="[command]")
async def help_cmd(ctx: Ctx, args: str) -> None:
    """List the commands, or show one command's full help."""
    name = args.strip().lstrip("/")
    if name:
        cmd = resolve(live(ctx), name)
        if cmd is None:
            ctx.say(f"no command /{name}", "yellow")
            return
        ctx.say(f"/{cmd.name} {cmd.usage}".rstrip(), "bold")
        ctx.say(cmd.help)
        if cmd.source != "built-in":
            ctx.say(f"({cmd.source})", "dim")
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=False, padding=(0, 1, 0, 2))
    table.add_column(max_width=32)
    table.add_column()
    for usage, text, source in help_rows(live(ctx)):
        extra = f" ({source.split(':')[0]})" if source != "built-in" else ""
        table.add_row(Text(usage, style="bold"), Text(text + extra))
    ctx.console.print(table)
    ctx.console.print(Text("\n" + KEYS, style="dim"))


@command("compact", usage="[focus]")
async def compact_cmd(ctx: Ctx, args: str) -> None:
    """Summarise older turns now to free context; an optional focus says what to keep."""
    if not await ctx.agent.compact(args.strip(), "manual"):
        return
    ctx.say("compacted", "dim")


@command("context")
async def context_cmd(ctx: Ctx, args: str) -> None:
    """Show how full the context window is, by part."""

    ctx.say(context_report(ctx.agent))


@command("sandbox")
async def sandbox_cmd(ctx: Ctx, args: str) -> None:
    """Show the OS sandbox commands run in: its mode, what they may write, the network."""
    box = ctx.run.sandbox()
    st = box.status()
    if st["problem"]:
        ctx.say(f"sandbox: off — {st['configured']} was asked for, but {st['problem']}", "yellow")
        ctx.say("commands are asked about as without a sandbox", "dim")
        return
    if st["mode"] == "off":
        ctx.say("sandbox: off (commands run as they are; --sandbox or the sandbox setting)")
        return
    ctx.say(f"sandbox: {st['mode']} (the kernel allows it)")
    ctx.say(f"  writable: {', '.join(st['writable']) or 'nothing'}, and a private /tmp")
    kept = [p for p in box.policy.read_only if st["mode"] == "workspace-write"]
    if kept:
        ctx.say(f"  kept read-only: {', '.join(kept)}")
    ctx.say(f"  network: {'on' if st['network'] else 'off'}; unix sockets: "
            f"{'allowed' if st['unixSockets'] else 'refused (sandbox.unixSockets)'}")  # fmt: skip
    if st["hidden"]:
        shown = ", ".join(st["hidden"][:6]) + (" …" if len(st["hidden"]) > 6 else "")
        ctx.say(f"  read as empty: {shown}")
    if st["homeRoot"]:
        ctx.say(
            f"  {st['homeRoot']} holds your home directory: nothing there is writable", "yellow"
        )
    ctx.say(
        f"  hooks {'inside' if box.hooks else 'outside'}, stdio MCP servers "
        f"{'inside' if box.mcp else 'outside'} (sandbox.hooks, sandbox.mcp)",
        "dim",
    )


@command("cost", aliases=("usage",))
async def cost_cmd(ctx: Ctx, args: str) -> None:
    """Show this session's tokens, cache hits and cost."""

    llm = ctx.agent.llm
    ctx.say(cost_report(ctx.agent.totals, llm.price(), llm.model))


@command("model", usage="[name]", repl_only=True)
async def model_cmd(ctx: Ctx, args: str) -> None:
    """Show the model, or switch to another for the next request; with no name, a picker of
    the models the server lists (/models)."""
    llm = ctx.agent.llm
    name = args.strip() or await _picked_model(ctx)
    if not name:
        return
    if name == llm.model:
        ctx.say(f"already using {name}")
        return
    old, llm.model = llm.model, name
    record(ctx, "model", name)
    ctx.say(f"model: {old} → {name} from the next request")
    ctx.say(
        "note: a new model starts with a cold prompt cache (the next request pays full price)",
        "dim",
    )


async def _picked_model(ctx: Ctx) -> str:
    """The model shown; in the REPL, the one picked among those the server lists ("": none)."""
    llm = ctx.agent.llm
    p = llm.cfg.provider
    ctx.say(f"model: {llm.model} (provider {p.name})")
    known = [m for m in dict.fromkeys((p.model, p.thinking_model)) if m]
    if ctx.front is None:
        if known:
            ctx.say(f"{p.name} models: {', '.join(known)} · /model NAME switches", "dim")
        return ""
    ids, problem = await served_models(ctx.run)
    if problem is not None:
        ctx.say(f"the server's models cannot be listed: {problem[0]}", "yellow")
    rows = sorted(set(ids or []) | set(known) | {llm.model})
    picked = await ctx.front.choose("model for the next request?", rows, rows.index(llm.model))
    return rows[picked] if picked is not None else ""


@command("think", repl_only=True)
async def think_cmd(ctx: Ctx, args: str) -> None:
    """Toggle the provider's reasoning mode (its thinking model or request body)."""
    llm, p = ctx.agent.llm, ctx.agent.llm.cfg.provider
    st: dict[str, Any] = ctx.state.setdefault("think", {"on": bool(llm.cfg.think)})
    if not p.thinking_model and not p.thinking_body:
        ctx.say(f"provider {p.name} has no reasoning mode to switch to", "yellow")
        return
    if not st["on"]:
        st["model"], st["body"] = llm.model, dict(llm.extra_body)
        if p.thinking_model:
            llm.model = p.thinking_model
        else:
            llm.extra_body = {**llm.extra_body, **p.thinking_body}
        st["on"] = True
        record(ctx, "model", llm.model)
        how = llm.model if p.thinking_model else f"{llm.model} + {json.dumps(p.thinking_body)}"
        ctx.say(f"thinking on ({how})")
        return
    if "model" in st:
        llm.model, llm.extra_body = st.pop("model"), st.pop("body")
    else:  # started with --think: go back to the plain model and body
        llm.model = p.model if llm.model == p.thinking_model and p.model else llm.model
        llm.extra_body = {k: v for k, v in llm.extra_body.items() if k not in p.thinking_body}
    st["on"] = False
    record(ctx, "model", llm.model)
    ctx.say(f"thinking off ({llm.model})")


@command("btw", usage="<question>")
async def btw_cmd(ctx: Ctx, args: str) -> None:
    """Ask a side question about the conversation: no tools, not added to the history."""

    q = args.strip()
    if not q:
        ctx.say("usage: /btw <question>", "yellow")
        return
    await side_reply(ctx, f"{BTW_NOTE}\n\n{q}")


def record(ctx: Ctx, kind: str, value: str) -> None:
    """Note a model or mode change in the session file."""
    ctx.run.recorder.change(kind, value)


@command("tools")
async def tools_cmd(ctx: Ctx, args: str) -> None:
    """List the tools the model can use."""
    tools = ctx.agent.tools
    width = max((len(n) for n in tools), default=8) + 2
    for name, tool in tools.items():
        first = (tool.description.strip().splitlines() or [""])[0]
        ro = "read-only" if tool.read_only else "changes  "
        ctx.say(f"  {name:<{width}}{ro}  {first[:90]}")


@command("exit", aliases=("quit",), repl_only=True)
async def exit_cmd(ctx: Ctx, args: str) -> None:
    """Leave the REPL."""
    ctx.exit = True
