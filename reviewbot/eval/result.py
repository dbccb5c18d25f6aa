"""The result of `reviewbot eval` (the `--out` JSON) and of each PR (what the cache stores).

Pydantic models, because both cross a boundary: the JSON file is read by people's
scripts, and a cached PR is read back from disk on `--resume`. Bump
`SCHEMA_VERSION` on any change that could break a reader (it is part of the cache key).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.eval.bench import Severity
from reviewbot.eval.profiles import Category, Profile
from reviewbot.eval.score import Counts, Score, score_pr
from reviewbot.nodes.model import Kind, Priority
from reviewbot.results.run import Usage

SCHEMA_VERSION: Literal[2] = 2
METHOD = (
    "TP = golden comments matched by at least one finding (duplicates matching the same "
    "golden comment count once and are not false positives); FP = findings matched to no "
    "golden comment; FN = golden comments matched by none. Every finding the review would "
    "post counts once, inline or in the review body (the benchmark splits summary comments "
    "into their issues). Under the profile, only golden comments of its categories (and "
    "uncategorised ones) are TP or FN; a finding matched only to another category's golden "
    "comment is neither; an FP counts under every profile. precision = TP/(TP+FP), "
    "recall = TP/(TP+FN), F1 = 2PR/(P+R), Fbeta = (1+b^2)PR/(b^2 P+R); 0 when a denominator "
    "is 0; overall figures sum the counts over PRs. By severity: TP and FN take the golden "
    "comment's severity, FP the finding's priority (P0 Critical, P1 High, P2 Medium, P3 Low). "
    "By category: TP and FN take the golden comment's category; FP have none."
)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CountsReport(_Model):
    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    precision: float
    recall: float
    f1: float
    fbeta: float = Field(description="F-beta at the run's beta.")

    @classmethod
    def of(cls, counts: Counts, beta: float) -> CountsReport:
        return cls(
            tp=counts.tp,
            fp=counts.fp,
            fn=counts.fn,
            precision=counts.precision,
            recall=counts.recall,
            f1=counts.f1,
            fbeta=counts.fbeta(beta),
        )


class ScoreReport(_Model):
    total: CountsReport
    by_severity: dict[Severity, CountsReport]
    by_category: dict[str, CountsReport] = Field(
        default_factory=dict,
        description="The profile's categories present in the golden comments (FP: none).",
    )
    golden_outside: int = Field(
        default=0, ge=0, description="Golden comments of categories the profile leaves out."
    )
    findings_outside: int = Field(
        default=0, ge=0, description="Findings matched only to those: neither TP nor FP."
    )

    @classmethod
    def of(cls, score: Score, beta: float) -> ScoreReport:
        return cls(
            total=CountsReport.of(score.total, beta),
            by_severity={s: CountsReport.of(score.by_severity[s], beta) for s in Severity},
            by_category={c: CountsReport.of(n, beta) for c, n in score.by_category.items()},
            golden_outside=score.golden_outside,
            findings_outside=score.findings_outside,
        )


class FindingResult(_Model):
    """One reviewbot finding and the judge's decision about it."""

    id: str
    kind: Kind
    priority: Priority
    title: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    golden: int | None = Field(
        description="0-based index of the golden comment the judge matched, or null."
    )
    reason: str = Field(description="The judge's reason.")
    placement: Literal["inline", "body"] = Field(
        description="Where the review would post it: an inline comment or the review body."
    )


class GoldenResult(_Model):
    comment: str
    severity: Severity
    category: Category | None = None
    matched_by: tuple[str, ...] = Field(description="Ids of the findings that matched it.")


class PRResult(_Model):
    """A scored PR: what the cache stores and the JSON lists."""

    url: str
    title: str
    head_sha: str
    model: str
    judge_model: str
    tool_version: str
    findings: tuple[FindingResult, ...]
    golden: tuple[GoldenResult, ...]
    score: ScoreReport
    reviewers: Usage = Field(description="Tokens and cost of reviewbot's agents on this PR.")
    judge: Usage = Field(description="Tokens and cost of the judge on this PR.")
    notes: tuple[str, ...] = Field(
        default=(), description="E.g. a reviewer that stopped on a budget."
    )

    def scored(self, profile: Profile) -> Score:
        """This PR's score under `profile`, from the judge's matches (the cache keeps those)."""
        return score_pr(
            [g.severity for g in self.golden],
            [f.priority for f in self.findings],
            [f.golden for f in self.findings],
            categories=[g.category for g in self.golden],
            profile=profile,
        )

    def rescored(self, profile: Profile, beta: float) -> PRResult:
        return self.model_copy(update={"score": ScoreReport.of(self.scored(profile), beta)})


class PRFailure(_Model):
    """A PR that could not be scored; it counts in no figure."""

    url: str
    error: str
    exit_code: int


class UsageReport(_Model):
    reviewers: Usage
    judge: Usage


class EvalResult(_Model):
    schema_version: Literal[2] = SCHEMA_VERSION
    tool_version: str
    benchmark: str
    model: str
    judge_model: str
    profile: Profile
    categories: tuple[Category, ...] = Field(description="The categories the profile counts.")
    beta: float = Field(gt=0)
    method: str = METHOD
    score: ScoreReport = Field(description="Over every scored PR (counts summed).")
    prs: tuple[PRResult, ...]
    failed: tuple[PRFailure, ...] = ()
    problems: tuple[str, ...] = Field(
        default=(), description="Benchmark entries left out, one line each."
    )
    cached: tuple[str, ...] = Field(default=(), description="URLs of PRs reused from the cache.")
    usage: UsageReport
