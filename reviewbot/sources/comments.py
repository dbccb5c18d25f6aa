"""A pull request's comments as a forge gives them: where each lives, who wrote it, its text.

The forge readers (github/reader.py) produce `CommentRecord`s; reviewbot's memory of the PR
(memory/) and the model's discussion context are read from them. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Where(StrEnum):
    """Where a comment lives on the PR."""

    INLINE = "inline"  # a review comment on a line
    REVIEW = "review"  # the body of a review
    ISSUE = "issue"  # a discussion (issue) comment


def location(where: Where, comment_id: int) -> str:
    """Where a comment is, as a bound seal names it (`inline:123`)."""
    return f"{where.value}:{comment_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentRecord:
    """One comment read from the PR, reduced to what reading a node's history needs."""

    id: int
    where: Where
    author: str | None  # None for deleted ("ghost") accounts
    body: str
    in_reply_to: int | None = None
    path: str | None = None
    line: int | None = None
    start_line: int | None = None
    state: str | None = None  # reviews only: PENDING, COMMENTED, APPROVED, …
    created_at: str | None = None  # inline comments: when it was written (ISO 8601)

    @property
    def location(self) -> str:
        return location(self.where, self.id)
