"""The verifier's axis: a finding of a verified priority that nobody judged holds."""

from __future__ import annotations

import pytest

from reviewbot.nodes import Priority, Status
from reviewbot.nodes.model import Dispute
from reviewbot.verdict.axes import VERIFIER_AXIS, Outcome
from reviewbot.verdict.verified import judged, unverified, unverified_axis
from tests.nodes.factories import make_node

VERIFIED = frozenset({Priority.P0, Priority.P1})


class TestJudged:
    @pytest.mark.parametrize(
        "update",
        [
            {"status": Status.DISMISSED},  # a person's /dismiss
            {"status": Status.CONSENSUS_READY, "confirmed_by": ("human:maintainer",)},
            {"status": Status.RESOLVED},
            {"disputes": (Dispute(by=VERIFIER_AXIS, reason="handled"),)},
        ],
        ids=["dismissed", "confirmed", "resolved", "disputed-by-the-verifier"],
    )
    def test_a_decision_or_a_verifiers_judgement_is_evidence(self, update):
        """Any status but open, or the verifier's dispute: judged."""
        assert judged(make_node().model_copy(update=update))

    def test_an_open_finding_another_agent_disputed_is_not(self):
        """A reviewer's dispute is not the verifier's judgement: still unjudged."""
        node = make_node().model_copy(update={"disputes": (Dispute(by="security", reason="no"),)})
        assert not judged(node)


class TestUnverified:
    def test_only_wanted_findings_of_a_verified_priority(self):
        """Not given to a verifier, or of a priority it does not examine: not unverified."""
        p1, p2 = make_node(), make_node(priority=Priority.P2, title="Minor")
        other = make_node(title="Other")
        wanted = {p1.fingerprint, p2.fingerprint}
        assert unverified((p1, p2, other), wanted=wanted, priorities=VERIFIED) == (p1,)

    def test_a_disabled_verifier_wants_nothing(self):
        """No verified priority (disabled): nothing waits, nothing holds."""
        p1 = make_node()
        assert unverified((p1,), wanted={p1.fingerprint}, priorities=frozenset()) == ()

    def test_the_axis_is_gated_when_a_gated_reviewer_raised_one(self):
        """Raised by `style` only (not gated): the axis is reported, not gated."""
        style = make_node(author="style")
        axis = unverified_axis((style,), gated={"review"}, why="timeout")
        assert axis is not None
        assert (axis.outcome, axis.gated) == (Outcome.NOT_RUN, False)
        assert axis.detail == "1 finding(s) not verified: timeout"
        assert unverified_axis((), gated={"review"}, why="timeout") is None
