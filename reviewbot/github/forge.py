"""GitHub as a `ForgeReader`: one pull request's comments, snapshot and CI, through the REST reads.

The reads themselves are github/reader.py's; this binds them to one PR (its `PullRequestInfo`,
read first, when the flow decides whether to review at all) so the forge-neutral
`review.pull.review_on_forge` can read it like any forge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reviewbot.config.file import ReviewConfig
from reviewbot.errors import AuthError
from reviewbot.github.reader import (
    BaseContents,
    PullRequestInfo,
    fetch_ci_checks,
    fetch_comment_records,
    fetch_snapshot,
)
from reviewbot.github.rest import GitHubClient
from reviewbot.sources.ci import ci_axis, ci_not_run
from reviewbot.sources.comments import CommentRecord
from reviewbot.sources.guidelines import read_guidelines
from reviewbot.sources.snapshot import PRComment, PRSnapshot
from reviewbot.verdict.axes import AxisResult


@dataclass(frozen=True, slots=True, kw_only=True)
class GitHubReader:
    """One pull request on GitHub, read; `run_id` is this Actions run (its own checks never count)."""

    client: GitHubClient
    info: PullRequestInfo
    run_id: str | None = None

    def comments(self) -> Sequence[CommentRecord]:
        return fetch_comment_records(self.client, self.info.ref.full_name, self.info.ref.number)

    def snapshot(
        self, *, checkout: Path, config: ReviewConfig, discussion: Sequence[PRComment]
    ) -> PRSnapshot:
        snapshot = fetch_snapshot(
            self.client, self.info, checkout=checkout, config=config, comments=tuple(discussion)
        )
        # Read at the base SHA, as the config is: the PR cannot write its own instructions.
        base = BaseContents(
            client=self.client, repo=self.info.ref.full_name, sha=self.info.base_sha
        )
        guidelines = read_guidelines(base, config.review, snapshot.diff)
        return replace(snapshot, guidelines=guidelines)

    def ci(self, config: ReviewConfig) -> AxisResult:
        """The CI axis; a token that may not read checks makes it not_run, never passed."""
        try:
            checks = fetch_ci_checks(self.client, self.info.ref.full_name, self.info.head_sha)
        except AuthError as exc:
            return ci_not_run(config.ci, str(exc))
        return ci_axis(checks, config.ci, run_id=self.run_id)
