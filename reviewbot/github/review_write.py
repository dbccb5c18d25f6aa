"""The review write: its event, its inline comments, and GitHub's 422 fallbacks.

One POST /pulls/{n}/reviews carries the body, the event and every NEW inline
comment, made once (`write_once`: the review's `reviewbot:review` marker names the
head and a key of its content, so a lost answer is read back, never re-posted
blindly). An approval GitHub refuses is re-posted as COMMENT (a Ship with partial
coverage is never an APPROVE); a 422 for the review (GitHub does not say which
comment) bisects the inline comments with PENDING reviews that are deleted again
(one pending review per user and PR), then posts the rest and moves the refused
ones into the body. A 422 whose bisection refuses no comment (GitHub answers so for a
moment right after a push, while it computes the new diff) is retried once, after
`RETRY_WAIT` seconds and a read-back (a review GitHub stored after all is not posted
again); a second such 422 ends the run.

Must not: decide placement (`publish/placement.py`) or write markdown (`publish/body.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from reviewbot.config.file import PublishConfig
from reviewbot.errors import GitHubAPIError
from reviewbot.github.answers import Review, User, shapes
from reviewbot.github.approval import approvable
from reviewbot.github.rest import GitHubRefusal
from reviewbot.github.shapes import Created, RepoApi, key
from reviewbot.memory.markers import seal_body
from reviewbot.memory.seal import Sealer
from reviewbot.nodes.model import ReviewNode
from reviewbot.publish.body import HeadReader, checkout_reader, inline_body, review_text
from reviewbot.publish.placement import CommentTarget, LinkBuilder, Placement
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.verdict.lattice import Verdict

REVIEW_TAG = "reviewbot:review"  # the identity of one review write, read back after a lost answer
RETRY_WAIT = 3.0  # seconds before the one retry of a review GitHub refused as a whole

ReviewEvent = Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]
_EVENTS: dict[Verdict, ReviewEvent] = {
    Verdict.SHIP: "APPROVE",
    Verdict.HOLD: "COMMENT",
    Verdict.BLOCK: "REQUEST_CHANGES",
}
_APPROVAL_REFUSALS = (
    "not permitted to approve",
    "can not approve your own",
    "cannot approve your own",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Posted:
    review: Created | None
    plan: Placement
    event: ReviewEvent | None
    notes: tuple[str, ...]


class ReviewWriter:
    """Posts one run's review to one PR."""

    def __init__(
        self,
        api: RepoApi,
        number: int,
        *,
        config: PublishConfig,
        redactor: Redactor,
        sealer: Sealer | None,
        bot_login: str,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._api = api
        self._sleep = sleep or time.sleep
        self.number = number
        self.config = config
        self.redact = redactor
        self.sealer = sealer
        self.bot_login = bot_login

    def mine(self, user: User | None) -> bool:
        return user is not None and user.login.casefold() == self.bot_login.casefold()

    def post(
        self, report: Report, plan: Placement, snapshot: PRSnapshot, link_of: LinkBuilder
    ) -> Posted:
        verdict = report.verdict
        event: ReviewEvent = _EVENTS[verdict]
        if event == "APPROVE" and (not self.config.approve or not approvable(report)):
            event = "COMMENT"  # an approval is a clean pass: never for a partial review
        head = checkout_reader(snapshot.checkout)
        notes: list[str] = []
        retried = False
        for _ in range(4):  # approval refused, comments refused, the one retry, the final post
            comments = [
                (item.node.id, self._comment(item.node, item.target, head, link_of))
                for item in plan.inline
            ]
            identity = [snapshot.head_sha, event, [c for _, c in comments], notes]
            identity.append([item.node.fingerprint for item in plan.body])
            marker = f"<!-- {REVIEW_TAG} {snapshot.head_sha}:{key(identity)} -->"
            fitted = review_text(
                report,
                plan,
                link_of=link_of,
                head=head,
                notes=notes,
                redactor=self.redact,
                tail="\n" + marker,
            )
            try:
                payloads = [c for _, c in comments]
                created = self._create_review(
                    snapshot.head_sha, fitted.text, payloads, event, marker=marker, again=retried
                )
                return Posted(
                    review=created,
                    plan=_without(plan, fitted.left_out),
                    event=event,
                    notes=(*notes, *_left_out_note(fitted.left_out)),
                )
            except GitHubRefusal as exc:
                if exc.status != 422:
                    raise
                if event == "APPROVE" and _approval_refused(exc.message):
                    event = "COMMENT"
                    notes.append(
                        f"GitHub refused the approval ({exc.message}); posted as a comment."
                    )
                    continue
                refused = self._bisect(snapshot.head_sha, comments) if comments else []
                if not refused:  # no comment is at fault: GitHub refused the whole review
                    retried = self._once_more(exc, retried)
                    continue
                plan = plan.reject(refused)
                notes.append(
                    f"GitHub refused {len(refused)} inline comment(s); they are listed in the review body."
                )
        raise GitHubAPIError("GitHub kept refusing the review after the fallbacks")

    def _once_more(self, refusal: GitHubRefusal, retried: bool) -> bool:
        """The one retry of a review refused whole (no comment at fault), after a wait."""
        if retried:
            raise refusal
        self._sleep(RETRY_WAIT)
        return True

    def _comment(
        self, node: ReviewNode, target: CommentTarget, head: HeadReader, link_of: LinkBuilder
    ) -> dict[str, Any]:
        body = inline_body(node, target, head=head, redactor=self.redact, link_of=link_of)
        payload: dict[str, Any] = {
            "path": target.path,
            "body": seal_body(body, self.sealer),
            "line": target.line,
            "side": target.side,
        }
        if target.start_line is not None:
            payload |= {"start_line": target.start_line, "start_side": target.side}
        return payload

    def _create_review(
        self,
        sha: str,
        body: str | None,
        comments: list[dict[str, Any]],
        event: ReviewEvent | None,
        *,
        marker: str | None = None,
        again: bool = False,
    ) -> Created:
        """A submitted review carrying `marker`, or (no event) this run's PENDING probe;
        `again`: a retry, which posts only when reading back finds no such review."""
        payload: dict[str, Any] = {"commit_id": sha, "comments": comments}
        if body is not None:
            payload["body"] = seal_body(body, self.sealer)
        if event is not None:
            payload["event"] = event

        def find() -> Any | None:
            # At most one PENDING review per user: after a lost probe, the bot's is the probe.
            # Otherwise only the bot's LATEST review counts (listed oldest first): an identical
            # review of an earlier run on this head does not stand for this one when a looser
            # review came in between (Block, then Ship, then this Block).
            latest: Review | None = None
            for review in shapes(self._api.pages(f"/pulls/{self.number}/reviews"), Review):
                if not self.mine(review.user):
                    continue
                if review.state == "PENDING":
                    if marker is None:
                        return review.model_dump()
                    continue
                latest = review
            if marker is not None and latest is not None and marker in (latest.body or ""):
                return latest.model_dump()
            return None

        data = find() if again else None
        if data is None:
            data = self._api.write_once(f"/pulls/{self.number}/reviews", payload, find=find)
        return Created.model_validate(data)

    def _bisect(self, sha: str, comments: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
        """The ids of the comments GitHub refuses, found with PENDING reviews deleted again.

        Called on a set known to fail. One pending review per user and PR is allowed,
        so each probe is created and deleted before the next.
        """
        if len(comments) == 1:
            return [comments[0][0]]
        half = len(comments) // 2
        refused: list[str] = []
        for part in (comments[:half], comments[half:]):
            if not self._probe(sha, [c for _, c in part]):
                refused += self._bisect(sha, part)
        return refused

    def _probe(self, sha: str, comments: list[dict[str, Any]]) -> bool:
        try:
            pending = self._create_review(sha, None, comments, None)
        except GitHubRefusal as exc:
            if exc.status == 422:
                return False
            raise
        self._api.delete(f"/pulls/{self.number}/reviews/{pending.id}")
        return True


def _without(plan: Placement, left_out: Sequence[str]) -> Placement:
    """`plan` minus the listed findings the review body had no room for (not posted at all)."""
    if not left_out:
        return plan
    body = tuple(item for item in plan.body if item.node.id not in set(left_out))
    return replace(plan, body=body)


def _left_out_note(left_out: Sequence[str]) -> tuple[str, ...]:
    if not left_out:
        return ()
    return (
        f"{len(left_out)} finding(s) did not fit in the review body (GitHub's size limit); "
        "the next review posts them.",
    )


def _approval_refused(message: str) -> bool:
    text = message.casefold()
    return any(refusal in text for refusal in _APPROVAL_REFUSALS)
