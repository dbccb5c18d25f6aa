"""One pull request on any forge, reviewed: full or incremental from its memory, then the agents.

`review_on_forge` is what every forge's flow calls once it knows the PR may be reviewed and
has read it through its `ForgeReader` (GitHub's flow reads the snapshot and the CI beside
the clone, github/gather.py): it decides the scope from the run's `Memory`, runs the agents
and returns the report the forge's publisher then posts with the same memory. The GitHub
flow (app.py) and the test double of a second forge (tests/fakes/forge.py) both go through it.

Must not: decide who may ask for a review, read the forge, clone, or publish.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from reviewbot.memory.read import Memory
from reviewbot.results.report import Report
from reviewbot.review.pipeline import Agents, review_snapshot
from reviewbot.scope.decision import decide_review
from reviewbot.sources.forge import AxisSource
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class Reviewed:
    """A finished review of a pull request."""

    report: Report
    has_model: bool  # False: no credentials, the reviewer axes did not run


def review_on_forge(
    snapshot: PRSnapshot,
    *,
    memory: Memory,
    agents: AbstractContextManager[Agents],
    axes: Sequence[AxisSource] = (),
) -> Reviewed:
    """Decide full or incremental from `memory`, then run the agents (entered last); `axes`
    are the sources of the axes from outside the agents (the forge's CI)."""
    scope = decide_review(snapshot, memory.prior)
    with agents as live:
        report = review_snapshot(snapshot, agents=live, axes=axes, prior=memory.prior, plan=scope)
    return Reviewed(report=report, has_model=live.client is not None)
