"""The step's gate: whether a finished review ends with a failing exit code, and which.

A refused key, an unknown model, an API that failed: the Hold is printed and published,
and then the step fails with that error's own code (the first stopped agent's: the others
met the same cause), because a failing API is not a verdict. Otherwise `--fail-on` decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewbot.errors import ExitCode

if TYPE_CHECKING:  # the CLI imports this module for `--help`: no pydantic at import time
    from reviewbot.results.report import Report

FAIL_NEVER = "none"  # `--fail-on none`: no verdict fails the step
FAIL_ON_CHOICES = (FAIL_NEVER, "hold", "block")


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    message: str
    code: int


def gate(report: Report, fail_on: str) -> Failure | None:
    """How the run fails, or None: it exits 0 (`fail_on` is one of `FAIL_ON_CHOICES`)."""
    failed = next((a for a in report.agents if a.exit_code is not None), None)
    if failed is not None and failed.exit_code is not None:
        message = failed.error or f"the Messages API stopped the {failed.name} agent"
        return Failure(message=message, code=failed.exit_code)
    from reviewbot.verdict.lattice import Verdict

    verdict = report.verdict
    if fail_on != FAIL_NEVER and verdict >= Verdict.parse(fail_on):
        message = f"the verdict is {verdict.label} and --fail-on is {fail_on}"
        return Failure(message=message, code=ExitCode.FAIL_ON)
    return None
