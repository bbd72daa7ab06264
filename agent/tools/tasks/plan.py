"""exit_plan_mode: in plan mode, the model hands in its plan; the user approves it (switching
to default or acceptEdits) or sends it back with feedback. Without a terminal no one can
approve: the plan is the turn's reply, and the run's result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.base.args import Args, arg
from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.tools.shared.common import ToolError, guard

if TYPE_CHECKING:  # annotations only
    from agent.base.parts import PlanReview


def review_of(ctx: ToolContext) -> PlanReview | None:
    return ctx.planning


class PlanArgs(Args):
    plan: str = arg(doc="The plan, in markdown")


@guard
async def _exit(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    plan = PlanArgs.parse(args).plan.strip()
    if not plan:
        raise ToolError("the plan is empty", hint="write the plan in markdown as `plan`")
    review = review_of(ctx)
    if review is None or review.mode != "plan":
        return error("not in plan mode: there is no plan to approve; go ahead", can_retry=False)
    if not review.can_ask:
        note = "No one can approve the plan here (no terminal): it is the run's result."
        return ToolResult(note, display="plan handed in (no terminal to approve it)", final=plan)
    mode, feedback = await review.review(plan)
    if mode == "keep":
        said = f": {feedback}" if feedback else ""
        return ToolResult(
            f"The user did not approve the plan and wants you to keep planning{said}. "
            "Revise it, then call exit_plan_mode again.",
            display="plan sent back",
        )
    return ToolResult(
        f"The user approved the plan; the permission mode is now {mode}. Carry it out.",
        display=f"plan approved · {mode}",
    )


EXIT_PLAN_MODE = Tool(
    name="exit_plan_mode",
    description=(
        "Plan mode only: hand in your plan (markdown) for the user to approve; then act on it, "
        "or revise it if sent back."
    ),
    parameters=PlanArgs.schema(),
    run=_exit,
    read_only=True,  # it changes nothing on disk: allowed in plan mode
    kind="meta",
    aliases=("ExitPlanMode",),
    rare=True,  # loaded when the session enters plan mode (agent.base.shelf)
    wanted_in="plan",
)

TOOLS: tuple[Tool, ...] = (EXIT_PLAN_MODE,)
