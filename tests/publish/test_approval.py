"""reviewbot's own earlier approvals are dismissed when a head is not a clean Ship, and only those."""

from __future__ import annotations

from reviewbot.github.approval import (
    Dismissal,
    approvable,
    dismiss_approvals,
    own_approvals,
    unverified_approvals,
)
from reviewbot.github.client import make_client
from reviewbot.github.shapes import RepoApi
from reviewbot.publish.conclusion import conclusion_and_qualifier
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.verdict.lattice import Verdict
from tests.fakes.server import Response
from tests.publish.conftest import BOT, HEAD, NUMBER, REPO, SEALER, make_report, sealed


def review(id: int, state: str, *, author: str = BOT, body: str = "review") -> CommentRecord:
    return CommentRecord(id=id, where=Where.REVIEW, author=author, body=body, state=state)


class TestWhichApprovals:
    def test_only_reviewbots_sealed_approvals(self):
        """Sealed and APPROVED by the bot: yes; a person's, an unsealed copy, a comment: no."""
        records = [
            sealed(review(1, "APPROVED")),
            review(2, "APPROVED"),  # same account, no seal: another workflow
            sealed(review(3, "APPROVED", author="maintainer")),
            sealed(review(4, "COMMENTED")),
            sealed(review(5, "DISMISSED")),
        ]
        assert own_approvals(records, bot_login=BOT, sealer=SEALER) == (1,)

    def test_without_a_key_nothing_is_ours(self):
        assert own_approvals([sealed(review(1, "APPROVED"))], bot_login=BOT, sealer=None) == ()

    def test_an_approval_of_its_account_it_cannot_verify_stands(self):
        """No seal it can check (another workflow, a missing or rotated key): not dismissed,
        but standing, so a head that is not a clean Ship fails its check rather than pass
        with an approval that still counts."""
        records = [
            sealed(review(1, "APPROVED")),
            review(2, "APPROVED"),
            sealed(review(3, "APPROVED", author="maintainer")),
            review(4, "COMMENTED"),
        ]
        assert [i for i, _ in unverified_approvals(records, bot_login=BOT, sealer=SEALER)] == [2]
        no_key = unverified_approvals(records, bot_login=BOT, sealer=None)
        assert [i for i, _ in no_key] == [1, 2]

    def test_only_a_fully_covered_ship_is_approvable(self):
        assert approvable(make_report(verdict="ship"))
        assert not approvable(make_report(verdict="ship", partial=True))
        assert not approvable(make_report(verdict="hold"))


class TestDismissing:
    def test_an_approval_becomes_dismissed(self, fake, served):
        """GitHub's real shape: the review answered with state DISMISSED."""
        approved = fake.github.add_review(REPO, NUMBER, "ok", author=BOT, state="APPROVED")
        api = RepoApi(make_client(served.url, "ghs_" + "t" * 36, retries=0, backoff=0), REPO)
        done = dismiss_approvals(api, NUMBER, [approved["id"]], head_sha=HEAD, verdict=Verdict.HOLD)
        assert done == Dismissal(dismissed=(approved["id"],))
        assert approved["state"] == "DISMISSED"
        (put,) = [r for r in served.snapshot() if r.method == "PUT"]
        assert put.json()["message"].startswith(f"reviewbot's verdict on {HEAD[:12]} is Hold")

    def test_a_repeat_after_a_lost_answer_is_done(self, fake, served):
        """Dismissed already (GitHub's 422 to a second PUT): read back, counted as dismissed."""
        approved = fake.github.add_review(REPO, NUMBER, "ok", author=BOT, state="DISMISSED")
        api = RepoApi(make_client(served.url, "ghs_" + "t" * 36, retries=0, backoff=0), REPO)
        done = dismiss_approvals(api, NUMBER, [approved["id"]], head_sha=HEAD, verdict=Verdict.HOLD)
        assert done.dismissed == (approved["id"],)

    def test_a_refusal_leaves_it_standing_with_the_reason(self, fake, served):
        """Branch protection refuses (403): standing, with GitHub's words, and said in notes."""
        approved = fake.github.add_review(REPO, NUMBER, "ok", author=BOT, state="APPROVED")
        served.fail_next(
            "PUT",
            r"/dismissals$",
            Response.json(
                403, {"message": "Branch protections do not permit dismissing this review"}
            ),
        )
        api = RepoApi(make_client(served.url, "ghs_" + "t" * 36, retries=0, backoff=0), REPO)
        done = dismiss_approvals(
            api, NUMBER, [approved["id"]], head_sha=HEAD, verdict=Verdict.BLOCK
        )
        assert done.dismissed == ()
        ((review_id, why),) = done.standing
        assert (review_id, approved["state"]) == (approved["id"], "APPROVED")
        assert why.startswith("403: Branch protections do not permit")
        assert "still counts toward required reviews" in " ".join(done.notes())


class TestTheCheck:
    def test_a_standing_approval_fails_an_advisory_hold(self):
        report = make_report(verdict="hold")
        assert conclusion_and_qualifier(report, advisory_hold=True)[0] == "neutral"
        conclusion, qualifier = conclusion_and_qualifier(
            report, advisory_hold=True, approval_stands=True
        )
        assert conclusion == "failure"
        assert "earlier approval could not be dismissed" in qualifier
