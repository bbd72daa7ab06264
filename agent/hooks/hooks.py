"""Hooks (SPEC §6): user commands run at events, with a JSON payload on stdin.

Configuration (merged by agent.config from settings files and `.agent/hooks.json`):
`{"PreToolUse": [{"matcher": "bash|write_file", "hooks": [{"type": "command", "command":
"…", "timeout": 30}]}]}` or the short form `{"PreToolUse": [{"command": "…"}]}`. The matcher is
a regular expression that must match the whole tool name; empty or "*" matches every tool.

What a hook's exit status and output mean is agent.hooks.answers: exit 2 blocks with stderr as
the reason; exit 0 with one JSON object on stdout answers; PreToolUse and UserPromptSubmit fail
closed (any other non-zero exit, a crash, a timeout, or stdout that is neither that object nor
plain text blocks). For other events such failures are warnings.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.base.events import Notice, PermissionDenied, Sink
from agent.base.record import Call, Next, Tool, ToolContext, ToolResult, error
from agent.base.schema import validate
from agent.config.envfiles import process_env
from agent.hooks.answers import Outcome, interpret
from agent.hooks.run import Proc, run_command
from agent.sandbox.runtime import Sandbox

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "Stop",
    "SubagentStop",
    "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
DEFAULT_TIMEOUT = 30.0


# A hook that is not a command: the program that drives the agent (agent.sdk) answers it, as
# a command would (the event's JSON in, a Proc with its JSON answer out), within the timeout.
Runner = Callable[[bytes, float], Awaitable[Proc]]


@dataclass(frozen=True)
class HookSpec:
    event: str
    command: str  # for a callback: what names it in messages
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    runner: Runner | None = None

    def matches(self, names: tuple[str, ...] | None) -> bool:
        """The matcher (a regex over tool names) against a tool's name or another name on its
        record (Claude Code's), case aside: `Bash`, `Write|Edit` work as written for it."""
        if names is None or self.matcher in ("", "*"):
            return True
        try:
            return any(re.fullmatch(self.matcher, n, re.IGNORECASE) for n in names)
        except re.error:
            return any(self.matcher.lower() == n.lower() for n in names)


def specs_from(config: dict[str, Any]) -> list[HookSpec]:
    """Flatten the hooks configuration (both shapes) into specs, in file order."""
    out: list[HookSpec] = []
    for event, entries in config.items():
        if event not in EVENTS or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            matcher = str(entry.get("matcher") or "")
            listed = entry.get("hooks")
            inner: list[Any] = listed if isinstance(listed, list) else [entry]
            for h in inner:
                if (
                    isinstance(h, dict)
                    and isinstance(h.get("command"), str)
                    and h.get("type", "command") == "command"
                ):
                    t = h.get("timeout", DEFAULT_TIMEOUT)
                    timeout = float(t) if isinstance(t, (int, float)) and t > 0 else 30.0
                    out.append(HookSpec(event, h["command"], matcher, timeout))
    return out


class Hooks:
    """Fires events; also the PreToolUse/PostToolUse dispatch middleware."""

    def __init__(
        self,
        config: dict[str, Any],
        *,
        session_id: str,
        cwd: Path,
        sink: Sink,
        transcript_path: str = "",
        mode: str = "default",
        tools: dict[str, Tool] | None = None,
    ) -> None:
        self.specs = specs_from(config)
        self.tools = tools or {}
        self.session_id, self.cwd, self.sink = session_id, cwd, sink
        self.transcript_path, self.mode = transcript_path, mode
        self.box: Sandbox | None = None  # hooks run in the sandbox only with sandbox.hooks

    def matching(self, event: str, tool: str | None = None) -> list[HookSpec]:
        known = self.tools.get(tool) if tool is not None else None
        names = None if tool is None else (tool, *(known.aliases if known else ()))
        return [s for s in self.specs if s.event == event and s.matches(names)]

    async def fire(
        self, event: str, payload: dict[str, Any] | None = None, tool: str | None = None
    ) -> Outcome:
        """Run every hook of `event` (concurrently) and combine their answers."""
        out = Outcome()
        specs = self.matching(event, tool)
        if not specs:
            return out
        body = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "hook_event_name": event,
            "permission_mode": self.mode,
            **(payload or {}),
        }
        data = json.dumps(body, default=str).encode()
        env = {
            **process_env(),
            "AGENT_PROJECT_DIR": str(self.cwd),
            "CLAUDE_PROJECT_DIR": str(self.cwd),
            "AGENT_SESSION_ID": self.session_id,
        }
        procs = await asyncio.gather(
            *(
                s.runner(data, s.timeout)
                if s.runner is not None
                else run_command(s.command, data, s.timeout, self.cwd, env, self.box)
                for s in specs
            )
        )
        for spec, proc in zip(specs, procs, strict=True):
            interpret(event, spec.command, spec.timeout, proc, out)
        for m in out.messages:
            self.sink.emit(Notice(m))
        return out

    # Every event is fired from here, its payload built here: the rest of the agent calls these.
    async def session_start(self, source: str) -> Outcome:
        return await self.fire("SessionStart", {"source": source})

    async def session_end(self, reason: str) -> Outcome:
        return await self.fire("SessionEnd", {"reason": reason})

    async def prompt_submit(self, prompt: str) -> Outcome:
        return await self.fire("UserPromptSubmit", {"prompt": prompt})

    async def stop(self, last_message: str, again: bool) -> Outcome:
        return await self.fire("Stop", {"stop_hook_active": again, "last_message": last_message})

    async def subagent_stop(
        self, agent_id: str, agent_type: str, last_message: str, again: bool
    ) -> Outcome:
        payload = {"stop_hook_active": again, "agent_id": agent_id, "agent_type": agent_type}
        return await self.fire("SubagentStop", {**payload, "last_message": last_message})

    async def pre_compact(self, trigger: str, focus: str) -> list[str]:
        """What PreCompact hooks add to the summarisation instructions."""
        out = await self.fire("PreCompact", {"trigger": trigger, "custom_instructions": focus})
        return [str(c) for c in out.context]

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        pre = await self.fire(
            "PreToolUse",
            {"tool_name": call.name, "tool_input": self._input(call), "tool_use_id": call.id},
            call.name,
        )
        if pre.blocked or pre.permission == "deny":
            why = pre.reason or pre.permission_reason or "blocked by a PreToolUse hook"
            call.decision, call.source, call.reason = "deny", "hook", why
            self.sink.emit(PermissionDenied(call.id, call.name, call.args, why))
            return error(
                f"{call.name} was blocked by a hook: {why}",
                can_retry=False,
                hint="do not retry the same call; adjust it to the hook's reason",
            )
        if pre.updated_input is not None:
            problem = self._update(call, pre.updated_input)
            if problem:
                call.decision, call.source, call.reason = "deny", "hook", problem
                return error(problem, can_retry=False)
        if pre.permission:
            call.hook_decision = (pre.permission, pre.permission_reason)
        result = await nxt(call, ctx)
        notes = list(pre.context)
        if call.decision == "allow":
            post = await self.fire(
                "PostToolUse",
                {
                    "tool_name": call.name,
                    "tool_input": self._input(call),
                    "tool_use_id": call.id,
                    "tool_response": {"output": result.output, "is_error": result.is_error},
                },
                call.name,
            )
            notes += ([post.reason] if post.blocked else []) + post.context
        if not notes:
            return result
        text = "\n".join(f"[hook] {n}" for n in notes)
        return ToolResult(f"{result.output}\n\n{text}", result.is_error, result.display)

    def _input(self, call: Call) -> dict[str, Any]:
        """The call's arguments, with Claude Code's `file_path` (absolute) beside the file a
        file tool acts on, so that hooks written for Claude Code find it."""
        tool = self.tools.get(call.name)
        target = tool.target if tool is not None else None
        if target is None or target.what != "file" or "file_path" in call.args:
            return call.args
        path = os.path.join(self.cwd, os.path.expanduser(target.value(call.args)))
        return {**call.args, "file_path": os.path.normpath(path)}

    def _update(self, call: Call, updated: dict[str, Any]) -> str:
        """Apply a hook's updatedInput, re-checked against the tool's schema."""
        args = {**call.args, **updated}
        tool = self.tools.get(call.name)
        if tool is not None:
            args, problems = validate(args, tool.parameters)
            if problems:
                bad = "; ".join(problems)
                return f"a PreToolUse hook rewrote the {call.name} call badly: {bad}"
        call.args = args
        call.updated_by_hook = True
        return ""
