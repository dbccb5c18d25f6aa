"""Axis results: one judged dimension of a review (a reviewer agent, CI)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

# The axes reviewbot itself owns (a reviewer may not take their names):
CI_AXIS = "ci"  # the PR head's checks and commit statuses
VERIFIER_AXIS = "verifier"  # the verifier agent's, only when it stopped before judging


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not_run"  # error, timeout, missing credentials, pending, skipped, no data
    # Ran, but did not see all of the PR (a changed file no reviewer saw): not a pass.
    PARTIAL = "partial"


@dataclass(frozen=True, slots=True, kw_only=True)
class AxisResult:
    name: str
    gated: bool
    outcome: Outcome
    detail: str = ""


def with_coverage(axis: AxisResult, gap: str | None) -> AxisResult:
    """A reviewer axis that passed without seeing the whole PR did not fully run: `partial`.

    Coverage is the reviewers' (never the `ci` axis'): `gap` says what they did not see
    (None: they saw every changed file). A failed or not-run axis already says more.
    """
    if gap is None or axis.name == CI_AXIS or axis.outcome is not Outcome.PASSED:
        return axis
    detail = f"{axis.detail}; {gap}" if axis.detail else gap
    return replace(axis, outcome=Outcome.PARTIAL, detail=detail)
