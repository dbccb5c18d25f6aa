"""Axis results: one judged dimension of a review (a reviewer agent, CI)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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
