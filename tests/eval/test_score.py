"""score_pr and overall: the public methodology's counting, duplicates collapsed, rows that add up."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.eval.bench import Severity
from reviewbot.eval.score import Counts, overall, score_pr
from reviewbot.nodes.model import Priority

C, H, M, L = Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW
P0, P1, P2, P3 = Priority.P0, Priority.P1, Priority.P2, Priority.P3


class TestCounts:
    def test_ratios(self):
        """TP 2, FP 2, FN 1: precision 2/4, recall 2/3, F1 2·(1/2)(2/3)/(1/2 + 2/3) = 4/7."""
        c = Counts(tp=2, fp=2, fn=1)
        assert (c.precision, c.recall, c.f1) == pytest.approx((0.5, 2 / 3, 4 / 7))

    def test_empty_denominators_are_zero(self):
        """No findings and no golden comments: every ratio is 0, as the public scripts report."""
        c = Counts()
        assert (c.precision, c.recall, c.f1) == (0.0, 0.0, 0.0)


class TestScorePR:
    def test_duplicates_of_one_golden_comment_count_once(self):
        """Three findings on golden #0: one TP, no FP; the unmatched golden #1 is an FN."""
        score = score_pr([C, M], [P2, P2, P3], [0, 0, 0])
        assert score.total == Counts(tp=1, fp=0, fn=1)
        assert score.total.precision == 1.0

    def test_a_pr_without_findings_misses_every_golden_comment(self):
        """No findings: every golden comment is an FN; precision and recall are 0."""
        score = score_pr([C, M], [], [])
        assert score.total == Counts(tp=0, fp=0, fn=2)
        assert (score.total.precision, score.total.recall) == (0.0, 0.0)

    def test_unmatched_findings_are_false_positives_at_their_priority(self):
        """An FP lands in the severity of its own priority: P0 Critical … P3 Low."""
        score = score_pr([H], [P0, P1, P2, P3], [None, None, None, None])
        assert {s: c.fp for s, c in score.by_severity.items()} == {C: 1, H: 1, M: 1, L: 1}
        assert score.by_severity[H].fn == 1

    def test_a_match_takes_the_golden_comments_severity(self):
        """A P3 finding matching a Critical golden comment is a Critical TP."""
        score = score_pr([C], [P3], [0])
        assert score.by_severity[C] == Counts(tp=1)
        assert score.by_severity[L] == Counts()

    @pytest.mark.parametrize(
        ("matches", "error"),
        [([0], "1 matches for 2 findings"), ([0, 5], "outside the 1 golden")],
        ids=["count", "range"],
    )
    def test_refuses_matches_that_do_not_fit(self, matches, error):
        """Matches must be one per finding and name an existing golden comment."""
        with pytest.raises(ValueError, match=error):
            score_pr([C], [P1, P2], matches)


@st.composite
def prs(draw):
    golden = draw(st.lists(st.sampled_from(list(Severity)), min_size=1, max_size=6))
    findings = draw(st.lists(st.sampled_from(list(Priority)), max_size=8))
    matches = draw(
        st.lists(
            st.none() | st.integers(0, len(golden) - 1),
            min_size=len(findings),
            max_size=len(findings),
        )
    )
    return golden, findings, matches


class TestProperties:
    @given(st.lists(prs(), max_size=5))
    def test_severity_rows_add_up_to_the_total(self, cases):
        """Every TP, FP and FN lands in exactly one severity, for any PRs."""
        score = overall(score_pr(*case) for case in cases)
        for field in ("tp", "fp", "fn"):
            rows = sum(getattr(c, field) for c in score.by_severity.values())
            assert rows == getattr(score.total, field)

    @given(prs())
    def test_repeating_a_matched_finding_changes_nothing(self, case):
        """A duplicate of a matched finding (same golden comment) leaves every figure as it was."""
        golden, findings, matches = case
        score = score_pr(golden, findings, matches)
        matched = [i for i, m in enumerate(matches) if m is not None]
        if matched:
            i = matched[0]
            again = score_pr(golden, [*findings, findings[i]], [*matches, matches[i]])
            assert again == score

    @given(prs())
    def test_tp_plus_fn_is_the_golden_count(self, case):
        """Each golden comment is either found or missed."""
        golden, findings, matches = case
        total = score_pr(golden, findings, matches).total
        assert total.tp + total.fn == len(golden)
        assert total.fp == sum(m is None for m in matches)
