"""The re-fold (check_suite): fresh CI results over what the last review recorded, no model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reviewbot.config.file import ReviewConfig, ReviewerConfig
from reviewbot.coverage.model import Coverage
from reviewbot.memory.markers import (
    SUMMARY_TAG,
    SummaryMarker,
    dumps_marker,
    node_marker,
    seal_body,
    summary_marker,
)
from reviewbot.memory.prior import Trust, read_prior
from reviewbot.memory.seal import Sealer
from reviewbot.nodes.model import Priority, Status
from reviewbot.results.report import ReviewKind, ReviewRun
from reviewbot.results.run import Usage
from reviewbot.review.pipeline import build_report, refold
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.lattice import Verdict
from tests.agent.factories import HEAD_SHA, index, snapshot
from tests.nodes.factories import make_node

BOT = "github-actions[bot]"
OTHER_HEAD = "b2" * 20
SEALER = Sealer.of("marker-key-for-tests-0123456789", repo="octo/app", number=7)
TRUST = Trust(bot_login=BOT, sealer=SEALER, is_writer={"maintainer"}.__contains__)
REVIEW_PASSED = AxisResult(name="review", gated=True, outcome=Outcome.PASSED)
CI_PASSED = AxisResult(name="ci", gated=False, outcome=Outcome.PASSED)
CI = (lambda _config: CI_PASSED,)  # the axis sources: a CI that passed


def _sealed(id: int, where: Where, body: str, author: str = BOT, **fields) -> CommentRecord:
    return CommentRecord(id=id, where=where, author=author, body=seal_body(body, SEALER), **fields)


FULL = Coverage(files_total=1, files_in_context=1, partial=False)
UNVERIFIED = AxisResult(
    name="verifier", gated=True, outcome=Outcome.NOT_RUN, detail="1 finding(s) not verified"
)


def prior_of(
    proposed: Verdict | None,
    *,
    head: str = HEAD_SHA,
    nodes=(),
    axes=(REVIEW_PASSED,),
    coverage: Coverage | None = FULL,
    run: ReviewRun | None = None,
):
    """The prior state a PR holds after a review of `head` whose agents proposed `proposed`."""
    snap = replace(snapshot(Path("/nonexistent"), index()), head_sha=head)
    report = build_report(
        snap,
        proposed=proposed,
        axes=axes,
        nodes=nodes,
        discarded=(),
        agents=(),
        usage=Usage(),
        coverage=coverage,
        run=run,
    )
    marker = summary_marker(SummaryMarker.of(report, head_sha=head))
    records = [_sealed(1, Where.ISSUE, marker + "\nsummary")]
    records += [_sealed(10 + i, Where.INLINE, node_marker(n)) for i, n in enumerate(nodes)]
    return snap, report, records


def at(head: str):
    return replace(snapshot(Path("/nonexistent"), index()), head_sha=head)


class TestRefold:
    def test_a_review_that_recorded_no_coverage_refolds_to_hold(self):
        """No coverage recorded for the head: the reviewer axis did not fully run, Hold."""
        snap, report, records = prior_of(None, coverage=None)
        assert report.verdict is Verdict.HOLD
        after = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert after.verdict is Verdict.HOLD
        assert [a.outcome for a in after.axes if a.name == "review"] == [Outcome.PARTIAL]

    def test_a_partial_review_refolds_to_hold_however_green_ci_is(self):
        """A partial coverage recorded for the head: the re-fold is Hold, the axis partial."""
        partial = Coverage(files_total=2, files_in_context=1, partial=True)
        snap, _, records = prior_of(None, coverage=partial)
        after = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert after.verdict is Verdict.HOLD
        assert [a.outcome for a in after.axes if a.name == "review"] == [Outcome.PARTIAL]

    def test_a_proposed_block_survives_a_green_ci(self):
        """The agents proposed Block with no node: a passing CI re-fold still answers Block."""
        snap, report, records = prior_of(Verdict.BLOCK)
        assert report.verdict is Verdict.BLOCK
        assert refold(snap, prior=read_prior(records, TRUST), axes=CI).verdict is Verdict.BLOCK

    def test_without_a_proposal_the_recorded_axes_decide(self):
        """No proposal and a passed review axis: a passing CI re-fold ships."""
        snap, _, records = prior_of(None)
        assert refold(snap, prior=read_prior(records, TRUST), axes=CI).verdict is Verdict.SHIP

    def test_a_verifier_that_could_not_run_still_holds_the_refold(self):
        """The review recorded the verifier's not_run axis: a green CI re-fold holds as it did."""
        snap, report, records = prior_of(
            None, nodes=(make_node(),), axes=(REVIEW_PASSED, UNVERIFIED)
        )
        assert report.verdict is Verdict.HOLD
        after = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert after.verdict is Verdict.HOLD
        assert [a.outcome for a in after.axes if a.name == "verifier"] == [Outcome.NOT_RUN]

    def test_without_a_summary_the_review_axis_did_not_run(self):
        """Nothing recorded: the reviewer axis is not_run, so the verdict is at least Hold."""
        report = refold(at(HEAD_SHA), prior=read_prior([], TRUST), axes=CI)
        assert report.verdict is Verdict.HOLD
        assert [a.outcome for a in report.axes if a.name == "review"] == [Outcome.NOT_RUN]


class TestAnotherHead:
    def test_a_review_of_another_head_is_not_run_for_this_one(self):
        """A clean review of A says nothing about B: B's re-fold holds, and says which head was seen."""
        _, _, records = prior_of(None, head=HEAD_SHA)
        report = refold(at(OTHER_HEAD), prior=read_prior(records, TRUST), axes=CI)
        assert report.verdict is Verdict.HOLD
        (review,) = [a for a in report.axes if a.name == "review"]
        assert review.outcome is Outcome.NOT_RUN
        assert f"the last review recorded was of {HEAD_SHA[:12]}" in review.detail
        assert f"{OTHER_HEAD[:12]} has not been reviewed" in review.detail

    def test_another_heads_coverage_and_proposal_do_not_carry(self):
        """Coverage and the agents' proposal recorded for A are not B's."""
        _, _, records = prior_of(Verdict.BLOCK, head=HEAD_SHA)
        prior = read_prior(records, TRUST)
        assert (prior.proposed(OTHER_HEAD), prior.coverage(OTHER_HEAD)) == (None, None)
        assert prior.proposed(HEAD_SHA) is Verdict.BLOCK

    def test_nodes_of_another_head_still_count(self):
        """An open P0 found on A still holds B's re-fold (stricter is fine)."""
        p0 = make_node(priority=Priority.P0, commit_sha=HEAD_SHA[:7])
        _, _, records = prior_of(None, head=HEAD_SHA, nodes=(p0,))
        report = refold(at(OTHER_HEAD), prior=read_prior(records, TRUST), axes=CI)
        assert [n.fingerprint for n in report.nodes] == [p0.fingerprint]


class TestHumanDecisionsInARefold:
    def _confirmed_p0(self):
        p0 = make_node(priority=Priority.P0, confidence=0.95).model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)}
        )
        axis = AxisResult(name="review", gated=True, outcome=Outcome.FAILED)
        return prior_of(None, nodes=(p0,), axes=(axis,))

    def _reply(self, login: str, body: str = "/dismiss false positive") -> CommentRecord:
        return CommentRecord(id=99, where=Where.INLINE, author=login, body=body, in_reply_to=10)

    def test_a_writers_dismiss_unblocks_the_recorded_axis(self):
        """The axis recorded as failed is judged again after a maintainer's /dismiss: Ship."""
        snap, report, records = self._confirmed_p0()
        assert report.verdict is Verdict.BLOCK
        prior = read_prior([*records, self._reply("maintainer")], TRUST)
        after = refold(snap, prior=prior, axes=CI)
        assert [(a.name, a.outcome) for a in after.axes] == [
            ("review", Outcome.PASSED),
            ("ci", Outcome.PASSED),
        ]
        assert (after.verdict, after.nodes[0].status) == (Verdict.SHIP, Status.DISMISSED)

    @pytest.mark.parametrize(
        ("body", "status"),
        [("/dismiss false positive", Status.DISMISSED), ("/confirm real", Status.CONSENSUS_READY)],
    )
    def test_a_writers_decision_judges_what_the_verifier_left(self, body: str, status: Status):
        """The verifier left the P1 unverified (Hold); a maintainer decided on it: the decision
        is the evidence, so the re-fold has no `verifier` axis any more."""
        p1 = make_node()
        snap, report, records = prior_of(None, nodes=(p1,), axes=(REVIEW_PASSED, UNVERIFIED))
        assert report.verdict is Verdict.HOLD
        undecided = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert [a.name for a in undecided.axes if a.outcome is Outcome.NOT_RUN] == ["verifier"]
        prior = read_prior([*records, self._reply("maintainer", body)], TRUST)
        after = refold(snap, prior=prior, axes=CI)
        assert [a.name for a in after.axes] == ["review", "ci"]
        assert after.nodes[0].status is status

    def test_only_the_findings_recorded_unverified_hold(self):
        """The verifier disputed one P1 and left the other: once the left one is dismissed,
        the disputed one (open, but judged) holds nothing, and the record forgets both."""
        disputed, left = make_node(id="review-1"), make_node(id="review-2", line=9, title="Other")
        run = ReviewRun(kind=ReviewKind.FULL, reason="test", unverified=(left.fingerprint,))
        axes = (REVIEW_PASSED, UNVERIFIED)
        snap, _, records = prior_of(None, nodes=(disputed, left), axes=axes, run=run)
        dismiss = CommentRecord(
            id=99, where=Where.INLINE, author="maintainer", body="/dismiss no", in_reply_to=11
        )
        after = refold(snap, prior=read_prior([*records, dismiss], TRUST), axes=CI)
        assert [a.name for a in after.axes] == ["review", "ci"]
        assert after.verdict is Verdict.SHIP
        assert after.review is not None
        assert after.review.unverified == ()

    def test_a_dismiss_without_write_access_changes_nothing(self):
        """A read-only account's /dismiss leaves the confirmed P0 blocking."""
        snap, _, records = self._confirmed_p0()
        prior = read_prior([*records, self._reply("reader")], TRUST)
        assert refold(snap, prior=prior, axes=CI).verdict is Verdict.BLOCK

    def test_the_recorded_confirmation_counts_even_when_the_marker_is_older(self):
        """A node posted open and confirmed on a later run: the summary's state keeps it confirmed."""
        p0 = make_node(priority=Priority.P0, confidence=0.95)  # its inline marker says open
        confirmed = p0.model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)}
        )
        axis = AxisResult(name="review", gated=True, outcome=Outcome.FAILED)
        snap, _, records = prior_of(None, nodes=(confirmed,), axes=(axis,))
        records[1] = _sealed(10, Where.INLINE, node_marker(p0))
        after = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert after.verdict is Verdict.BLOCK
        assert after.nodes[0].status is Status.CONSENSUS_READY


class TestTheReviewedHeadsAssessment:
    """A finding posted on an earlier head keeps that head's inline marker; the summary of the
    head reviewed records how it was judged there, and a re-fold must not fall below it."""

    def _posted_then_judged(self, posted, judged, axes):
        """`posted` is the inline marker (an earlier head's); `judged` is this head's node."""
        snap, report, records = prior_of(None, nodes=(judged,), axes=axes)
        records[1] = _sealed(10, Where.INLINE, node_marker(posted))
        return snap, report, read_prior(records, TRUST)

    def _confirmed(self, node):
        return node.model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)}
        )

    def test_a_p3_posted_then_confirmed_as_p0_still_blocks(self):
        """Posted as a P3 on A; B's review confirmed it as a P0 and Blocked: the re-fold Blocks."""
        p3 = make_node(priority=Priority.P3, confidence=0.5)
        p0 = self._confirmed(make_node(priority=Priority.P0, confidence=0.95))
        assert p3.fingerprint == p0.fingerprint
        failed = AxisResult(name="review", gated=True, outcome=Outcome.FAILED)
        snap, report, prior = self._posted_then_judged(p3, p0, (failed,))
        assert report.verdict is Verdict.BLOCK
        after = refold(snap, prior=prior, axes=CI)
        assert after.verdict is Verdict.BLOCK
        assert (after.axes[0].name, after.axes[0].outcome) == ("review", Outcome.FAILED)
        assert (after.nodes[0].priority, after.nodes[0].confidence) == (Priority.P0, 0.95)

    def test_a_p1_posted_then_confirmed_as_p0_still_blocks(self):
        """Posted as a P1 (Hold); confirmed as a P0 on B (Block): the re-fold does not fall to Hold."""
        p1 = make_node(priority=Priority.P1)
        p0 = self._confirmed(make_node(priority=Priority.P0, confidence=0.95))
        failed = AxisResult(name="review", gated=True, outcome=Outcome.FAILED)
        snap, report, prior = self._posted_then_judged(p1, p0, (failed,))
        assert report.verdict is Verdict.BLOCK
        assert refold(snap, prior=prior, axes=CI).verdict is Verdict.BLOCK

    def test_a_gated_reviewer_raising_it_later_still_counts(self):
        """Posted as raised by `style` (not gated); on B `security` (gated) raised it too: Hold."""
        posted = make_node(priority=Priority.P0, confidence=0.95, author="style")
        judged = posted.model_copy(update={"also_raised_by": ("security",)})
        axes = (
            REVIEW_PASSED,
            AxisResult(name="style", gated=False, outcome=Outcome.PASSED),
            AxisResult(name="security", gated=True, outcome=Outcome.PASSED),
        )
        snap, report, prior = self._posted_then_judged(posted, judged, axes)
        config = ReviewConfig(
            reviewers=(
                ReviewerConfig(name="style", gated=False),
                ReviewerConfig(name="security", gated=True),
            )
        )
        snap = replace(snap, config=config)
        assert report.verdict is Verdict.HOLD
        after = refold(snap, prior=prior, axes=CI)
        assert after.verdict is Verdict.HOLD
        assert after.nodes[0].raisers == ("style", "security")

    def test_a_summary_without_the_assessment_keeps_the_recorded_axis(self):
        """A summary written before priorities were recorded: the stale marker cannot pass the axis."""
        p3 = make_node(priority=Priority.P3, confidence=0.5)
        p0 = self._confirmed(make_node(priority=Priority.P0, confidence=0.95))
        failed = AxisResult(name="review", gated=True, outcome=Outcome.FAILED)
        snap, _, records = prior_of(None, nodes=(p0,), axes=(failed,))
        legacy = SummaryMarker.of(
            build_report(
                snap,
                proposed=None,
                axes=(failed,),
                nodes=(p0,),
                discarded=(),
                agents=(),
                usage=Usage(),
                coverage=None,
            ),
            head_sha=HEAD_SHA,
        )
        old_states = [
            {
                k: v
                for k, v in s.model_dump(mode="json").items()
                if k not in {"priority", "confidence"}
            }
            for s in legacy.nodes or ()
        ]
        payload = {**legacy.model_dump(mode="json"), "nodes": old_states}
        records[0] = _sealed(1, Where.ISSUE, dumps_marker(SUMMARY_TAG, payload) + "\nsummary")
        records[1] = _sealed(10, Where.INLINE, node_marker(p3))
        after = refold(snap, prior=read_prior(records, TRUST), axes=CI)
        assert [a.outcome for a in after.axes if a.name == "review"] == [Outcome.FAILED]
        assert after.verdict is Verdict.BLOCK
