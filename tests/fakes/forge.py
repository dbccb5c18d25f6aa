"""A second forge, in memory: one test double implementing `ForgeReader` and `ForgePublisher`.

It shows the seam a GitLab (or any forge) would fill: it holds a pull request as plain
values — a snapshot of a real git repository, the comments, the head's checks — and
records what it is asked to publish. `review.pull.review_on_forge` runs over it exactly as
over GitHub (tests/review/test_second_forge.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from reviewbot.config.file import ReviewConfig
from reviewbot.memory.prior import Trust
from reviewbot.memory.read import Memory
from reviewbot.results.report import Published, Report
from reviewbot.sources.ci import CheckState, ci_axis
from reviewbot.sources.comments import CommentRecord
from reviewbot.sources.snapshot import PRComment, PRSnapshot
from reviewbot.verdict.axes import AxisResult


@dataclass
class MemoryForge:
    """One pull request on an in-memory forge; `posted` is every publish it was asked for."""

    pull: (
        PRSnapshot  # what the forge knows of the PR; a review's checkout and config replace its own
    )
    comments_on_pr: list[CommentRecord] = field(default_factory=list)
    checks: list[CheckState] = field(default_factory=list)
    trust: Trust = field(default_factory=lambda: Trust(bot_login="reviewbot", sealer=None))
    posted: list[tuple[Report, PRSnapshot, Memory]] = field(default_factory=list)

    # -- ForgeReader

    def comments(self) -> Sequence[CommentRecord]:
        return tuple(self.comments_on_pr)

    def snapshot(
        self, *, checkout: Path, config: ReviewConfig, discussion: Sequence[PRComment]
    ) -> PRSnapshot:
        return replace(self.pull, checkout=checkout, config=config, comments=tuple(discussion))

    def ci(self, config: ReviewConfig) -> AxisResult:
        return ci_axis(self.checks, config.ci)

    # -- ForgePublisher

    def publish(self, report: Report, snapshot: PRSnapshot, memory: Memory) -> Published:
        self.posted.append((report, snapshot, memory))
        return Published(review_id=len(self.posted), review_url=None, event="COMMENT")
