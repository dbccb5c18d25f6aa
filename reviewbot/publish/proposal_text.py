"""The comments `/plan` and `/split` post: a fix plan, a proposed stack of PRs, or one line why not.

Everything the agent wrote (goal, titles, descriptions, file names) and every finding's
title is PR-derived text: it passes through `Inert` (publish/inert.py), the sanitiser of
everything reviewbot posts, so no plan can mention someone, link elsewhere, open a
hidden marker or escape its list item. Steps and parts come in the order the verbs put
them in (dependencies first) and are numbered; each names what it depends on by number.

Must not: call GitHub, run an agent, or decide whether a command may run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewbot.nodes.model import ReviewNode
from reviewbot.publish.inert import Inert
from reviewbot.results.plan import FixPlan, SplitProposal

PLAN_TITLE = "**reviewbot's fix plan**"
SPLIT_TITLE = "**reviewbot's proposed split** (nothing was pushed or created)"
NO_PLAN_NEEDED = (
    "**reviewbot's fix plan**: no plan needed: the head has no open or confirmed findings."
)


def plan_text(plan: FixPlan, findings: Sequence[ReviewNode], inert: Inert, footer: str) -> str:
    """The fix plan as one comment: the goal, then each step with the findings it fixes."""
    by_id = {node.id: node for node in findings}
    number = {step.key: index for index, step in enumerate(plan.steps, start=1)}
    lines = [PLAN_TITLE, "", inert.block(plan.goal), ""]
    for index, step in enumerate(plan.steps, start=1):
        lines.append(f"{index}. **{inert.line(step.title)}**{_after(step.depends_on, number)}")
        lines.extend(_indented(inert.block(step.description)))
        for finding in step.fixes:
            lines.append(f"   - fixes {_finding(finding, by_id, inert)}")
    if plan.unplanned:
        lines += ["", "Not in the plan (left to a person):"]
        lines += [f"- {_finding(f, by_id, inert)}" for f in plan.unplanned]
    return "\n".join([*lines, "", footer]).strip()


def split_text(split: SplitProposal, inert: Inert, footer: str) -> str:
    """The proposed stack as one comment: the parts in merge order, each with its files."""
    number = {part.key: index for index, part in enumerate(split.parts, start=1)}
    lines = [SPLIT_TITLE, "", inert.block(split.summary), ""]
    for index, part in enumerate(split.parts, start=1):
        count = f"{len(part.files)} file{'s' if len(part.files) != 1 else ''}"
        lines.append(
            f"{index}. **{inert.line(part.title)}** ({count}){_after(part.depends_on, number)}"
        )
        lines.extend(f"   - {inert.code(path)}" for path in part.files)
    lines += ["", "Merge in this order: each part after the parts it depends on."]
    return "\n".join([*lines, "", footer]).strip()


def _after(depends_on: Sequence[str], number: Mapping[str, int]) -> str:
    if not depends_on:
        return ""
    return " — after " + ", ".join(f"{number[key]}" for key in depends_on)


def _finding(id: str, by_id: Mapping[str, ReviewNode], inert: Inert) -> str:
    node = by_id.get(id)
    if node is None:
        return f"`{id}`"
    where = f" at {inert.code(node.anchor.path)}" if node.anchor is not None else ""
    return f"`{id}` ({node.priority.value}) {inert.line(node.title)}{where}"


def _indented(block: str) -> list[str]:
    return [f"   {line}" if line else "" for line in block.split("\n")]
