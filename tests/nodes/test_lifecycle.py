"""The review-node state machine: every transition, legal and illegal."""

from __future__ import annotations

import pytest

from reviewbot.errors import LifecycleError
from reviewbot.nodes import Action, Priority, Status, Transition, also_raised, apply
from tests.nodes.factories import make_node

O, C, R, D = Status.OPEN, Status.CONSENSUS_READY, Status.RESOLVED, Status.DISMISSED  # noqa: E741 - the four states, as in the docstring diagram

LEGAL = [
    (O, Action.CONFIRM, "verifier", C),
    (O, Action.CONFIRM, "review", O),  # the author confirming its own node: no-op
    (C, Action.CONFIRM, "human:alice", C),
    (O, Action.DISPUTE, "verifier", O),
    (C, Action.DISPUTE, "verifier", C),
    (O, Action.RESOLVE, "harness", R),
    (C, Action.RESOLVE, "harness", R),
    (R, Action.RESOLVE, "harness", R),
    (O, Action.DISMISS, "human:alice", D),
    (C, Action.DISMISS, "human:alice", D),
    (R, Action.DISMISS, "human:alice", D),
    (D, Action.DISMISS, "human:alice", D),
    (R, Action.REOPEN, "harness", O),
]

ILLEGAL = [
    (O, Action.REOPEN),
    (C, Action.REOPEN),
    (D, Action.REOPEN),
    (D, Action.CONFIRM),
    (D, Action.RESOLVE),
    (D, Action.DISPUTE),
    (R, Action.CONFIRM),
    (R, Action.DISPUTE),
]


class TestTransitions:
    @pytest.mark.parametrize(
        ("start", "action", "by", "end"), LEGAL, ids=[f"{s}-{a}-by-{b}" for s, a, b, _ in LEGAL]
    )
    def test_legal_moves(self, start, action, by, end):
        """Each legal move lands in the state the table says."""
        node = make_node(status=start)
        assert apply(node, Transition(action=action, by=by, reason="because")).status is end

    @pytest.mark.parametrize(("start", "action"), ILLEGAL, ids=[f"{s}-{a}" for s, a in ILLEGAL])
    def test_illegal_moves_are_refused_clearly(self, start, action):
        """An illegal move raises LifecycleError naming the node, the move and the state."""
        node = make_node(status=start)
        with pytest.raises(
            LifecycleError,
            match=rf"cannot {action.value} review node review-1: it is {start.value}",
        ):
            apply(node, Transition(action=action, by="someone"))


class TestConsensus:
    def test_author_confirming_its_own_node_changes_nothing(self):
        """A worker never confirms its own work: status and confirmed_by stay as they were."""
        node = make_node(author="review")
        assert apply(node, Transition(action=Action.CONFIRM, by="review")) == node

    def test_peer_confirmation_is_recorded(self):
        """A peer's confirmation moves the node and names the peer."""
        node = apply(make_node(), Transition(action=Action.CONFIRM, by="verifier"))
        assert node.status is C
        assert node.confirmed_by == ("verifier",)

    def test_confirming_twice_records_the_peer_once(self):
        """The same peer confirming again adds nothing."""
        once = apply(make_node(), Transition(action=Action.CONFIRM, by="verifier"))
        assert apply(once, Transition(action=Action.CONFIRM, by="verifier")) == once

    def test_disputes_are_kept(self):
        """A dispute keeps the node open and keeps the reason."""
        node = apply(
            make_node(),
            Transition(action=Action.DISPUTE, by="verifier", reason="the guard covers it"),
        )
        assert node.status is O
        assert [(d.by, d.reason) for d in node.disputes] == [("verifier", "the guard covers it")]


class TestAlsoRaised:
    """Another agent raising the same finding joins the node's raisers; it never duplicates it."""

    @staticmethod
    def again(node, priority=Priority.P1, confidence=0.9):
        return node.model_copy(update={"priority": priority, "confidence": confidence})

    def test_the_raiser_is_recorded_once(self):
        """The second raiser is added after the author; raising it again changes nothing."""
        node = make_node(author="style")
        once = also_raised(node, "security", self.again(node))
        assert once.raisers == ("style", "security")
        assert also_raised(once, "security", self.again(node)) == once
        assert also_raised(once, "style", self.again(node)) == once

    @pytest.mark.parametrize(
        ("priority", "confidence", "expected"),
        [
            (Priority.P0, 0.5, (Priority.P0, 0.9)),
            (Priority.P1, 0.95, (Priority.P1, 0.95)),
            (Priority.P1, 0.8, (Priority.P1, 0.9)),
            (Priority.P3, 1.0, (Priority.P1, 1.0)),
        ],
        ids=["higher-priority", "same-priority-surer", "same-priority-less-sure", "lower-priority"],
    )
    def test_the_stricter_assessment_is_kept(self, priority, confidence, expected):
        """Each on its own: the most severe priority and the highest confidence of the two."""
        node = make_node(author="style", priority=Priority.P1, confidence=0.9)
        after = also_raised(node, "security", self.again(node, priority, confidence))
        assert (after.priority, after.confidence) == expected

    def test_a_raiser_confirming_changes_nothing(self):
        """Every raiser is one of the node's workers: its confirmation is a no-op."""
        node = also_raised(make_node(author="style"), "security", make_node())
        assert apply(node, Transition(action=Action.CONFIRM, by="security")) == node

    @pytest.mark.parametrize(
        ("confirmers", "status"),
        [(("security",), O), (("security", "verifier"), C)],
        ids=["only-confirmer", "another-peer-left"],
    )
    def test_a_raisers_own_confirmation_is_withdrawn(self, confirmers, status):
        """A confirmation by the new raiser stops counting; others keep the node consensusReady."""
        node = make_node(author="style")
        for peer in confirmers:
            node = apply(node, Transition(action=Action.CONFIRM, by=peer))
        after = also_raised(node, "security", node)
        assert (after.status, after.confirmed_by) == (status, confirmers[1:])

    @pytest.mark.parametrize("start", [R, D], ids=str)
    def test_a_closed_node_is_not_raised_again(self, start):
        """Resolved and dismissed nodes are outside a run's raising: refused clearly."""
        with pytest.raises(LifecycleError, match=f"it is {start.value}"):
            also_raised(make_node(status=start), "security", make_node())
