"""The review-node state machine: every transition, legal and illegal."""

from __future__ import annotations

import pytest

from reviewbot.errors import LifecycleError
from reviewbot.nodes import Action, Event, Status, apply
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
        assert apply(node, Event(action=action, by=by, reason="because")).status is end

    @pytest.mark.parametrize(("start", "action"), ILLEGAL, ids=[f"{s}-{a}" for s, a in ILLEGAL])
    def test_illegal_moves_are_refused_clearly(self, start, action):
        """An illegal move raises LifecycleError naming the node, the move and the state."""
        node = make_node(status=start)
        with pytest.raises(
            LifecycleError,
            match=rf"cannot {action.value} review node review-1: it is {start.value}",
        ):
            apply(node, Event(action=action, by="someone"))


class TestConsensus:
    def test_author_confirming_its_own_node_changes_nothing(self):
        """A worker never confirms its own work: status and confirmed_by stay as they were."""
        node = make_node(author="review")
        assert apply(node, Event(action=Action.CONFIRM, by="review")) == node

    def test_peer_confirmation_is_recorded(self):
        """A peer's confirmation moves the node and names the peer."""
        node = apply(make_node(), Event(action=Action.CONFIRM, by="verifier"))
        assert node.status is C
        assert node.confirmed_by == ("verifier",)

    def test_confirming_twice_records_the_peer_once(self):
        """The same peer confirming again adds nothing."""
        once = apply(make_node(), Event(action=Action.CONFIRM, by="verifier"))
        assert apply(once, Event(action=Action.CONFIRM, by="verifier")) == once

    def test_disputes_are_kept(self):
        """A dispute keeps the node open and keeps the reason."""
        node = apply(
            make_node(), Event(action=Action.DISPUTE, by="verifier", reason="the guard covers it")
        )
        assert node.status is O
        assert [(d.by, d.reason) for d in node.disputes] == [("verifier", "the guard covers it")]
