"""GitHub's answers as reviewbot reads them: only the fields it uses, unknown ones ignored.

Shared by the readers (github/reader.py) and the publisher (publish/). Pure.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError


class Shape(BaseModel):
    # GitHub adds response fields over time; a new field must not break reading.
    model_config = ConfigDict(frozen=True, extra="ignore")


class User(Shape):
    login: str


class ReviewComment(Shape):
    id: int
    body: str | None = None
    user: User | None = None
    in_reply_to_id: int | None = None
    path: str | None = None
    line: int | None = None
    start_line: int | None = None
    side: str | None = None  # RIGHT or LEFT; None for an outdated or file-level comment
    created_at: str | None = None  # ISO 8601, as GitHub writes it


class IssueComment(Shape):
    id: int
    body: str | None = None
    user: User | None = None
    html_url: str | None = None
    created_at: str | None = None  # ISO 8601: when a `/dismiss <id>` was written (learnings)


class Review(Shape):
    id: int
    body: str | None = None
    user: User | None = None
    state: str | None = None
    html_url: str | None = None


_S = TypeVar("_S", bound=Shape)


def shapes(items: list[Any], shape: type[_S]) -> list[_S]:
    """Items of a listing as `shape`; an item GitHub sent malformed is skipped, not fatal."""
    out = []
    for item in items:
        try:
            out.append(shape.model_validate(item))
        except ValidationError:
            continue
    return out
