"""`submit_plan`: plan mode's required output verb. Records the plan; changes nothing else."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from reviewbot.tools.context import Plan, ToolContext
from reviewbot.tools.toolbox import ToolResult

PlanStep = Annotated[str, StringConstraints(min_length=1, max_length=2_000)]


class SubmitPlanInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str = Field(
        min_length=1, max_length=20_000, description="What the plan achieves and why."
    )
    steps: list[PlanStep] = Field(min_length=1, max_length=100, description="The steps, in order.")


def submit_plan(ctx: ToolContext, args: SubmitPlanInput) -> ToolResult:
    if ctx.plan is not None:
        return ToolResult(
            content="a plan was already submitted; the first one stands",
            is_error=True,
            ends_run=True,
        )
    ctx.plan = Plan(summary=args.summary, steps=tuple(args.steps))
    return ToolResult(content=f"plan recorded ({len(args.steps)} steps)", ends_run=True)
