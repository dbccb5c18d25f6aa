"""A finding's priority and confidence only get stricter: one rule wherever same-fingerprint
nodes meet (a second raiser, this run against earlier runs, several postings, the summary)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reviewbot.memory.postings import NodeHistory, PriorNode, apply_decisions
from reviewbot.nodes import Priority, Status
from reviewbot.nodes.assessment import stricter
from reviewbot.nodes.history import HumanDecision, Judged
from reviewbot.nodes.lifecycle import Action, Transition
from reviewbot.sources.comments import Where
from tests.nodes.factories import make_node

P0, P1, P3 = Priority.P0, Priority.P1, Priority.P3


def posted(node, comment_id: int = 10) -> PriorNode:
    return PriorNode(node=node, comment_id=comment_id, where=Where.INLINE, body="")


class TestStricter:
    def test_each_of_priority_and_confidence_takes_the_strictest(self):
        """The most severe priority and the highest confidence, each on its own."""
        node = make_node(priority=P3, confidence=0.95)
        after = stricter(node, make_node(priority=P0, confidence=0.5))
        assert (after.priority, after.confidence) == (P0, 0.95)

    def test_the_rest_of_the_node_is_its_own(self):
        """Text, anchor, id and raisers stay the node's; only the assessment moves."""
        node = make_node(id="review-9", title="Mine", priority=P3)
        after = stricter(node, make_node(id="other-1", title="Theirs", priority=P0))
        assert (after.id, after.title, after.author) == ("review-9", "Mine", "review")

    @given(
        st.sampled_from(list(Priority)),
        st.floats(0, 1),
        st.lists(st.tuples(st.sampled_from(list(Priority)), st.floats(0, 1)), max_size=4),
    )
    def test_never_looser_than_any_input(self, priority, confidence, others):
        """Whatever meets it, the result is at least as severe and as sure as every input."""
        node = make_node(priority=priority, confidence=confidence)
        after = stricter(node, *(make_node(priority=p, confidence=c) for p, c in others))
        for p, c in [(priority, confidence), *others]:
            assert after.priority.rank <= p.rank
            assert after.confidence >= c


class TestAcrossRuns:
    def test_a_re_raise_at_p3_keeps_the_confirmed_p0(self):
        """This run's P3 meets the confirmed P0 posted earlier: it stays a confirmed P0."""
        earlier = make_node(priority=P0, confidence=0.95, status=Status.OPEN)
        earlier = earlier.model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)}
        )
        again = make_node(priority=P3, confidence=0.2)
        (node,) = apply_decisions([again], NodeHistory(nodes=(posted(earlier),)))
        assert (node.priority, node.confidence, node.status) == (P0, 0.95, Status.CONSENSUS_READY)

    def test_a_humans_confirm_does_not_confirm_a_lower_weight(self):
        """A maintainer's /confirm of the P0 applies to the re-raise, as the P0 it confirmed."""
        earlier = make_node(priority=P0, confidence=0.9)
        confirm = HumanDecision(
            fingerprint=earlier.fingerprint,
            transition=Transition(action=Action.CONFIRM, by="human:maintainer"),
            comment_id=11,
            login="maintainer",
        )
        history = NodeHistory(nodes=(posted(earlier),), decisions=(confirm,))
        (node,) = apply_decisions([make_node(priority=P3, confidence=0.1)], history)
        assert (node.priority, node.status) == (P0, Status.CONSENSUS_READY)

    def test_the_strictest_posting_and_recorded_assessment_count(self):
        """Two postings and the summary's assessment: the node weighs the most of them."""
        first = make_node(priority=P1, confidence=0.6)
        second = make_node(priority=P3, confidence=0.7)
        judged = Judged(fingerprint=first.fingerprint, priority=P0, confidence=0.5)
        history = NodeHistory(nodes=(posted(first, 10), posted(second, 11)), judged=(judged,))
        node = history.by_fingerprint()[first.fingerprint].node
        assert (node.priority, node.confidence) == (P0, 0.7)

    def test_a_dismiss_still_ends_it(self):
        """The one way down is a person's: a writer's /dismiss is final whatever the weight."""
        earlier = make_node(priority=P0, confidence=0.9)
        dismiss = HumanDecision(
            fingerprint=earlier.fingerprint,
            transition=Transition(action=Action.DISMISS, by="human:maintainer", reason="intended"),
            comment_id=11,
            login="maintainer",
        )
        history = NodeHistory(nodes=(posted(earlier),), decisions=(dismiss,))
        (node,) = apply_decisions([make_node(priority=P1)], history)
        assert (node.priority, node.status) == (P0, Status.DISMISSED)
