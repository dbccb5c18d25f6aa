"""The review configuration: `.reviewbot.toml` as a validated pydantic model.

Read from the base branch (never the PR head) so a PR cannot change the policy
that judges it. Every section has defaults; an empty file is a valid config.
"""

from __future__ import annotations

from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from reviewbot.nodes.model import Priority, Status
from reviewbot.verdict.policy import (
    DEFAULT_MIN_CONFIDENCE,
    Effect,
    NodePolicy,
    NodeRule,
    default_policy,
)

DEFAULT_MODEL = "claude-sonnet-4-5"
GENERAL_REVIEWER = "review"
RESERVED_AXES = frozenset({"ci", "verifier"})

# Excluded from the review budget by default: listed in coverage, never packed.
DEFAULT_EXCLUDE = (
    "**/package-lock.json",
    "**/yarn.lock",
    "**/pnpm-lock.yaml",
    "**/poetry.lock",
    "**/uv.lock",
    "**/Cargo.lock",
    "**/Gemfile.lock",
    "**/composer.lock",
    "**/go.sum",
    "**/Pipfile.lock",
    "**/*.min.js",
    "**/*.min.css",
    "**/*.map",
    "**/*.pb.go",
    "**/*_pb2.py",
    "**/*.generated.*",
    "**/generated/**",
    "**/vendor/**",
    "**/third_party/**",
    "**/node_modules/**",
    "**/dist/**",
)

Name = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BudgetConfig(_Section):
    max_turns: int = Field(default=30, ge=1, le=500)
    max_input_tokens: int = Field(default=2_000_000, ge=1_000)
    max_output_tokens: int = Field(default=40_000, ge=256)
    max_cost_usd: float = Field(default=5.0, gt=0)
    timeout_seconds: float = Field(default=900.0, gt=0)
    context_tokens: int = Field(
        default=60_000, ge=1_000, description="Token budget for the packed PR diff."
    )
    response_max_tokens: int = Field(default=8_192, ge=256, le=64_000)


class ReviewerConfig(_Section):
    name: Name
    brief: str = Field(default="", description="What this reviewer looks for, added to its prompt.")
    model: str | None = None
    gated: bool = True


class VerifierConfig(_Section):
    enabled: bool = True
    priorities: frozenset[Priority] = frozenset({Priority.P0, Priority.P1})
    model: str | None = None


class RuleConfig(_Section):
    status: Status
    priorities: frozenset[Priority]
    effect: Effect
    min_confidence: float = Field(default=0.0, ge=0, le=1)


class PolicyConfig(_Section):
    min_confidence: float = Field(default=DEFAULT_MIN_CONFIDENCE, ge=0, le=1)
    rules: tuple[RuleConfig, ...] | None = Field(
        default=None, description="Replaces the default node rules when given."
    )

    def node_policy(self) -> NodePolicy:
        if self.rules is None:
            return default_policy(self.min_confidence)
        return NodePolicy(rules=tuple(NodeRule(**rule.model_dump()) for rule in self.rules))


class PathsConfig(_Section):
    include: tuple[str, ...] = ("**",)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE


class CIConfig(_Section):
    gated: bool = False
    gated_checks: tuple[str, ...] = Field(
        default=(),
        description="When non-empty, only these check names count, and the axis is gated.",
    )
    ignore: tuple[str, ...] = ()


class PublishConfig(_Section):
    approve: bool = Field(default=True, description="Ship → APPROVE (else COMMENT).")
    max_inline_comments: int = Field(default=30, ge=0, le=50)
    review_drafts: bool = False


class ReviewConfig(_Section):
    model: str = DEFAULT_MODEL
    budget: BudgetConfig = BudgetConfig()
    reviewers: tuple[ReviewerConfig, ...] = Field(
        default=(), description="Focused reviewers added to the general `review` reviewer."
    )
    verifier: VerifierConfig = VerifierConfig()
    policy: PolicyConfig = PolicyConfig()
    paths: PathsConfig = PathsConfig()
    ci: CIConfig = CIConfig()
    publish: PublishConfig = PublishConfig()

    @model_validator(mode="after")
    def _unique_reviewers(self) -> Self:
        names = [r.name for r in self.reviewers]
        taken = RESERVED_AXES | {GENERAL_REVIEWER}
        clash = sorted({n for n in names if n in taken or names.count(n) > 1})
        if clash:
            raise ValueError(f"reviewer names must be unique and not {sorted(taken)}: {clash}")
        return self

    @property
    def all_reviewers(self) -> tuple[ReviewerConfig, ...]:
        general = ReviewerConfig(name=GENERAL_REVIEWER, model=None, gated=True)
        return (general, *self.reviewers)
