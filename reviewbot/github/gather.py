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
from reviewbot.github.forge import GitHubReader
from reviewbot.memory.read import Memory
from reviewbot.scope.decision import wanted_since
from reviewbot.sources.git_repo import pr_checkout
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.verdict.axes import AxisResult

_A = TypeVar("_A")
_B = TypeVar("_B")


@contextmanager
def gathered(
    reader: GitHubReader, config: ReviewConfig, settings: Settings, memory: Memory
) -> Iterator[tuple[PRSnapshot, AxisResult]]:
    """The PR's snapshot on its checkout, and the CI axis; the checkout is removed afterwards.

    The clone and GitHub's reads (files, commits, CI) are independent, so they run at the
    same time; the reads stay one after another, as GitHub's rate-limit hygiene asks.
    """
    info = reader.info
    with ExitStack() as stack:

        def clone() -> Path:
            return stack.enter_context(
                pr_checkout(
                    info.clone_url,
                    number=info.ref.number,
                    head_sha=info.head_sha,
                    token=settings.github_token,
                    workspace=settings.workspace,
                    # The last reviewed head, in the clone's history: an incremental review
                    # starts from it, and every review maps earlier findings' lines from it.
                    since=wanted_since(memory.prior, info.head_sha),
                    commits=info.commits,
                )
            )

        def read() -> tuple[PRSnapshot, AxisResult]:
            # The memory's comments double as the model's discussion context. The checkout
            # is set once the clone is there.
            discussion = memory.discussion()
            snapshot = reader.snapshot(checkout=Path(), config=config, discussion=discussion)
            return snapshot, reader.ci(config)

        path, (snapshot, ci) = _beside(clone, read)
        yield replace(snapshot, checkout=path), ci


def _beside(first: Callable[[], _A], second: Callable[[], _B]) -> tuple[_A, _B]:
    """Both results, the two run at the same time; the first error (in this order) is raised."""
    results = run_all([first, second], limit=2)
    return cast(_A, results[0]), cast(_B, results[1])
