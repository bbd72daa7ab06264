"""/map: the repository map as the model would get it now (agent.context.repomap); /lsp: the
language servers (agent.lsp)."""

from __future__ import annotations

from agent.base.messages import text_of
from agent.base.tokens import estimate
from agent.commands.registry import Ctx, command
from agent.context.repomap import RepoMapper, files_in


@command("map", usage="[tokens]")
async def map_cmd(ctx: Ctx, args: str) -> None:
    """Show the repository map: the most used definitions, ranked for this conversation
    (its files and your last message), within repoMap.tokens or the number given."""
    arg = args.strip()
    if arg and not arg.isdigit():
        ctx.say("usage: /map [tokens], e.g. /map 2000", "yellow")
        return
    run = ctx.run
    mapper = run.repo_map or RepoMapper(run.cfg.cwd, run.cfg.options.repo_map_tokens, ctx.agent.ctx)
    tokens = int(arg) if arg else mapper.tokens
    if tokens <= 0:
        ctx.say("the repository map is off (repoMap.tokens is 0); /map 1000 shows one", "dim")
        return
    messages = ctx.agent.messages
    seen = mapper.relative(files_in(messages, ctx.agent.tools))
    last = next((text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    text = await mapper.render(last, seen, tokens=tokens, fresh=True)
    if not text:
        ctx.say(
            "no map: no source files with definitions here (only languages with a grammar)",
            "dim",
        )
        return
    ctx.say(text)
    ctx.say(f"~{estimate(text)} of {tokens} tokens", "dim")


@command("lsp")
async def lsp_cmd(ctx: Ctx, args: str) -> None:
    """Show the language servers: which run, which are installed, what each runs of the
    project, and why one is not running."""
    servers = ctx.agent.ctx.lsp
    if servers is None:
        ctx.say("no language servers in this session", "dim")
        return
    rows = servers.status()
    if not rows:
        ctx.say('language servers are off ("lsp": false in settings)', "dim")
        return
    for row in rows:
        style = {"running": "green", "installed": ""}.get(row["state"], "dim")
        ctx.say(f"{row['name']:14} {row['state']:14} {row['files']}", style)
        if row["problem"]:
            ctx.say(f"{'':14} {row['problem']}", "yellow")
        if row["state"] != "not installed":
            ctx.say(f"{'':14} {row['runs']}", "dim")
    level = ctx.run.cfg.options.edit_diagnostics
    ctx.say(f"after edits: {level} (editDiagnostics); servers start when a file needs one", "dim")
