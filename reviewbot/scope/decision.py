"""Full or incremental: which review this run does, and why.

Incremental needs everything below; the first rule that fails names the full review's
reason, which the summary and the JSON report show:

1. `[review] incremental` is true in the base branch's config (the default);
2. the PR has a review by reviewbot (its sealed summary marker), of another head;
3. no `/review full` by someone entitled to decide findings (write access, not the PR's
   author, not the bot; the `/confirm` rule) was posted after that review read the PR
   (checked first, so the reason names it; a review of the same head again is full too);
4. the effective config is the one that review ran with (its digest is recorded);
5. that review completed: every reviewer of today's config has a recorded axis that ran;
6. it recorded its nodes (with their lines: every summary with a config digest does) and
   which files it did not see;
7. GitHub listed every changed file;
8. it recorded each file's PR patch (a digest per file, scope/patches.py);
9. its head is in the clone's history and an ancestor of the new head: anything else
   is a rewritten branch (a force-push), and nothing of that review maps onto this one.

Must not: call GitHub or the model (the clone is read through `git_repo`).
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.memory.markers import SummaryMarker, UnseenMarker
from reviewbot.memory.prior import PriorState
from reviewbot.results.report import ReviewKind, ReviewRun
from reviewbot.scope.changes import authored
from reviewbot.scope.digest import config_digest
from reviewbot.scope.full import FullScope
from reviewbot.scope.incremental import IncrementalScope
from reviewbot.scope.patches import entered, shown_again
from reviewbot.scope.review_scope import ReviewScope
from reviewbot.scope.standing import Standing
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.git_repo import push_since
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.verdict.axes import Outcome


def wanted_since(prior: PriorState, head_sha: str) -> str | None:
    """The head the last review was of, so the clone can fetch its history.

    Also for a review that will be full: it maps the earlier findings' lines onto this
    head (`scope/standing.py`), whichever kind of review runs.
    """
    marker = prior.summary_marker()
    if marker is None or marker.head_sha == head_sha:
        return None
    return marker.head_sha


def decide_review(snapshot: PRSnapshot, prior: PriorState | None) -> ReviewScope:
    config = snapshot.config
    if prior is None:
        return FullScope.of("no earlier review of this PR", config=config)
    last = prior.newest_comment
    standing = Standing.of(snapshot, prior)

    def full(reason: str) -> FullScope:
        return FullScope.of(reason, config=config, last_comment=last, standing=standing)

    marker = prior.summary_marker()
    if marker is None:
        return full("no earlier review of this PR")
    why = _why_full(snapshot, prior, marker)
    if why is not None:
        return full(why)
    push = push_since(snapshot.checkout, marker.head_sha, snapshot.head_sha)
    if isinstance(push, str):
        return full(push)
    earlier = prior.coverage(marker.head_sha)
    if earlier is None:  # (_why_full refuses a review without a recorded coverage)
        return full("no coverage recorded")
    own = authored(push.moved, snapshot.diff, merged=push.merged)
    recorded = marker.patches or ()
    base_moved = push.merged or marker.base_sha != snapshot.base_sha
    run = ReviewRun(
        kind=ReviewKind.INCREMENTAL,
        since=push.since,
        reason=f"the push since {push.since[:12]} only added commits",
        config_digest=config_digest(config),
        last_comment=last,
    )
    return IncrementalScope(
        run=run,
        push=push,
        changed=shown_again(own, snapshot.diff, recorded=recorded, base_moved=base_moved),
        entered=entered(own, snapshot.diff, recorded=recorded),
        earlier=earlier,
        standing=standing,
    )


def _why_full(snapshot: PRSnapshot, prior: PriorState, marker: SummaryMarker) -> str | None:
    config = snapshot.config
    since = marker.head_sha[:12]
    if not config.review.incremental:
        return "`[review] incremental = false` in the base branch's config"
    asked = [
        c for c in prior.full_requests if marker.last_comment is None or c > marker.last_comment
    ]
    if asked:
        return f"`/review full` was asked (comment {asked[-1]}) after the review of {since}"
    if marker.head_sha == snapshot.head_sha:
        return f"{since} was reviewed before: reviewing the same head again is a full review"
    if marker.config_digest != config_digest(config):
        return f"the effective config differs from the one the review of {since} ran with"
    recorded = {axis.name: axis.outcome for axis in marker.axes}
    for reviewer in config.all_reviewers:
        outcome = recorded.get(reviewer.name)
        if outcome is None or outcome is Outcome.NOT_RUN:
            return f"the review of {since} has no completed `{reviewer.name}` axis to build on"
    if marker.nodes is None:  # (a summary with a config digest also records the lines)
        return f"the review of {since} did not record where each of its findings is"
    coverage = marker.coverage
    if coverage is None or coverage.files_unlisted or coverage.files_unseen > len(coverage.unseen):
        return f"the review of {since} did not record which files it did not see"
    if snapshot.diff.listing_truncated:
        return "GitHub did not list every changed file"
    if _inexact(coverage.unseen, snapshot.diff):
        # A marker keeps paths redacted and cut: an unseen file it cannot name exactly
        # (a token-shaped or very long name, or one renamed since) cannot be carried.
        return f"the review of {since} recorded an unseen file this PR has under no such name"
    if marker.patches is None:  # (more files than it records, or a summary from before)
        return f"the review of {since} did not record the PR's diff it reviewed"
    return None


def _inexact(unseen: Sequence[UnseenMarker], diff: DiffIndex) -> bool:
    paths = {*diff.files, *(f.old_path for f in diff.files.values() if f.old_path)}
    return any(f.path not in paths for f in unseen)
