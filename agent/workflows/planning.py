"""Leaving plan mode through a plan the user approves (tools.plan's exit_plan_mode): the plan
shown in the permission prompt, then approve into default or acceptEdits, or send it back with
feedback for the model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.permissions.asking import AskRequest
from agent.permissions.gate import Gate

CHOICES = (("y", "[y] approve, default mode"), ("e", "[e] approve, accept edits"))
KEEP = ("n", "[N]o, keep planning")


@dataclass
class Review:
    gate: Gate
    set_mode: Callable[[str], None]  # Run.set_mode: the gate, hooks and session record follow

    @property
    def mode(self) -> str:
        return self.gate.mode

    @property
    def can_ask(self) -> bool:
        return self.gate.asker is not None

    async def review(self, plan: str) -> tuple[str, str]:
        """("default" | "acceptEdits", "") when approved, else ("keep", the feedback)."""
        assert self.gate.asker is not None
        req = AskRequest(
            "exit_plan_mode",
            {"plan": plan},
            "the plan is ready: approve it and leave plan mode?",
            "the plan",
            body=plan,
            choices=("y", "e", "n"),
            labels=(*CHOICES, KEEP),
        )
        answer = await self.gate.asker(req)
        if answer.choice in ("y", "e"):
            mode = "default" if answer.choice == "y" else "acceptEdits"
            self.set_mode(mode)
            return mode, ""
        return "keep", answer.reason
