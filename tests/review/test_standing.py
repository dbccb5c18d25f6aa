"""Earlier findings in files this run did not see stand in its report and count for its verdict."""

from __future__ import annotations

from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.memory.markers import NodeState, SummaryMarker
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import PriorState, PriorSummary
from reviewbot.nodes import Priority, ReviewNode, Status
from reviewbot.nodes.history import HumanDecision
from reviewbot.nodes.lifecycle import Action, Transition
from reviewbot.review.pipeline import unrepeated_standing, unseen_standing
from reviewbot.sources.comments import Where
from tests.nodes.factories import make_node

UNSEEN = Coverage(
    files_total=2,
    files_in_context=1,
    unseen=(UnseenFile(path="src/big.py", reason="r", remedy="m"),),
    partial=True,
)
FULL = Coverage(files_total=2, files_in_context=2, partial=False)


def prior(*nodes: ReviewNode) -> PriorState:
    # A marker never says "dismissed": a writer's /dismiss reply does (see markers.py).
    dismissal = HumanDecision(
        fingerprint=DISMISSED.fingerprint,
        transition=Transition(action=Action.DISMISS, by="human:carol"),
        comment_id=99,
        login="carol",
    )
    return PriorState(
        nodes=tuple(
            PriorNode(node=n, comment_id=i, where=Where.INLINE, body="")
            for i, n in enumerate(nodes, start=1)
        ),
        decisions=(dismissal,),
    )


P0_BIG = make_node(
    id="review-1", priority=Priority.P0, path="src/big.py", status=Status.CONSENSUS_READY
).model_copy(update={"confirmed_by": ("verifier",)})
P1_SEEN = make_node(id="review-2", path="src/app.py", title="Seen elsewhere")
NOTE = make_node(id="review-3", path=None, title="About the whole PR")
DISMISSED = make_node(id="review-4", path="src/big.py", title="Dismissed")


class TestUnseenStanding:
    def test_findings_in_an_unseen_file_stand_with_their_status(self):
        """The confirmed P0 in src/big.py stands; the finding in a seen file does not."""
        [carried] = unseen_standing(prior(P0_BIG, P1_SEEN, DISMISSED), (), UNSEEN)
        assert (carried.fingerprint, carried.status) == (P0_BIG.fingerprint, Status.CONSENSUS_READY)
        assert carried.id == "abc1234:review-1"
        assert carried.notes[-1] == (
            "carried from the review of abc1234: this run did not see where it is"
        )

    def test_a_note_about_the_whole_pr_stands_while_coverage_is_partial(self):
        """An unanchored finding is about every file: partial coverage cannot clear it."""
        assert [n.title for n in unseen_standing(prior(NOTE), (), UNSEEN)] == [NOTE.title]

    def test_nothing_stands_when_everything_was_seen(self):
        """Full coverage: the reviewers saw every file, so their silence is the answer."""
        assert unseen_standing(prior(P0_BIG, NOTE), (), FULL) == ()

    def test_a_finding_this_run_repeated_is_not_added_twice(self):
        """Matched by fingerprint: the run's own copy is the one in the report."""
        assert unseen_standing(prior(P0_BIG), (P0_BIG,), UNSEEN) == ()

    def test_a_finding_stands_as_the_last_review_judged_it(self):
        """Posted as an open P3; the last review (its summary) judged it a confirmed P0."""
        posted = make_node(id="review-5", priority=Priority.P3, path="src/big.py", title="Eval")
        judged = NodeState(
            fingerprint=posted.fingerprint,
            raisers=("review",),
            status=Status.CONSENSUS_READY,
            confirmed_by=("verifier",),
            priority=Priority.P0,
            confidence=0.95,
        )
        marker = SummaryMarker(head_sha="b" * 40, verdict="block", nodes=(judged,))
        state = PriorState(
            nodes=(PriorNode(node=posted, comment_id=1, where=Where.INLINE, body=""),),
            summary=PriorSummary(comment_id=2, marker=marker),
        )
        [standing] = unseen_standing(state, (), UNSEEN)
        assert (standing.priority, standing.status) == (Priority.P0, Status.CONSENSUS_READY)
        assert standing.confirmed_by == ("verifier",)


class TestUnrepeatedStanding:
    HEAD = "abc1234" + "0" * 33  # the head P0_BIG and the others were found at

    def test_a_finding_of_this_head_that_was_not_repeated_stands(self):
        """No commit in between: the confirmed P0 stands; the dismissed one does not."""
        [carried] = unrepeated_standing(prior(P0_BIG, DISMISSED), (), head_sha=self.HEAD)
        assert (carried.fingerprint, carried.status) == (P0_BIG.fingerprint, Status.CONSENSUS_READY)
        assert carried.id == "abc1234:review-1"
        assert carried.notes[-1] == (
            "carried from the review of abc1234: the same head again: no commit can have fixed it"
        )

    def test_on_a_new_head_the_reviewers_silence_is_the_answer(self):
        """Found at another head: resolution decides, nothing stands here."""
        assert unrepeated_standing(prior(P0_BIG, NOTE), (), head_sha="f" * 40) == ()

    def test_a_finding_this_run_repeated_is_not_added_twice(self):
        assert unrepeated_standing(prior(P0_BIG), (P0_BIG,), head_sha=self.HEAD) == ()
