"""How the model answers: /recap (where the session stands, in a few sentences), /lang (the reply
language, saved to your settings), /creative (a higher temperature for this session)."""

from __future__ import annotations

from agent.base.events import AssistantMessage
from agent.base.messages import Message
from agent.commands.registry import Ctx, command
from agent.config.settings import LANGUAGE, ConfigError, save_user_setting
from agent.context.memory import language_name

RECAP = (
    "[Recap for the user: in one to three plain sentences, say what this session is about, what "
    "has been done so far and what is still open. Use no tools; do not start new work.]"
)
CREATIVE_TEMPERATURE = 1.0
LANG_USAGE = "usage: /lang [code|auto|off] — e.g. /lang ru; auto = the language you write in"


async def side_reply(ctx: Ctx, prompt: str) -> str:
    """One request over the conversation with `prompt` last, no tools, not added to the history
    (/btw, /recap); the reply is shown and counted in the session's cost."""
    a = ctx.agent
    display = ctx.display or a.sink
    messages: list[Message] = [*a.messages, {"role": "user", "content": prompt}]
    # Same tools list as the session (never called): the request prefix stays cache-identical.
    reply = await a.llm.complete(messages, a.schemas, display, 0, no_tools=True)
    a.totals.add(reply.usage, a.llm.price())  # counted, but not in the context meter
    display.emit(AssistantMessage(reply.text, reply.reasoning, [], reply.usage))
    if reply.calls and not reply.text:
        ctx.say("(the model wanted to use tools; this answers from the context only)", "dim")
    return reply.text


@command("recap")
async def recap_cmd(ctx: Ctx, args: str) -> None:
    """Sum up the session in one to three sentences (no tools, not added to the history)."""
    if len(ctx.agent.messages) < 2:
        ctx.say("nothing to recap yet: the conversation is empty")
        return
    await side_reply(ctx, RECAP)


@command("lang", usage="[code|auto|off]", aliases=("language",))
async def lang_cmd(ctx: Ctx, args: str) -> None:
    """Set the language the model replies in (saved to your settings; applies at once)."""
    code = args.strip()
    run = ctx.run
    if not code:
        now = run.language
        shown = {"": "not set (the model chooses)", "auto": "auto (the language you write in)"}
        ctx.say(f"reply language: {shown.get(now, language_name(now))}")
        ctx.say(LANG_USAGE, "dim")
        return
    if len(code.split()) > 1 or len(code) > 40 or not LANGUAGE.fullmatch(code):
        ctx.say(LANG_USAGE, "yellow")
        return
    value = None if code == "off" else code
    try:
        path = save_user_setting("language", value)
    except (ConfigError, OSError) as e:
        ctx.say(f"not saved: {e}; it applies to this session only", "yellow")
        path = None
    run.language = value or ""
    apply_system_prompt(ctx)
    said = {"off": "no reply language set", "auto": "replies in the language you write in"}
    where = f" (saved to {path})" if path else ""
    ctx.say(f"{said.get(code, 'replies in ' + language_name(code))}{where}")


def apply_system_prompt(ctx: Ctx) -> None:
    """The live conversation gets the new system prompt (the prompt cache starts over)."""
    a = ctx.agent
    a.system_prompt = ctx.run.system_prompt()
    if a.messages and a.messages[0].get("role") == "system":
        a.messages[0] = {"role": "system", "content": a.system_prompt}


@command("creative", repl_only=True)
async def creative_cmd(ctx: Ctx, args: str) -> None:
    """Toggle a higher temperature (more varied answers) for this session."""
    llm = ctx.agent.llm
    base = ctx.cfg.temperature
    on = not ctx.state.get("creative", False)
    ctx.state["creative"] = on
    if not on:
        llm.temperature = base
        ctx.say(f"creative off: temperature {'the provider default' if base is None else base}")
        return
    llm.temperature = max(CREATIVE_TEMPERATURE, base or 0.0)
    ctx.say(f"creative on: temperature {llm.temperature:g} for this session (/creative again: off)")
    if ctx.cfg.think:
        ctx.say("note: reasoning models ignore the temperature (--think is on)", "dim")
