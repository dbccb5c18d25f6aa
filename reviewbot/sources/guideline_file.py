"""What the repository taught a review: each guideline file the agents were given, and how much.

The JSON report lists them (`Report.guidelines`) and the summary names them with their
size, so a reader can tell which of the base branch's instructions shaped the review
and whether the guidelines budget cut any of them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class GuidelineFile(BaseModel):
    """One guideline file of the base branch, as the review used it (or why it did not)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(description="The file's path on the base branch.")
    scope: str = Field(
        default="",
        description="The directory it applies to, e.g. `services/api/` (empty: the whole repository).",
    )
    size: int = Field(description="The file's size in bytes.")
    tokens: int = Field(default=0, description="Estimated tokens of it the agents were shown.")
    use: Literal["used", "cut", "left_out"] = Field(
        description="`cut`: shown up to the guidelines budget; `left_out`: not shown (see `note`)."
    )
    note: str | None = None
