"""The JSON report (`--format json`): maps a finished run to the machine-readable result of one review.

A stable, documented schema: `reviewbot schema` prints its JSON Schema. Bump
`SCHEMA_VERSION` on any change that could break a consumer.
"""

from __future__ import annotations

import json
import math
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
)

from reviewbot.coverage.model import Coverage
from reviewbot.modes.profile import Role
from reviewbot.nodes.boundary import Discarded
from reviewbot.nodes.model import ReviewNode
from reviewbot.results.learned import LearningsReport
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.results.run import StopReason, Usage
from reviewbot.sources.guideline_file import GuidelineFile
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.fold import Decision, Source
from reviewbot.verdict.lattice import Label, Verdict

SCHEMA_VERSION: Literal[1] = 1
_RAW_LIMIT = 4_000


def _verdict_of(label: object) -> Verdict:
    """The report's edge: a `Verdict` inside, its label (`ship`) in the JSON, nothing else."""
    if isinstance(label, Verdict):
        return label
    if isinstance(label, str) and label in {v.label for v in Verdict}:
        return Verdict[label.upper()]
    raise ValueError("verdict must be 'ship', 'hold' or 'block'")


# An agent's role: the enum inside, its value in the JSON (an inline enum, as it always was).
RoleLabel = Annotated[
    Role,
    PlainSerializer(lambda r: r.value, return_type=str),
    WithJsonSchema({"enum": [r.value for r in Role], "title": "Role", "type": "string"}),
]
VerdictLabel = Annotated[
    Verdict, PlainValidator(_verdict_of), PlainSerializer(lambda v: v.label, return_type=Label)
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AxisReport(_Model):
    name: str
    gated: bool
    outcome: Outcome
    detail: str = ""

    @classmethod
    def of(cls, axis: AxisResult) -> AxisReport:
        return cls(name=axis.name, gated=axis.gated, outcome=axis.outcome, detail=axis.detail)


class ReasonReport(_Model):
    verdict: VerdictLabel
    source: Source
    name: str
    text: str


class DiscardReport(_Model):
    origin: str
    reason: str
    raw: Any = Field(
        description=f"The refused input, JSON-safe, strings cut at {_RAW_LIMIT} characters."
    )

    @classmethod
    def of(cls, discarded: Discarded) -> DiscardReport:
        return cls(origin=discarded.origin, reason=discarded.reason, raw=json_safe(discarded.raw))


class AgentReport(_Model):
    name: str
    role: RoleLabel
    model: str
    stop_reason: StopReason
    turns: int = 0
    error: str | None = None
    exit_code: int | None = Field(
        default=None,
        description="Set when the Messages API stopped this agent (a refused key, an unknown "
        "model, unreachable or failing): the exit code `reviewbot review` ends with, after "
        "publishing. None for a normal end, a budget or the model's own failure.",
    )
    usage: Usage = Usage()
    summary: str | None = Field(
        default=None, description="The agent's own summary (finalize_review), if it gave one."
    )
    notes: tuple[str, ...] = Field(
        default=(), description="Harness remarks, e.g. an unknown model priced at the top rate."
    )


class ReviewKind(StrEnum):
    FULL = "full"  # every changed file of the PR
    INCREMENTAL = "incremental"  # the changes since the last reviewed head


class ReviewRun(_Model):
    """Which kind of review ran, and why: full, or incremental since an earlier head."""

    kind: ReviewKind
    since: str | None = Field(
        default=None,
        description="Incremental: the reviewed head whose changes since are what the agents got.",
    )
    reason: str = Field(description="Why this kind ran (for a full review: why not incremental).")
    carried: int = Field(
        default=0, description="Earlier findings carried forward without a model call."
    )
    rejudged: int = Field(
        default=0, description="Earlier findings on changed lines, shown to the agents to re-judge."
    )
    carried_ids: tuple[str, ...] = Field(
        default=(),
        description="The ids of the carried findings: their anchors were mapped onto this head.",
    )
    config_digest: str | None = Field(
        default=None, description="Digest of the effective config: a change forces a full review."
    )
    last_comment: int | None = Field(
        default=None,
        description="The newest PR comment id this review read: a later `/review full` counts.",
    )
    base_sha: str | None = Field(
        default=None, description="The base commit the PR's diff was against in this review."
    )
    resolve_later: tuple[str, ...] = Field(
        default=(),
        description=(
            "Fingerprints of earlier findings this run found fixed past the comments a run "
            "marks resolved: they stand in this report, and the next run marks them."
        ),
    )
    unverified: tuple[str, ...] = Field(
        default=(),
        description=(
            "Fingerprints of the findings of a verified priority that neither the verifier nor "
            "a person judged: each holds the verdict of every run until it is judged."
        ),
    )
    # Digests of every file's PR patch (scope/patches.py), for the summary marker only.
    patches: tuple[str, ...] | None = Field(default=None, exclude=True)


class PRInfo(_Model):
    origin: Literal["github", "local"]
    url: str | None
    repo: str | None
    number: int | None
    title: str
    base_sha: str
    head_sha: str


class PublishedComment(_Model):
    node_id: str
    path: str
    line: int
    start_line: int | None = None
    comment_id: int | None = None
    landed: bool = Field(description="Read back after posting and found on its line.")


class Published(_Model):
    review_id: int | None
    review_url: str | None
    event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"] | None
    summary_comment_id: int | None = None
    check_run_id: int | None = None
    commit_status: bool = False
    check_conclusion: Literal["success", "neutral", "failure"] | None = Field(
        default=None,
        description="The `reviewbot` check's conclusion (a commit status: `neutral` is `success`).",
    )
    comments: tuple[PublishedComment, ...] = ()
    in_body: tuple[str, ...] = Field(
        default=(), description="Node ids listed in the body instead of inline."
    )
    already_posted: tuple[str, ...] = Field(
        default=(), description="Node ids found on the PR from earlier runs."
    )
    resolved: tuple[str, ...] = Field(
        default=(), description="Earlier nodes marked resolved by this run."
    )
    reopened: tuple[str, ...] = Field(
        default=(),
        description=(
            "Node ids of resolved findings found again, reopened in their earlier inline comment "
            "(edited back to open, its thread unresolved) instead of posted again."
        ),
    )
    threads_resolved: tuple[int, ...] = Field(
        default=(), description="Review threads resolved, by their first comment's id."
    )
    threads_reopened: tuple[int, ...] = Field(
        default=(),
        description="Review threads unresolved, by their first comment's id: its finding was reopened.",
    )
    threads_left_open: tuple[int, ...] = Field(
        default=(),
        description=(
            "Threads of resolved findings left open: a person replied, or GraphQL failed to "
            "resolve again one unresolved for a reopen GitHub then refused."
        ),
    )
    annotated: tuple[str, ...] = Field(
        default=(), description="Node ids carried as annotations of the `reviewbot` check run."
    )
    dismissed_approvals: tuple[int, ...] = Field(
        default=(),
        description="reviewbot's own earlier approvals (review ids) dismissed: this head is not a Ship.",
    )
    standing_approvals: tuple[int, ...] = Field(
        default=(),
        description=(
            "reviewbot's own earlier approvals GitHub refused to dismiss: they still count "
            "toward required reviews, so the check fails (see `notes`)."
        ),
    )
    notes: tuple[str, ...] = ()


class Report(_Model):
    schema_version: Literal[1] = SCHEMA_VERSION
    tool_version: str
    verdict: VerdictLabel
    reasons: tuple[ReasonReport, ...] = ()
    axes: tuple[AxisReport, ...]
    nodes: tuple[ReviewNode, ...]
    discarded: tuple[DiscardReport, ...] = ()
    usage: Usage = Usage()
    agents: tuple[AgentReport, ...] = ()
    coverage: Coverage | None = None
    guidelines: tuple[GuidelineFile, ...] = Field(
        default=(),
        description="The base branch's guideline files given to the agents, and their size.",
    )
    pr: PRInfo
    review: ReviewRun | None = Field(
        default=None, description="Full or incremental, and since which head (None: a re-fold)."
    )
    published: Published | None = None
    learnings: LearningsReport | None = Field(
        default=None,
        description="What `.reviewbot/learnings.toml` (base branch) did: shown, suppressed, kept.",
    )
    skipped: str | None = Field(
        default=None,
        description="Why nothing was reviewed (no changes, an event that needs no review): then "
        "there are no axes and no findings, and the verdict is hold, as for zero axes.",
    )
    plan: FixPlan | None = Field(default=None, description="What `/plan` posted: a fix plan.")
    split: SplitProposal | None = Field(
        default=None, description="What `/split` posted: a proposed stack of smaller PRs."
    )

    @classmethod
    def nothing_reviewed(cls, reason: str, pr: PRInfo, tool_version: str) -> Report:
        """The report of a run that reviewed nothing: it says why, and never passes."""
        why = ReasonReport(
            verdict="hold", source=Source.RULE, name="nothing_to_review", text=reason
        )
        return cls(
            tool_version=tool_version,
            verdict="hold",
            reasons=(why,),
            axes=(),
            nodes=(),
            pr=pr,
            skipped=reason,
        )

    def with_proposal(self, proposal: FixPlan | SplitProposal | None) -> Report:
        """This report with what a `/plan` or `/split` answer posted (None: unchanged)."""
        if isinstance(proposal, FixPlan):
            return self.model_copy(update={"plan": proposal})
        if isinstance(proposal, SplitProposal):
            return self.model_copy(update={"split": proposal})
        return self

    @property
    def no_model_ran(self) -> bool:
        """Agents were due and none made a request (no key, a refused key): nothing was reviewed.

        A refold has no agents: its coverage is the earlier review's, and stays true.
        """
        return bool(self.agents) and self.usage.requests == 0

    @staticmethod
    def reasons_of(decision: Decision) -> tuple[ReasonReport, ...]:
        return tuple(
            ReasonReport(verdict=r.verdict, source=r.source, name=r.name, text=r.text)
            for r in decision.reasons
        )


def json_safe(value: object, *, limit: int = _RAW_LIMIT, depth: int = 0) -> Any:
    """A JSON-serialisable copy of untrusted input: bounded strings and depth, no NaN."""
    if depth > 20:
        return "…(nested too deep)"
    match value:
        case None | bool() | int():
            return value
        case float():
            return value if math.isfinite(value) else str(value)
        case str():
            return (
                value if len(value) <= limit else value[:limit] + f"…(+{len(value) - limit} chars)"
            )
        case bytes() | bytearray():
            return json_safe(bytes(value).decode("utf-8", "replace"), limit=limit, depth=depth)
        case dict():
            return {
                str(k)[:200]: json_safe(v, limit=limit, depth=depth + 1)
                for k, v in list(value.items())[:200]
            }
        case list() | tuple():
            return [json_safe(v, limit=limit, depth=depth + 1) for v in value[:200]]
    try:
        return json_safe(repr(value), limit=limit, depth=depth)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not break the report
        return f"<{type(value).__name__}>"


def report_schema() -> dict[str, Any]:
    return Report.model_json_schema(mode="serialization")


def schema_json() -> str:
    return json.dumps(report_schema(), indent=2, sort_keys=True)
