"""Whether a pull request is reviewed now, and whether its review is posted.

The rules the flows in app.py apply, kept apart from the wiring: who may ask for a review
(the permission API's word, never the payload's association), a head that moved on, a
draft, and the notes a run ends with (a fork without secrets, no model key, uncommitted
changes left out of a local review).
"""

from __future__ import annotations

from collections.abc import Callable

from reviewbot.config.file import ReviewConfig
from reviewbot.errors import HeadMoved
from reviewbot.github.reader import PullRequestInfo

WRITERS = frozenset({"admin", "maintain", "write"})
FORK_HINT = (
    "fork PR without secrets: GitHub withholds them on `pull_request` from forks, so the "
    "review axis is not_run and the verdict is Hold. To review forks safely, use the two-stage "
    "workflows (examples/workflows/reviewbot-snapshot.yml and reviewbot-review.yml)"
)
NO_KEY_HINT = (
    "ANTHROPIC_API_KEY is not set: no model ran, so the reviewer axes are not_run and the "
    "verdict is at least Hold. {remedy}"
)
NO_KEY_REMEDY = {
    False: "Set it in your environment (`export ANTHROPIC_API_KEY=…`) and run again",
    True: "Add the repository secret ANTHROPIC_API_KEY and pass it to the action's "
    "`anthropic-api-key` input",
}
LEFT_OUT_HINT = (
    "{count} uncommitted change(s) are not in this review (it covers the commits up to HEAD); "
    "pass --worktree to review the working tree against the base"
)
FORK_NOT_POSTING = "not posting: a fork PR's token on `pull_request` is read-only"

Permission = Callable[[str], str]  # login → the permission API's answer on the repository


def not_a_writer(permission: Permission, actor: str | None) -> str | None:
    """Why `actor` may not ask for a review (None: they may): write access is required."""
    if actor is None:
        return "the comment has no author"
    granted = permission(actor)
    if granted not in WRITERS:
        return (
            f"/review by {actor} ignored: they have {granted} access, and write access is required"
        )
    return None


def why_not(
    info: PullRequestInfo,
    config: ReviewConfig,
    permission: Permission,
    *,
    expect_head: str | None,
    actor: str | None,
) -> str | None:
    """Why this PR is not reviewed now (None: review it): actor, moved head, draft."""
    ref = info.ref
    if actor is not None and actor != info.author:
        granted = permission(actor)
        if granted not in WRITERS:
            return (
                f"the run that saved this snapshot was started by {actor}, who is not the PR's "
                f"author and has {granted} access: a snapshot is reviewed for its author or "
                "someone with write access"
            )
    if expect_head is not None and info.head_sha != expect_head:
        return (
            f"{ref} moved to {info.head_sha[:12]} after {expect_head[:12]} was pushed; "
            "the newer push is reviewed by its own run"
        )
    if info.draft and not config.publish.review_drafts:
        return f"{ref} is a draft (set publish.review_drafts = true to review drafts)"
    return None


def still_head(info: PullRequestInfo, now: str, *, posting: bool = False) -> None:
    """Raise `HeadMoved` when the PR's head is `now`, not the reviewed one: before posting
    (nothing is posted) and while posting (`posting`: nothing more is).

    The review and the check run would name the reviewed SHA (never the new head), but the
    summary comment and the resolving of earlier findings belong to the PR as it is now: a
    late run of an older head would overwrite the newer head's summary and resolve its
    findings. The newer head's own run (a push starts one) reviews and publishes.
    """
    if now == info.head_sha:
        return
    moved = f"{info.ref} moved to {now[:12]} while {info.head_sha[:12]} was reviewed"
    if posting:
        raise HeadMoved(
            f"not posting the rest: {moved} and its review was posted; no summary, resolution "
            "or check run is written for the older head, and the newer head gets its own review"
        )
    raise HeadMoved(
        f"not posting: {moved}; the review of the older head is in the report, and the newer "
        "head gets its own review"
    )


def review_notes(
    *, fork_without_secrets: bool, has_model: bool, in_actions: bool
) -> tuple[str, ...]:
    """What a run says about a review no model ran in, in the words of where it runs."""
    if fork_without_secrets:
        return (FORK_HINT,)
    return () if has_model else (NO_KEY_HINT.format(remedy=NO_KEY_REMEDY[in_actions]),)


def left_out_notes(count: int) -> tuple[str, ...]:
    """A local review of HEAD with `count` uncommitted changes says they are not in it."""
    return (LEFT_OUT_HINT.format(count=count),) if count else ()
