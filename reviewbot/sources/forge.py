"""The read side of a forge, as a review needs it: one pull request's comments, snapshot, CI.

`ForgeReader` is the seam a second forge implements; github/reader.py's `GitHubReader` is
the first implementation. What the reader returns is forge-neutral: `CommentRecord`s
(memory reads them), a `PRSnapshot` (the review reads it), an `AxisResult` (the CI axis).
Who may ask for a review, and the clone of the PR head, stay with the forge's flow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from reviewbot.config.file import ReviewConfig
from reviewbot.sources.comments import CommentRecord
from reviewbot.sources.snapshot import PRComment, PRSnapshot
from reviewbot.verdict.axes import AxisResult

# An axis from outside the agents, judged for the run's config: the CI checks today (a
# forge reader's `ci`), any other gate tomorrow. A review folds every one it is given.
AxisSource = Callable[[ReviewConfig], AxisResult]


class ForgeReader(Protocol):
    """One pull request on a forge, read."""

    def comments(self) -> Sequence[CommentRecord]:
        """Every comment on the PR (inline, review bodies, discussion), in the forge's order."""
        ...

    def snapshot(
        self, *, checkout: Path, config: ReviewConfig, discussion: Sequence[PRComment]
    ) -> PRSnapshot:
        """The PR's diff, metadata and `discussion`, with its head checked out at `checkout`."""
        ...

    def ci(self, config: ReviewConfig) -> AxisResult:
        """The head commit's checks folded into the CI axis; `not_run` when they cannot be read."""
        ...
