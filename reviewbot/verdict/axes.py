"""Axis results: one judged dimension of a review (a reviewer agent, CI)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# The axes reviewbot itself owns (a reviewer may not take their names):
CI_AXIS = "ci"  # the PR head's checks and commit statuses
VERIFIER_AXIS = "verifier"  # the verifier agent's axis; the agent has the same name


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not_run"  # error, timeout, missing credentials, pending, skipped, no data


@dataclass(frozen=True, slots=True, kw_only=True)
class AxisResult:
    name: str
    gated: bool
    outcome: Outcome
    detail: str = ""
