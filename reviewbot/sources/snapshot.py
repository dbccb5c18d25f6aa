"""The PR snapshot: everything a review reads about one pull request, typed.

Built by a source (GitHub or a local repository); consumed by the agents and by
publishing. PR text (title, body, comments) is untrusted input and is only ever
shown to the model as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from reviewbot.config.file import ReviewConfig
from reviewbot.config.learnings import Learnings
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.guidelines import Guidelines


class Origin(StrEnum):
    GITHUB = "github"
    LOCAL = "local"


@dataclass(frozen=True, slots=True, kw_only=True)
class PRComment:
    """A discussion comment on the PR (issue comment or review comment)."""

    id: int
    author: str
    body: str
    path: str | None = None  # set for inline review comments
    line: int | None = None
    in_reply_to: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PRCommit:
    """One commit of the PR (GitHub lists at most 250)."""

    sha: str
    message: str
    author: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PRSnapshot:
    origin: Origin
    url: str | None  # the PR's html URL (None for a local review)
    repo: str | None  # "owner/name"
    number: int | None
    title: str
    body: str
    author: str
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    draft: bool = False
    fork: bool = False
    diff: DiffIndex
    checkout: Path  # read-only working tree of the PR head, for the read tools
    comments: tuple[PRComment, ...] = ()
    config: ReviewConfig
    commits: tuple[PRCommit, ...] = ()  # oldest first
    # The base branch's instructions to reviewers that apply to this change, like `config`.
    guidelines: Guidelines = field(default_factory=Guidelines)
    # The base branch's `.reviewbot/learnings.toml`, like `config`.
    learnings: Learnings = field(default_factory=Learnings)
