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
class DiffLines:
    """The lines of the PR's current diff an inline comment is shown on (`start_line..line`)."""

    path: str
    line: int
    start_line: int | None = None
    side: str = "RIGHT"


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
    side: str | None = None  # inline comments: RIGHT or LEFT
    state: str | None = None  # reviews only: PENDING, COMMENTED, APPROVED, …
    created_at: str | None = None  # inline comments: when it was written (ISO 8601)

    @property
    def location(self) -> str:
        return location(self.where, self.id)

    @property
    def shown_at(self) -> DiffLines | None:
        """Where an inline comment is shown on the current head's diff. None when it is not
        inline, or outdated: its lines changed or left the diff since (the forge lists no line)."""
        if self.where is not Where.INLINE or self.path is None or self.line is None:
            return None
        return DiffLines(
            path=self.path, line=self.line, start_line=self.start_line, side=self.side or "RIGHT"
        )
