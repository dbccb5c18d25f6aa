"""Reading what reviewbot remembers of a pull request: once per run, before the review.

`read_memory` turns the PR's comments (as a forge reader gives them) into the prior state
the scope, the review and the publisher build on, and keeps the comments for the model's
discussion context, so a run lists them once. The composition root calls it before the
review and hands the same `Memory` to the publisher.

Must not: call a forge (the comments are given), or decide anything about this run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.memory.prior import PriorState, Trust, read_prior
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.sources.snapshot import PRComment


@dataclass(frozen=True, slots=True, kw_only=True)
class Memory:
    """What earlier runs and people left on the PR, and the comments it was read from."""

    prior: PriorState
    comments: tuple[CommentRecord, ...] = ()

    def discussion(self) -> tuple[PRComment, ...]:
        """The PR's discussion and inline comments, for the model's context."""
        issue = [r for r in self.comments if r.where is Where.ISSUE]
        inline = [r for r in self.comments if r.where is Where.INLINE]
        return tuple(
            PRComment(
                id=r.id,
                author=r.author or "ghost",
                body=r.body,
                path=r.path,
                line=r.line,
                in_reply_to=r.in_reply_to,
            )
            for r in (*issue, *inline)
        )


def read_memory(comments: Iterable[CommentRecord], trust: Trust) -> Memory:
    """The prior state of the PR whose comments these are; never raises on hostile content."""
    records = tuple(comments)
    return Memory(prior=read_prior(records, trust), comments=records)
