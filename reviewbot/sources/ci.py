"""The CI axis: the head commit's check runs and commit statuses folded into one AxisResult.

Pure: it receives `CheckState` values (built by the GitHub adapter) and the `[ci]`
config, and never fetches anything. Absence of evidence never passes a gate: a
pending, missing or empty CI is `not_run`, never `passed`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase

from reviewbot.config.file import CIConfig
from reviewbot.verdict.axes import CI_AXIS, AxisResult, Outcome

# The check run (or commit status) reviewbot publishes: its verdict never counts as CI.
CHECK_NAME = "reviewbot"


class CheckKind(StrEnum):
    CHECK_RUN = "check_run"
    STATUS = "status"  # a commit status (the older API some CI services still use)


class CheckStatus(StrEnum):
    """A check run's conclusion (or its status while it runs), or a commit status state."""

    SUCCESS = "success"
    NEUTRAL = "neutral"
    SKIPPED = "skipped"
    FAILURE = "failure"
    ERROR = "error"  # commit statuses only
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    ACTION_REQUIRED = "action_required"
    STARTUP_FAILURE = "startup_failure"
    STALE = "stale"  # GitHub gave up on an incomplete check
    PENDING = "pending"
    QUEUED = "queued"
    IN_PROGRESS = "in_progress"

    @property
    def outcome(self) -> Outcome:
        if self in _FAILED:
            return Outcome.FAILED
        if self in _PASSED:
            return Outcome.PASSED
        return Outcome.NOT_RUN


_FAILED = frozenset(
    {
        CheckStatus.FAILURE,
        CheckStatus.ERROR,
        CheckStatus.CANCELLED,
        CheckStatus.TIMED_OUT,
        CheckStatus.ACTION_REQUIRED,
        CheckStatus.STARTUP_FAILURE,
    }
)
_PASSED = frozenset({CheckStatus.SUCCESS, CheckStatus.NEUTRAL, CheckStatus.SKIPPED})


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckState:
    name: str
    status: CheckStatus
    kind: CheckKind = CheckKind.CHECK_RUN
    url: str | None = None


def ci_axis(
    checks: Sequence[CheckState], config: CIConfig, *, run_id: str | None = None
) -> AxisResult:
    """Fold the checks into the `ci` axis.

    Never counted: reviewbot's own check run (`CHECK_NAME`), and the jobs of this workflow
    run (`run_id`, GITHUB_RUN_ID), reviewbot's among them, which are in progress while it
    runs. Check runs are named after a job's `name:`, so those are matched by their run's
    URL, not by name. Names in `config.ignore` and `config.gated_checks` are shell-style
    patterns.
    """
    gated = config.gated or bool(config.gated_checks)
    own_run = f"/actions/runs/{run_id}/" if run_id else None
    counted = [
        c
        for c in checks
        if not _matches(c.name, (CHECK_NAME, *config.ignore))
        and (own_run is None or own_run not in (c.url or ""))
    ]
    missing: list[str] = []
    if config.gated_checks:
        counted = [c for c in counted if _matches(c.name, config.gated_checks)]
        missing = [
            p for p in config.gated_checks if not any(fnmatchcase(c.name, p) for c in counted)
        ]
    return AxisResult(
        name=CI_AXIS,
        gated=gated,
        outcome=_outcome(counted, missing),
        detail=_detail(counted, missing),
    )


def ci_not_run(config: CIConfig, why: str) -> AxisResult:
    """The CI axis when the checks could not be read (a token without `checks: read`)."""
    gated = config.gated or bool(config.gated_checks)
    return AxisResult(name=CI_AXIS, gated=gated, outcome=Outcome.NOT_RUN, detail=why)


def _matches(name: str, patterns: Collection[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def _outcome(counted: Sequence[CheckState], missing: Sequence[str]) -> Outcome:
    outcomes = {c.status.outcome for c in counted}
    if Outcome.FAILED in outcomes:
        return Outcome.FAILED
    if Outcome.NOT_RUN in outcomes or missing or not counted:
        return Outcome.NOT_RUN
    return Outcome.PASSED


def _names(counted: Sequence[CheckState], outcome: Outcome) -> list[str]:
    return sorted({f"{c.name} ({c.status.value})" for c in counted if c.status.outcome is outcome})


def _detail(counted: Sequence[CheckState], missing: Sequence[str]) -> str:
    failed, pending = _names(counted, Outcome.FAILED), _names(counted, Outcome.NOT_RUN)
    parts = []
    if failed:
        parts.append("failing: " + ", ".join(failed))
    if pending:
        parts.append("not finished: " + ", ".join(pending))
    if missing:
        parts.append("required but absent: " + ", ".join(missing))
    if parts:
        return "; ".join(parts)
    if not counted:
        return "no CI checks reported for the head commit"
    return f"all {len(counted)} checks passed"
