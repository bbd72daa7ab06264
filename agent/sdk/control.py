"""What the program asks of the agent (control requests in) and what the agent asks of the
program (permission requests and hook callbacks out).

In: `initialize` (the program's hook callbacks registered as hooks; its answer says what the
agent offers), `interrupt` (the running turn stops; the conversation stays valid),
`set_permission_mode`, `set_model`, `mcp_status`. Anything else is answered with an error
naming it, and the session goes on.

Out: `can_use_tool` when a call needs permission and the program answers them
(`--permission-prompt-tool stdio`, which the SDKs pass when the program has a `can_use_tool`
callback); `hook_callback` for each of the program's hooks that matches an event.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent.base.visible import visible
from agent.config.claude import permission_mode
from agent.hooks.hooks import EVENTS, HookSpec
from agent.hooks.run import Proc
from agent.permissions.request import Answer, AskRequest
from agent.sdk.channel import Channel, ControlError, Json
from agent.subagents.defs import from_json
from agent.subagents.runner import Subagents
from agent.subagents.tool import task_tools

if TYPE_CHECKING:  # annotations only
    from agent.app import Run
    from agent.config.load import Flags

# A call is judged (paths, protected files, the sandbox) with the input it was asked with; one
# the program allowed only with another input is not run changed: the model makes it anew.
CHANGED = "the program allows this call only with another input; make the call with it: "
PERMISSION_WAIT = None  # seconds a permission request waits for the program: as long as it takes


def hook_specs(config: Any, channel: Channel) -> list[HookSpec]:
    """The program's hooks of `initialize`: {event: [{matcher, hookCallbackIds, timeout}]}."""
    out: list[HookSpec] = []
    if not isinstance(config, dict):
        return out
    for event, matchers in config.items():
        if event not in EVENTS or not isinstance(matchers, list):
            continue
        for m in matchers:
            if not isinstance(m, dict):
                continue
            t = m.get("timeout")
            timeout = float(t) if isinstance(t, (int, float)) and t > 0 else 60.0
            for cid in m.get("hookCallbackIds") or []:
                matcher, runner = str(m.get("matcher") or ""), _callback(str(cid), channel)
                out.append(HookSpec(event, f"callback {cid}", matcher, timeout, runner))
    return out


def _callback(cid: str, channel: Channel) -> Callable[[bytes, float], Any]:
    async def run(data: bytes, timeout: float) -> Proc:
        body = json.loads(data)
        request = {
            "subtype": "hook_callback",
            "callback_id": cid,
            "input": body,
            "tool_use_id": body.get("tool_use_id"),
        }
        try:
            answer = await channel.request(request, timeout)
        except ControlError as e:
            return Proc(None, "", "", error=str(e))
        return Proc(0, json.dumps(answer), "")

    return run


class ProgramAsker:
    """The gate's Asker: the program's `can_use_tool` decides. Allow once, or deny with the
    program's message for the model; `interrupt` stops the turn too."""

    def __init__(self, channel: Channel, on_interrupt: Callable[[], None]) -> None:
        self.channel, self.on_interrupt = channel, on_interrupt

    async def __call__(self, req: AskRequest) -> Answer:
        request: Json = {
            "subtype": "can_use_tool",
            "tool_name": req.tool,
            "input": req.args,
            "tool_use_id": req.call_id or None,
            "permission_suggestions": [],
            "decision_reason": req.reason,
            "blocked_path": req.target if req.what in ("file", "folder") else None,
        }
        try:
            answer = await self.channel.request(request, PERMISSION_WAIT)
        except ControlError as e:
            return Answer("n", f"the program could not answer the permission request: {e}")
        if answer.get("behavior") == "allow":
            changed = answer.get("updatedInput")
            if isinstance(changed, dict) and changed != req.args:  # judged as asked, not so
                return Answer("n", CHANGED + json.dumps(changed, ensure_ascii=False))
            return Answer("y")
        if answer.get("interrupt"):
            self.on_interrupt()
        return Answer("n", str(answer.get("message") or "denied by the program"))


def flags_of(flags: Flags, init: Json) -> Flags:
    """The command line's flags with what `initialize` says of the session (the TypeScript
    SDK sends these there, not as flags): the system prompt (text, or parts), what to append,
    and the names of the program's own MCP servers."""
    auto = flags.automation
    prompt = init.get("systemPrompt")
    if isinstance(prompt, list):
        prompt = "\n\n".join(p for p in prompt if isinstance(p, str))
    if isinstance(prompt, str):
        auto = replace(auto, system_prompt=prompt.strip())
    extra = init.get("appendSystemPrompt")
    if isinstance(extra, str) and extra.strip():
        auto = replace(auto, append_prompt="\n\n".join(p for p in (auto.append_prompt, extra) if p))
    schema = init.get("jsonSchema")
    if isinstance(schema, dict):  # the answer's shape (the TypeScript SDK's outputFormat)
        auto = replace(auto, output_schema=schema)
    names = [n for n in init.get("sdkMcpServers") or [] if isinstance(n, str)]
    servers = {**flags.mcp_servers, **{n: {"type": "sdk"} for n in names}}
    return replace(flags, automation=auto, mcp_servers=servers)


def initialized(run: Run, body: Json, channel: Channel) -> Json:
    """Register the program's hooks; what the agent offers, in the shape the SDKs keep."""
    specs = hook_specs(body.get("hooks"), channel)
    if specs:
        run.hooks.specs = [*run.hooks.specs, *specs]
        run.agent.hooks = run.hooks
    add_agents(run, body.get("agents"))
    tools = list(run.agent.tools)
    return {
        "commands": [],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [{"value": run.agent.llm.model, "displayName": run.agent.llm.model}],
        "tools": tools,
        "hooks_applied": True,
        "hook_on_failure_supported": False,  # only PreToolUse and UserPromptSubmit fail closed
        # what the program passed with initialize took effect (the TypeScript SDK checks)
        "mcp_servers_applied": True,
        "settings_applied": True,
        "disallowed_tools_applied": True,
    }


def set_mode(run: Run, body: Json) -> Json:
    """Claude Code's modes; its `auto` (a model classifies each call) is `default` here."""
    mode = permission_mode(str(body.get("mode")))
    if mode is None:
        raise ValueError(f"unknown permission mode {body.get('mode')!r}")
    run.set_mode(mode)
    return {}


def set_model(run: Run, body: Json) -> Json:
    model = body.get("model")
    llm = run.agent.llm
    llm.model = model if isinstance(model, str) and model else run.cfg.model
    run.recorder.change("model", llm.model)
    return {}


def mcp_status(run: Run) -> Json:
    servers = run.mcp.statuses() if run.mcp is not None else []
    return {"mcpServers": [{"name": s["name"], "status": s["status"]} for s in servers]}


def add_agents(run: Run, agents: Any) -> None:
    """The program's subagent definitions ({name: {description, prompt, tools, model}}): the
    task tool offers them beside the project's (a problem with one is said on stderr)."""
    runner = run.agent.ctx.subagents
    if not isinstance(agents, dict) or not agents or not isinstance(runner, Subagents):
        return
    known = {name: tool.aliases for name, tool in run.agent.tools.items()}
    for name, raw in agents.items():
        got = from_json(str(name), raw, known, "the program's agents")
        if isinstance(got, str):
            print(f"agent: warning: {visible(got)}", file=sys.stderr)
            continue
        for note in got.notes:
            print(f"agent: warning: {visible(note)}", file=sys.stderr)
        runner.defs[got.name] = got
    run.agent.tools.update({t.name: t for t in task_tools(dict(sorted(runner.defs.items())))})
    run.agent.refresh_tools()
