"""reviewbot's own approval stands only while the PR's latest review is a Ship.

A COMMENT or a REQUEST_CHANGES does not replace an earlier APPROVE on GitHub: head A
Ships and is approved, head B Holds, and A's approval still counts toward the required
reviews. So when a run's verdict is not a (fully covered) Ship, every earlier review by
reviewbot that is still APPROVED is dismissed:

    PUT /pulls/{n}/reviews/{id}/dismissals   {"message": …, "event": "DISMISS"}

Only reviewbot's own: a review by its account whose body carries its seal (a person's
approval, or one another workflow posted as the same account, is never touched).
Dismissing rather than posting REQUEST_CHANGES keeps a Hold a COMMENT (an advisory Hold
stays advisory) and leaves nothing a later Ship would have to clear.

The PUT is idempotent (the client retries it after a lost answer); GitHub answers a
second dismissal with 422 ("Can not dismiss a dismissed pull request review"), so any
refusal is checked by reading the review back: DISMISSED is done. A dismissal GitHub
refuses (403: branch protection restricts who may dismiss reviews; 422; 404) leaves the
approval counting: it is returned as standing, and the publisher then fails the check
whatever `advisory_hold` says and the summary says which approval still counts and
what to do. No answer at all is exit 5, before the summary and the check are written.

Must not: decide the verdict, or touch a review reviewbot did not seal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewbot.coverage.policy import coverage_gap
from reviewbot.github.answers import Review
from reviewbot.github.rest import GitHubRefusal
from reviewbot.github.shapes import RepoApi
from reviewbot.memory.markers import sealed_by
from reviewbot.memory.seal import Sealer
from reviewbot.results.report import Report
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.verdict.lattice import Verdict


def approvable(report: Report) -> bool:
    """Whether the evidence allows an approval: a Ship whose reviewers saw the whole PR."""
    return report.verdict is Verdict.SHIP and coverage_gap(report.coverage) is None


def own_approvals(
    records: Sequence[CommentRecord], *, bot_login: str, sealer: Sealer | None
) -> tuple[int, ...]:
    """The ids of reviewbot's own sealed reviews that are still APPROVED, oldest first."""
    return tuple(
        record.id
        for record in records
        if record.where is Where.REVIEW
        and record.state == "APPROVED"
        and record.author is not None
        and record.author.casefold() == bot_login.casefold()
        and sealed_by(record, sealer) is not None
    )


def unverified_approvals(
    records: Sequence[CommentRecord], *, bot_login: str, sealer: Sealer | None
) -> tuple[tuple[int, str], ...]:
    """APPROVED reviews by reviewbot's account that carry no seal this run can verify.

    reviewbot cannot tell whether it posted them (another workflow posting as the same
    account, a rotated or missing marker key), so it does not dismiss them; but they count
    toward required reviews, so a head that is not a clean Ship treats them as standing.
    """
    why = "it carries no seal this run can verify, so reviewbot cannot tell it posted it"
    return tuple(
        (record.id, why)
        for record in records
        if record.where is Where.REVIEW
        and record.state == "APPROVED"
        and record.author is not None
        and record.author.casefold() == bot_login.casefold()
        and sealed_by(record, sealer) is None
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Dismissal:
    """What dismissing reviewbot's earlier approvals did."""

    dismissed: tuple[int, ...] = ()
    standing: tuple[tuple[int, str], ...] = ()  # (review id, GitHub's reason) still APPROVED

    def notes(self) -> list[str]:
        notes = []
        if self.dismissed:
            ids = ", ".join(str(i) for i in self.dismissed)
            notes.append(
                f"Dismissed reviewbot's earlier approval(s) ({ids}): this head is not a Ship."
            )
        for review_id, why in self.standing:
            notes.append(
                f"reviewbot's earlier approval (review {review_id}) could not be dismissed ({why}) "
                "and still counts toward required reviews: the check fails until a maintainer "
                "dismisses it (or allows this token to dismiss reviews)."
            )
        return notes


def _state(api: RepoApi, path: str) -> str | None:
    try:
        return Review.model_validate(api.get(path, {})).state
    except GitHubRefusal:
        return None  # not visible any more: nothing says it was dismissed


def dismiss_approvals(
    api: RepoApi, number: int, ids: Sequence[int], *, head_sha: str, verdict: Verdict
) -> Dismissal:
    """Dismiss each of `ids`; the ones GitHub refused stay `standing`, with its reason."""
    message = (
        f"reviewbot's verdict on {head_sha[:12]} is {verdict.name.capitalize()}: this approval "
        "of an earlier head no longer stands (see reviewbot's summary comment)."
    )
    dismissed: list[int] = []
    standing: list[tuple[int, str]] = []
    for review_id in ids:
        path = f"/pulls/{number}/reviews/{review_id}"
        try:
            api.call("PUT", f"{path}/dismissals", {"message": message, "event": "DISMISS"})
        except GitHubRefusal as exc:
            # A retried PUT after a lost answer finds it dismissed already: read back.
            if _state(api, path) != "DISMISSED":
                standing.append((review_id, f"{exc.status}: {exc.message}"))
                continue
        dismissed.append(review_id)
    return Dismissal(dismissed=tuple(dismissed), standing=tuple(standing))
