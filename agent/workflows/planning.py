"""Leaving plan mode through a plan the user approves (tools.plan's exit_plan_mode): the plan
shown in the permission prompt, then approve into default or acceptEdits, or send it back with
feedback for the model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.config.modes import PermissionMode
from agent.permissions.gate import Gate
from agent.permissions.request import AskRequest

if TYPE_CHECKING:  # annotations only
    from agent.base.parts import PlanOutcome

CHOICES = (("y", "[y] approve, default mode"), ("e", "[e] approve, accept edits"))
KEEP = ("n", "[N]o, keep planning")


@dataclass
class Review:
    gate: Gate
    # Run.set_mode: the gate, hooks and session record follow
    set_mode: Callable[[PermissionMode], None]

    @property
    def mode(self) -> PermissionMode:
        return self.gate.mode

    @property
    def can_ask(self) -> bool:
        return self.gate.asker is not None

    async def review(self, plan: str) -> tuple[PlanOutcome, str]:
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
        if answer.choice == "y":
            self.set_mode("default")
            return "default", ""
        if answer.choice == "e":
            self.set_mode("acceptEdits")
            return "acceptEdits", ""
        return "keep", answer.reason
