"""Build a working Agent from a Config: client, tools, permission gate, system prompt."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agent.asking import Asker
from agent.audit import Audit
from agent.compaction import Policy
from agent.config import Config
from agent.dispatch import Dispatcher
from agent.events import FanOut, PermissionDenied, Sink
from agent.hooks import Hooks
from agent.llm import LLM
from agent.loop import Agent
from agent.memory import env_block, system_prompt
from agent.permissions import Gate
from agent.rules import ALIASES
from agent.tools import ToolContext, builtin_tools, registry


@dataclass
class Denials:
    """Collects permission denials for the result's `permission_denials`."""

    items: list[dict[str, Any]] = field(default_factory=list)

    def emit(self, event: Any) -> None:
        if isinstance(event, PermissionDenied):
            self.items.append(
                {"tool_name": event.name, "tool_use_id": event.id, "tool_input": event.args}
            )


@dataclass
class Run:
    agent: Agent
    session_id: str
    denials: Denials
    cfg: Config
    hooks: Hooks
    gate: Gate
    first_turn: bool = True
    context: list[str] = field(default_factory=list)  # from SessionStart hooks

    def user_message(self, prompt: str) -> str:
        """The first message of a session carries the environment block (and hook context)."""
        if self.first_turn:
            self.first_turn = False
            extra = "".join(f"\n\n{c}" for c in self.context)
            return f"{env_block(self.cfg.cwd, self.cfg.root)}{extra}\n\n{prompt}"
        return prompt

    async def start(self, source: str = "startup") -> None:
        """Fire SessionStart; what the hooks print joins the first user message."""
        out = await self.hooks.fire("SessionStart", {"source": source})
        self.context += out.context

    async def end(self, reason: str = "exit") -> None:
        await self.hooks.fire("SessionEnd", {"reason": reason})

    def init_event(self) -> dict[str, Any]:
        return {
            "type": "system",
            "subtype": "init",
            "session_id": self.session_id,
            "cwd": str(self.cfg.cwd),
            "model": self.agent.llm.model,
            "tools": list(self.agent.tools),
            "mcp_servers": [],
            "permission_mode": self.cfg.permission_mode,
        }


def build(cfg: Config, sink: Sink, asker: Asker | None = None) -> Run:
    """Everything a session needs, wired at the three seams."""
    session_id = uuid.uuid4().hex
    denials = Denials()
    out = FanOut(sink, denials)
    tools = registry(builtin_tools())
    disabled = {
        ALIASES.get(r.lower(), r) for r in cfg.permissions.get("neverAllow", []) if "(" not in r
    }
    tools = {n: t for n, t in tools.items() if n not in disabled}  # a denied tool is not offered
    gate = Gate(
        tools, cfg.permissions, cfg.permission_mode, out, asker, workspace=cfg.cwd, root=cfg.root
    )
    transcript = cfg.root / ".agent" / "sessions" / f"{session_id}.jsonl"
    hooks = Hooks(
        cfg.settings.get("hooks", {}),
        session_id=session_id,
        cwd=cfg.cwd,
        sink=out,
        transcript_path=str(transcript),
        mode=cfg.permission_mode,
        tools=tools,
    )
    ctx = ToolContext(cwd=cfg.cwd, session_id=session_id, sink=out)
    # Audit outermost (it records denials too); PreToolUse hooks before the permission prompt,
    # as in Claude Code, so that a hook's allow/deny can skip or settle it.
    layers = (Audit(cfg.root, session_id, out), hooks, gate)
    agent = Agent(
        llm=LLM(cfg),
        tools=tools,
        dispatcher=Dispatcher(tools, layers),
        sink=out,
        ctx=ctx,
        system_prompt=system_prompt(cfg.cwd, cfg.root),
        max_turns=cfg.max_turns,
        compaction=Policy.from_config(cfg),
        hooks=hooks if hooks.specs else None,
    )
    return Run(agent, session_id, denials, cfg, hooks, gate)
