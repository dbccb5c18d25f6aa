"""The verdict: lattice, fold rules, node policy and finalize."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.nodes import Priority, Status
from reviewbot.verdict import (
    AxisResult,
    Consequence,
    NodePolicy,
    NodeRule,
    Outcome,
    Source,
    Verdict,
    axis_outcome,
    default_policy,
    finalize,
    fold_axes,
    fold_nodes,
    strictest,
)
from tests.nodes.factories import make_node

SHIP, HOLD, BLOCK = Verdict.SHIP, Verdict.HOLD, Verdict.BLOCK


def axis(outcome: Outcome, *, gated: bool = True, name: str = "review") -> AxisResult:
    return AxisResult(name=name, gated=gated, outcome=outcome, detail="")


FOLD_RULES = [
    ("gated passed", [axis(Outcome.PASSED)], SHIP),
    ("gated failed", [axis(Outcome.FAILED)], BLOCK),
    ("gated not_run", [axis(Outcome.NOT_RUN)], HOLD),
    (
        "non-gated failed",
        [axis(Outcome.PASSED), axis(Outcome.FAILED, gated=False, name="ci")],
        SHIP,
    ),
    (
        "non-gated not_run",
        [axis(Outcome.PASSED), axis(Outcome.NOT_RUN, gated=False, name="ci")],
        SHIP,
    ),
    ("zero axes", [], HOLD),
    ("only non-gated axes", [axis(Outcome.PASSED, gated=False)], SHIP),
    ("fail beats not_run", [axis(Outcome.NOT_RUN), axis(Outcome.FAILED, name="security")], BLOCK),
]


class TestLattice:
    def test_order(self):
        """Ship < Hold < Block."""
        assert SHIP < HOLD < BLOCK

    def test_strictest_is_max_with_a_floor(self):
        """Folding takes the maximum and never goes below the floor."""
        assert strictest([SHIP, HOLD]) is HOLD
        assert strictest([], floor=HOLD) is HOLD
        assert strictest([SHIP], floor=HOLD) is HOLD

    @pytest.mark.parametrize(
        ("text", "verdict"), [("ship", SHIP), ("Hold", HOLD), (" BLOCK ", BLOCK)]
    )
    def test_parse(self, text, verdict):
        """Labels parse case-insensitively."""
        assert Verdict.parse(text) is verdict
        assert verdict.label == text.strip().lower()

    def test_parse_refuses_unknown_labels(self):
        """An unknown label is a ValueError naming the choices."""
        with pytest.raises(ValueError, match="ship, hold or block"):
            Verdict.parse("approve")


class TestFoldAxes:
    @pytest.mark.parametrize(
        ("axes", "expected"), [r[1:] for r in FOLD_RULES], ids=[r[0] for r in FOLD_RULES]
    )
    def test_rules(self, axes, expected):
        """Each rule of the gated-axis fold, one row each."""
        assert fold_axes(axes).verdict is expected

    def test_reasons_name_the_deciding_axis(self):
        """The decision says which axis decided."""
        decision = fold_axes([axis(Outcome.PASSED), axis(Outcome.FAILED, name="security")])
        assert [(r.source, r.name) for r in decision.deciding] == [(Source.AXIS, "security")]

    def test_zero_axes_reason(self):
        """Zero axes holds, and says so."""
        assert "absence of evidence" in fold_axes([]).deciding[0].text


NODE_POLICY = [
    ("consensusReady P0 confident", Status.CONSENSUS_READY, Priority.P0, 0.9, BLOCK),
    ("consensusReady P0 below minimum", Status.CONSENSUS_READY, Priority.P0, 0.5, HOLD),
    ("open P0", Status.OPEN, Priority.P0, 0.99, HOLD),
    ("consensusReady P1", Status.CONSENSUS_READY, Priority.P1, 0.9, HOLD),
    ("open P1", Status.OPEN, Priority.P1, 0.9, SHIP),
    ("consensusReady P2", Status.CONSENSUS_READY, Priority.P2, 1.0, SHIP),
    ("resolved P0", Status.RESOLVED, Priority.P0, 1.0, SHIP),
    ("dismissed P0", Status.DISMISSED, Priority.P0, 1.0, SHIP),
]


class TestNodePolicy:
    @pytest.mark.parametrize(
        ("status", "priority", "confidence", "expected"),
        [r[1:] for r in NODE_POLICY],
        ids=[r[0] for r in NODE_POLICY],
    )
    def test_default_policy(self, status, priority, confidence, expected):
        """The default node policy, one row per case."""
        node = make_node(status=status, priority=priority, confidence=confidence)
        assert fold_nodes([node], default_policy(0.7)).verdict is expected

    def test_policy_is_data(self):
        """A custom rule set changes the outcome without code changes."""
        strict = NodePolicy(
            rules=(
                NodeRule(
                    status=Status.OPEN, priorities=frozenset(Priority), effect=Consequence.FAIL
                ),
            )
        )
        assert fold_nodes([make_node(priority=Priority.P3)], strict).verdict is BLOCK

    def test_nodes_of_a_non_gated_axis_are_reported_only(self):
        """A finding by a non-gated reviewer does not move the verdict."""
        node = make_node(author="style", status=Status.CONSENSUS_READY, priority=Priority.P0)
        gated_elsewhere = [axis(Outcome.PASSED, gated=False, name="style")]
        assert fold_nodes([node], default_policy(), gated_elsewhere).verdict is SHIP

    @pytest.mark.parametrize(
        ("raisers", "expected"),
        [
            (("style",), SHIP),
            (("style", "security"), BLOCK),
            (("security", "style"), BLOCK),
            (("style", "lint"), SHIP),
        ],
        ids=["ungated-only", "ungated-first", "gated-first", "two-ungated"],
    )
    def test_a_node_raised_by_a_gated_reviewer_folds(self, raisers, expected):
        """A confirmed P0 moves the verdict when any of its raisers is gated, whoever came first."""
        author, *others = raisers
        node = make_node(author=author, status=Status.CONSENSUS_READY, priority=Priority.P0)
        node = node.model_copy(update={"also_raised_by": tuple(others)})
        axes = [
            axis(Outcome.PASSED),
            axis(Outcome.FAILED, gated=False, name="style"),
            axis(Outcome.FAILED, gated=False, name="lint"),
            axis(Outcome.FAILED, name="security"),
        ]
        assert fold_nodes([node], default_policy(), axes).verdict is expected

    def test_axis_outcome(self):
        """A reviewer fails its axis only with a node whose effect is fail."""
        ready_p0 = make_node(status=Status.CONSENSUS_READY, priority=Priority.P0)
        assert axis_outcome([ready_p0], default_policy()) is Outcome.FAILED
        assert axis_outcome([make_node(priority=Priority.P0)], default_policy()) is Outcome.PASSED


class TestFinalize:
    def test_agent_can_make_it_stricter(self):
        """A proposal of Block over passing axes is Block."""
        assert (
            finalize(BLOCK, [axis(Outcome.PASSED)], [], default_policy(), coverage_gap=None).verdict
            is BLOCK
        )

    def test_agent_cannot_loosen(self):
        """A proposal of Ship over a failed gated axis is Block."""
        assert (
            finalize(SHIP, [axis(Outcome.FAILED)], [], default_policy(), coverage_gap=None).verdict
            is BLOCK
        )

    def test_no_proposal(self):
        """The harness finalizes from the axes when the agent never did."""
        assert (
            finalize(None, [axis(Outcome.PASSED)], [], default_policy(), coverage_gap=None).verdict
            is SHIP
        )
        assert finalize(None, [], [], default_policy(), coverage_gap=None).verdict is HOLD


class TestPartialCoverage:
    """A gated axis that did not fully run is at least Hold: coverage is part of a reviewer axis."""

    GAP = "coverage is partial: 1 of 2 changed file(s) unseen"

    def test_a_passing_reviewer_axis_is_partial_and_holds(self):
        """Passed on a partial coverage: the axis is `partial`, the verdict Hold, saying why."""
        decision = finalize(
            None, [axis(Outcome.PASSED)], [], default_policy(), coverage_gap=self.GAP
        )
        assert decision.verdict is HOLD
        (judged,) = decision.axes
        assert judged.outcome is Outcome.PARTIAL
        assert self.GAP in judged.detail
        assert [r.text for r in decision.deciding] == [
            f"gated axis `review` did not see the whole PR: {self.GAP}"
        ]

    def test_full_coverage_ships(self):
        """No gap: the axis passes and the verdict is Ship, the axes as given."""
        decision = finalize(None, [axis(Outcome.PASSED)], [], default_policy(), coverage_gap=None)
        assert decision.verdict is SHIP
        assert [a.outcome for a in decision.axes] == [Outcome.PASSED]

    def test_a_failed_axis_stays_failed(self):
        """A gap does not soften what was found: a failed axis still blocks."""
        decision = finalize(
            None, [axis(Outcome.FAILED)], [], default_policy(), coverage_gap=self.GAP
        )
        assert decision.verdict is BLOCK
        assert decision.axes[0].outcome is Outcome.FAILED

    def test_the_ci_axis_is_not_the_reviewers_coverage(self):
        """The gap is the reviewers': a passing gated `ci` axis stays passed."""
        axes = [axis(Outcome.PASSED), axis(Outcome.PASSED, name="ci")]
        decision = finalize(None, axes, [], default_policy(), coverage_gap=self.GAP)
        assert [a.outcome for a in decision.axes] == [Outcome.PARTIAL, Outcome.PASSED]

    def test_a_non_gated_reviewer_is_reported_partial_only(self):
        """A non-gated focused reviewer on a partial coverage is `partial`, and moves nothing."""
        axes = [axis(Outcome.PASSED), axis(Outcome.PASSED, gated=False, name="style")]
        decision = finalize(None, axes, [], default_policy(), coverage_gap=self.GAP)
        assert [a.outcome for a in decision.axes] == [Outcome.PARTIAL, Outcome.PARTIAL]
        assert [r.name for r in decision.reasons] == ["review"]

    def test_a_gated_partial_axis_holds_in_fold_axes(self):
        """`partial` folds like `not_run`: at least Hold when gated, nothing otherwise."""
        assert fold_axes([axis(Outcome.PARTIAL)]).verdict is HOLD
        assert fold_axes([axis(Outcome.PASSED), axis(Outcome.PARTIAL, gated=False)]).verdict is SHIP


verdicts = st.sampled_from(list(Verdict))
axis_results = st.builds(
    AxisResult,
    name=st.sampled_from(["review", "security", "ci"]),
    gated=st.booleans(),
    outcome=st.sampled_from(list(Outcome)),
    detail=st.just(""),
)
nodes = st.builds(
    make_node,
    priority=st.sampled_from(list(Priority)),
    status=st.sampled_from(list(Status)),
    confidence=st.floats(0, 1),
    author=st.sampled_from(["review", "security", "ci"]),
)


class TestFoldProperties:
    @given(st.lists(axis_results, min_size=1), axis_results, st.randoms())
    def test_adding_an_axis_never_lowers_the_verdict(self, axes, extra, rnd):
        """For any axes in any order, one more result never loosens the verdict.

        The empty fold is the one exception by design: zero axes is Hold (no evidence),
        and the first passing gate is what lets a review ship at all.
        """
        before = fold_axes(axes).verdict
        shuffled = [*axes, extra]
        rnd.shuffle(shuffled)
        assert fold_axes(shuffled).verdict >= before

    @given(st.lists(axis_results), st.randoms())
    def test_fold_is_order_independent(self, axes, rnd):
        """The fold does not depend on the order of the axes."""
        shuffled = list(axes)
        rnd.shuffle(shuffled)
        assert fold_axes(shuffled).verdict is fold_axes(axes).verdict

    @given(
        st.none() | verdicts,
        st.lists(axis_results),
        st.lists(nodes, max_size=5),
        st.none() | st.just("coverage is partial"),
    )
    def test_finalize_is_never_looser_than_any_input(self, proposed, axes, ns, gap):
        """finalize ≥ the proposal, ≥ the axis fold, ≥ the node fold, with or without a gap."""
        policy = default_policy()
        result = finalize(proposed, axes, ns, policy, coverage_gap=gap).verdict
        assert result >= (proposed or SHIP)
        assert result >= fold_axes(axes).verdict
        assert result >= fold_nodes(ns, policy, axes).verdict
        assert result >= finalize(proposed, axes, ns, policy, coverage_gap=None).verdict


class TestStandingFindings:
    """A reviewer axis is judged from every finding standing on it, raised in this run or not."""

    def ran(self, outcome: Outcome = Outcome.PASSED, detail: str = "no findings") -> AxisResult:
        return AxisResult(name="review", gated=True, outcome=outcome, detail=detail)

    def test_a_finding_that_stands_without_being_raised_is_counted(self):
        """The panel saw no finding; an earlier one stands: the row says so, never "no findings"."""
        standing = make_node(id="abc1234:review-1", priority=Priority.P0)
        decision = finalize(None, [self.ran()], [standing], default_policy(), coverage_gap=None)
        assert decision.verdict is HOLD
        [judged] = decision.axes
        assert (judged.outcome, judged.detail) == (
            Outcome.PASSED,
            "1 finding(s), 0 confirmed by a peer",
        )

    def test_a_confirmed_p0_that_stands_fails_its_axis(self):
        """The verdict blocks on it, so its axis is failed, not passed."""
        confirmed = make_node(priority=Priority.P0, status=Status.CONSENSUS_READY)
        decision = finalize(None, [self.ran()], [confirmed], default_policy(), coverage_gap=None)
        assert decision.verdict is BLOCK
        assert decision.axes[0].outcome is Outcome.FAILED

    def test_re_judging_never_loosens_a_failed_axis(self):
        """A failed axis stays failed whatever its findings say now."""
        decision = finalize(
            None, [self.ran(Outcome.FAILED)], [make_node()], default_policy(), coverage_gap=None
        )
        assert decision.axes[0].outcome is Outcome.FAILED

    def test_closed_findings_are_counted_apart(self):
        """A dismissed finding no longer stands: the detail says it is dismissed."""
        dismissed = make_node(status=Status.DISMISSED)
        decision = finalize(None, [self.ran()], [dismissed], default_policy(), coverage_gap=None)
        assert decision.axes[0].detail == "no standing findings; 1 dismissed"

    def test_an_axis_no_finding_names_keeps_its_detail(self):
        """The `ci` axis (no reviewer raises under its name) and a stopped reviewer are as given."""
        ci = AxisResult(name="ci", gated=True, outcome=Outcome.PASSED, detail="2 checks passed")
        stopped = self.ran(Outcome.NOT_RUN, detail="timeout")
        decision = finalize(None, [ci, stopped], [make_node()], default_policy(), coverage_gap=None)
        assert decision.axes == (ci, stopped)
