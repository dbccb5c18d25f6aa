"""`submit_plan`: plan mode's required output verb. Records a fix plan; changes nothing else.

The plan is a dependency graph over the findings the agent was given (they are in the
node store): a goal, and nodes with a key, a title, a description, the keys each depends
on and the ids of the findings each fixes. It is checked here, at the boundary — a
duplicate or unknown key, a cycle, a finding id that is not one of the given findings —
and a plan that fails is refused with the reason as the tool result, so the agent can
send a corrected one; only a valid plan ends the run.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from reviewbot.results.plan import FixPlan, FixStep
from reviewbot.text.hygiene import quoted
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.dag import dependency_order
from reviewbot.tools.toolbox import ToolResult

Key = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")]
StepTitle = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=4_000)]


class VerbInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlanNodeInput(VerbInput):
    key: Key = Field(description="A short key of your choosing: lower-case, e.g. `fix-auth`.")
    title: StepTitle = Field(description="The step in a few words.")
    description: Text = Field(description="What to change, where, and how to check it.")
    depends_on: list[Key] = Field(
        default_factory=list, max_length=50, description="Keys of steps that must be done first."
    )
    fixes: list[str] = Field(
        default_factory=list, max_length=100, description="Ids of the findings this step fixes."
    )


class SubmitPlanInput(VerbInput):
    goal: Text = Field(description="What the plan achieves, in a sentence or two.")
    nodes: list[PlanNodeInput] = Field(min_length=1, max_length=50, description="The steps.")


def submit_plan(ctx: ToolContext, args: SubmitPlanInput) -> ToolResult:
    if ctx.plan is not None:
        return ToolResult(
            content="a plan was already submitted; the first one stands",
            is_error=True,
            ends_run=True,
        )
    order = dependency_order([(n.key, n.depends_on) for n in args.nodes], what="node")
    findings = {node.id for node in ctx.store.all()}
    for node in args.nodes:
        unknown = [f for f in node.fixes if f not in findings]
        if unknown:
            raise ToolRetry(
                f"node {node.key!r} fixes {quoted(unknown[0], limit=80)}, which is not one of the findings "
                f"given (their ids are: {', '.join(sorted(findings)) or 'none'})"
            )
    by_key = {n.key: n for n in args.nodes}
    steps = tuple(
        FixStep(
            key=key,
            title=by_key[key].title,
            description=by_key[key].description,
            depends_on=tuple(dict.fromkeys(by_key[key].depends_on)),
            fixes=tuple(dict.fromkeys(by_key[key].fixes)),
        )
        for key in order
    )
    fixed = {f for step in steps for f in step.fixes}
    unplanned = tuple(node.id for node in ctx.store.all() if node.id not in fixed)
    ctx.plan = FixPlan(goal=args.goal, steps=steps, unplanned=unplanned)
    return ToolResult(content=f"plan recorded ({len(steps)} steps)", ends_run=True)
