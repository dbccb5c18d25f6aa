"""What `/plan` and `/split` deliver: a fix plan and a proposed stack of smaller PRs.

Values only, in the order they are to be done: a `FixPlan`'s steps and a
`SplitProposal`'s parts are already in dependency order (each after everything it
depends on), as the verbs that build them checked. Both go to the JSON report and are
rendered into one PR comment each; neither changes a verdict or a finding.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FixStep(_Model):
    key: str
    title: str
    description: str
    depends_on: tuple[str, ...] = ()
    fixes: tuple[str, ...] = Field(default=(), description="The ids of the findings it fixes.")


class FixPlan(_Model):
    goal: str
    steps: tuple[FixStep, ...] = Field(description="In dependency order.")
    unplanned: tuple[str, ...] = Field(
        default=(), description="Open findings no step fixes (the plan leaves them to a person)."
    )


class SplitPart(_Model):
    key: str
    title: str
    files: tuple[str, ...]
    depends_on: tuple[str, ...] = ()


class SplitProposal(_Model):
    summary: str
    parts: tuple[SplitPart, ...] = Field(description="In merge order: each after its dependencies.")
