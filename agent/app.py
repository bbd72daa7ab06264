"""Build a working Agent from a Config: client, tools, permission gate, system prompt."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agent.config import Config
from agent.dispatch import Dispatcher
from agent.events import FanOut, PermissionDenied, Sink
from agent.llm import LLM
from agent.loop import Agent
from agent.memory import env_block, system_prompt
from agent.permissions import Asker, Gate
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
    first_turn: bool = True

    def user_message(self, prompt: str) -> str:
        """The first message of a session carries the environment block."""
        if self.first_turn:
            self.first_turn = False
            return f"{env_block(self.cfg.cwd, self.cfg.root)}\n\n{prompt}"
        return prompt

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
    disabled = {r for r in cfg.permissions.get("neverAllow", []) if "(" not in r}
    tools = {n: t for n, t in tools.items() if n not in disabled}  # a denied tool is not offered
    gate = Gate(tools, cfg.permissions, cfg.permission_mode, out, asker)
    ctx = ToolContext(cwd=cfg.cwd, session_id=session_id, sink=out)
    agent = Agent(
        llm=LLM(cfg),
        tools=tools,
        dispatcher=Dispatcher(tools, (gate,)),
        sink=out,
        ctx=ctx,
        system_prompt=system_prompt(cfg.cwd, cfg.root),
        max_turns=cfg.max_turns,
    )
    return Run(agent, session_id, denials, cfg)
