"""The re-fold (check_suite): fresh CI results over what the last review recorded, no model."""

from __future__ import annotations

from pathlib import Path

from reviewbot.publish.markers import (
    CommentRecord,
    SummaryMarker,
    Where,
    read_prior,
    summary_marker,
)
from reviewbot.report import Usage
from reviewbot.review import build_report, refold
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.lattice import Verdict
from tests.agent.factories import HEAD_SHA, index, snapshot

BOT = "github-actions[bot]"
REVIEW_PASSED = AxisResult(name="review", gated=True, outcome=Outcome.PASSED)
CI_PASSED = AxisResult(name="ci", gated=False, outcome=Outcome.PASSED)


def prior_of(proposed: Verdict | None):
    """The prior state a PR holds after a review whose agents proposed `proposed`."""
    snap = snapshot(Path("/nonexistent"), index())
    report = build_report(
        snap,
        proposed=proposed,
        axes=(REVIEW_PASSED,),
        nodes=(),
        discarded=(),
        agents=(),
        usage=Usage(),
        coverage=None,
    )
    marker = summary_marker(SummaryMarker.of(report, head_sha=HEAD_SHA))
    record = CommentRecord(id=1, where=Where.ISSUE, author=BOT, body=marker + "\nsummary")
    return snap, report, read_prior([record], BOT)


class TestRefold:
    def test_a_proposed_block_survives_a_green_ci(self):
        """The agents proposed Block with no node: a passing CI re-fold still answers Block."""
        snap, report, prior = prior_of(Verdict.BLOCK)
        assert report.verdict == "block"
        assert refold(snap, prior=prior, ci=CI_PASSED).verdict == "block"

    def test_without_a_proposal_the_recorded_axes_decide(self):
        """No proposal and a passed review axis: a passing CI re-fold ships."""
        snap, _, prior = prior_of(None)
        assert refold(snap, prior=prior, ci=CI_PASSED).verdict == "ship"

    def test_without_a_summary_the_review_axis_did_not_run(self):
        """Nothing recorded: the reviewer axis is not_run, so the verdict is at least Hold."""
        snap = snapshot(Path("/nonexistent"), index())
        report = refold(snap, prior=read_prior([], BOT), ci=CI_PASSED)
        assert report.verdict == "hold"
        assert [a.outcome for a in report.axes if a.name == "review"] == [Outcome.NOT_RUN]
