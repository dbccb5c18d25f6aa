"""The review node: what a reviewer found, as the one pydantic model every layer shares.

`Finding` is what the agent writes (the `add_review_node` input schema is generated
from it, so its `Field` descriptions are prompt text). `ReviewNode` is a finding plus
the fields only the harness sets. Both are frozen and forbid extra fields, so a
node is exactly what passed the read boundary and nothing else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

MAX_TITLE = 200
MAX_BODY = 20_000
MAX_QUOTE = 20_000
MAX_PATH = 1_000
MAX_LINE = 10_000_000


class Kind(StrEnum):
    BUG = "bug"
    SUGGESTION = "suggestion"
    RECOMMENDATION = "recommendation"
    QUESTION = "question"
    TICKET = "ticket"


class Priority(StrEnum):
    """P0 blocks the release … P3 is nice to have. Lower rank is more severe."""

    P0 = "P0"
    P1 = "P1"
    P2 = "P2"
    P3 = "P3"

    @property
    def rank(self) -> int:
        return int(self.value[1])


class Status(StrEnum):
    OPEN = "open"
    CONSENSUS_READY = "consensusReady"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"

    @property
    def label(self) -> str:
        """The word people read (`consensusReady` is the value in markers and reports)."""
        return "confirmed" if self is Status.CONSENSUS_READY else self.value


# Numbers and strings are strict (no "0.9" for 0.9, no True for 1); enums take their exact values.
_FROZEN = ConfigDict(frozen=True, extra="forbid")

Title = Annotated[
    str,
    StringConstraints(
        strict=True,
        strip_whitespace=True,
        min_length=1,
        max_length=MAX_TITLE,
        pattern=r"^[^\n\r]*$",
    ),
]


def _relative_path(path: str) -> str:
    """Refuse paths that could name something outside the repository."""
    if path.startswith("/") or "\\" in path or any(c in path for c in "\x00\n\r"):
        raise ValueError("must be a relative path with forward slashes")
    if ".." in path.split("/"):
        raise ValueError("must not contain '..'")
    return path


RelPath = Annotated[
    str,
    StringConstraints(strict=True, min_length=1, max_length=MAX_PATH),
    AfterValidator(_relative_path),
]


Side = Literal["RIGHT", "LEFT"]


class Anchor(BaseModel):
    """Lines of one file: in the PR head (RIGHT, the default) or deleted by the PR (LEFT).

    LEFT lines are numbered as in the base version of the file (the diff's left side);
    GitHub comments them with `side: LEFT`. Markers written before `side` existed have
    none, and read back as RIGHT, which is what they meant.
    """

    model_config = _FROZEN

    path: RelPath = Field(
        description="File path relative to the repository root, as shown in the diff."
    )
    start_line: int = Field(
        strict=True,
        ge=1,
        le=MAX_LINE,
        description="First line (1-based) in the PR head version of the file.",
    )
    end_line: int = Field(
        strict=True,
        ge=1,
        le=MAX_LINE,
        description="Last line (inclusive); equal to start_line for one line.",
    )
    quote: str = Field(
        strict=True,
        max_length=MAX_QUOTE,
        description=(
            "The exact text of lines start_line..end_line as you read them (copy them, without line "
            "numbers). The harness checks it against the file and fixes line numbers that are off."
        ),
    )
    side: Side = Field(
        default="RIGHT",
        description=(
            "LEFT for lines the PR deletes (`-` in the patch; use the base numbers shown beside "
            "the `-`); default RIGHT, the PR head."
        ),
    )

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_line < self.start_line:
            raise ValueError(f"end_line ({self.end_line}) is before start_line ({self.start_line})")
        return self


class Finding(BaseModel):
    """The part of a review node the agent writes: the `add_review_node` input."""

    model_config = _FROZEN

    kind: Kind = Field(description="bug | suggestion | recommendation | question | ticket.")
    priority: Priority = Field(
        description="P0 = must not ship (breaks, data loss, security hole); P1 = should fix before merge; "
        "P2 = worth fixing; P3 = nice to have."
    )
    confidence: float = Field(
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        strict=True,
        description="How sure you are that this is real and correctly described, from 0 to 1.",
    )
    title: Title = Field(description="One line that states the problem.")
    body: str = Field(
        default="",
        strict=True,
        max_length=MAX_BODY,
        description="Markdown: why it is a problem, the evidence you read, and how to fix it.",
    )
    anchor: Anchor | None = Field(
        default=None,
        description="Where in the PR head the problem is. Omit only for notes about the whole PR.",
    )
    suggestion: str | None = Field(
        default=None,
        strict=True,
        max_length=MAX_QUOTE,
        description="Replacement text for exactly the anchored lines (a committable fix). Needs an anchor.",
    )

    @model_validator(mode="after")
    def _suggestion_needs_anchor(self) -> Self:
        if self.suggestion is not None and self.anchor is None:
            raise ValueError("a suggestion replaces the anchored lines, so it needs an anchor")
        if self.suggestion is not None and self.anchor is not None and self.anchor.side == "LEFT":
            # GitHub cannot apply a suggestion to deleted lines: there is nothing to replace.
            raise ValueError(
                "a suggestion replaces lines of the PR head, so it cannot be made on deleted "
                "(LEFT) lines; put the fix in the body"
            )
        return self


class Dispute(BaseModel):
    """A peer's reasoned disagreement with a node; kept and shown, never silently dropped."""

    model_config = _FROZEN

    by: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100)]
    reason: Annotated[str, StringConstraints(strict=True, max_length=MAX_BODY)]


class ReviewNode(Finding):
    """A finding admitted by the read boundary, with the fields only the harness sets."""

    id: Annotated[
        str,
        StringConstraints(strict=True, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._:-]+$"),
    ]
    author: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100)]
    also_raised_by: tuple[
        Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100)], ...
    ] = Field(
        default=(),
        description=(
            "Other agents that raised the same finding (same fingerprint) after the author; "
            "the node counts for each raiser's axis."
        ),
    )
    status: Status = Status.OPEN
    confirmed_by: tuple[
        Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100)], ...
    ] = ()
    disputes: tuple[Dispute, ...] = ()
    fingerprint: Annotated[str, StringConstraints(strict=True, pattern=r"^[0-9a-f]{16}$")]
    commit_sha: (
        Annotated[str, StringConstraints(strict=True, pattern=r"^[0-9a-f]{7,64}$")] | None
    ) = None
    notes: tuple[Annotated[str, StringConstraints(strict=True, max_length=2_000)], ...] = Field(
        default=(), description="Harness remarks, e.g. that an anchor was re-located to its quote."
    )

    @property
    def raisers(self) -> tuple[str, ...]:
        """Every agent that raised this finding, the author first: whose axes it counts for."""
        return (self.author, *self.also_raised_by)
