"""/map: the repository map as the model would get it now (agent.context.repomap)."""

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
