"""What one review reads before the model: the PR's checkout and snapshot, and its CI axis.

The clone and GitHub's reads are independent, so `gathered` runs them at the same time
(the reads themselves stay one after another, as GitHub's rate-limit hygiene asks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TypeVar, cast

from reviewbot.agent.crew import run_all
from reviewbot.config.file import ReviewConfig
from reviewbot.config.settings import Settings
from reviewbot.errors import AuthError
from reviewbot.github.publisher import GitHubPublisher
from reviewbot.github.reader import PullRequestInfo, fetch_ci_checks, fetch_snapshot
from reviewbot.github.rest import GitHubClient
from reviewbot.memory.prior import PriorState
from reviewbot.scope.decision import wanted_since
from reviewbot.sources.ci import ci_axis, ci_not_run
from reviewbot.sources.git_repo import pr_checkout
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.verdict.axes import AxisResult

_A = TypeVar("_A")
_B = TypeVar("_B")


@contextmanager
def gathered(
    client: GitHubClient,
    info: PullRequestInfo,
    config: ReviewConfig,
    settings: Settings,
    prior: PriorState,
    publisher: GitHubPublisher,
) -> Iterator[tuple[PRSnapshot, AxisResult]]:
    """The PR's snapshot on its checkout, and the CI axis; the checkout is removed afterwards.

    The clone and GitHub's reads (files, commits, CI) are independent, so they run at the
    same time; the reads stay one after another, as GitHub's rate-limit hygiene asks.
    """
    with ExitStack() as stack:

        def clone() -> Path:
            return stack.enter_context(
                pr_checkout(
                    info.clone_url,
                    number=info.ref.number,
                    head_sha=info.head_sha,
                    token=settings.github_token,
                    workspace=settings.workspace,
                    # An incremental review needs the last reviewed head in the clone's history.
                    since=wanted_since(prior, config, info.head_sha),
                    commits=info.commits,
                )
            )

        def read() -> tuple[PRSnapshot, AxisResult]:
            # The publisher's reads of the PR's comments double as the model's discussion
            # context. The checkout is set once the clone is there.
            snapshot = fetch_snapshot(
                client, info, checkout=Path(), config=config, comments=publisher.discussion()
            )
            return snapshot, ci_of(client, info, config, settings)

        path, (snapshot, ci) = _beside(clone, read)
        yield replace(snapshot, checkout=path), ci


def _beside(first: Callable[[], _A], second: Callable[[], _B]) -> tuple[_A, _B]:
    """Both results, the two run at the same time; the first error (in this order) is raised."""
    results = run_all([first, second], limit=2)
    return cast(_A, results[0]), cast(_B, results[1])


def ci_of(
    client: GitHubClient, info: PullRequestInfo, config: ReviewConfig, settings: Settings
) -> AxisResult:
    """The CI axis; a token that may not read checks makes it not_run, never passed."""
    try:
        checks = fetch_ci_checks(client, info.ref.full_name, info.head_sha)
    except AuthError as exc:
        return ci_not_run(config.ci, str(exc))
    return ci_axis(checks, config.ci, run_id=settings.run_id)
