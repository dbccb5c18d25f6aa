"""Profiles, F-beta and categories: a hand-computed fixture in both formats, and the benchmark's
own documented examples.

The fixture (tests/data/code-review-bench/categorised.json, and legacy.json: the same PRs without
categories) and the judge's matches below, finding → golden comment (None: no match):

    app#1  g0 High bug · g1 Medium security · g2 Low style · g3 Low test_gap
           f0 P1 → g0 · f1 P1 → g0 (duplicate) · f2 P3 → g2 · f3 P2 → None
    app#2  g0 Critical concurrency · g1 Medium perf · g2 Low speculative
           f0 P0 → g0 · f1 P2 → g2 · f2 P3 → None · f3 P3 → None
    lib#3  g0 High api · g1 Low doc_defect
           f0 P2 → g1

All (every category):   app#1 TP 2 (g0 g2) FN 2 (g1 g3) FP 1 (f3)
                        app#2 TP 2 (g0 g2) FN 1 (g1)    FP 2 (f2 f3)
                        lib#3 TP 1 (g1)    FN 1 (g0)    FP 0
    total TP 5 FP 3 FN 4: P 5/8, R 5/9, F1 = 2PR/(P+R) = (50/72)/(85/72) = 10/17,
    F2 = 5PR/(4P+R) = (125/72)/(220/72) = 25/44
Core (no style, no speculative): app#1 g2 and app#2 g2 set aside, with f2 and f1 that matched
    them (neither TP nor FP): TP 3 (app#1 g0, app#2 g0, lib#3 g1) FP 3 FN 4 (app#1 g1 g3,
    app#2 g1, lib#3 g0): P 1/2, R 3/7, F1 = (3/7)/(13/14) = 6/13, F2 = (15/14)/(17/7) = 15/34;
    2 golden comments and 2 findings set aside
Strict (bug security concurrency data api): counted app#1 g0 g1, app#2 g0, lib#3 g0:
    TP 2 (app#1 g0, app#2 g0) FN 2 (app#1 g1, lib#3 g0) FP 3: P 2/5, R 1/2,
    F1 = (2/5)/(9/10) = 4/9, F2 = 1/(21/10) = 10/21; set aside 5 golden comments and 3
    findings (app#1 f2, app#2 f1, lib#3 f0)
Core by category: bug TP 1 · security FN 1 · test_gap FN 1 · concurrency TP 1 · perf FN 1 ·
    doc_defect TP 1 · api FN 1 (TP 3, FN 4: the total's)
Core by severity (FP at the finding's priority): Critical TP 1 · High TP 1 FN 1 ·
    Medium FP 1 FN 2 · Low TP 1 FP 2 FN 1
legacy.json (no categories): every profile counts every golden comment, so all three give the
    All figures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.errors import UsageError
from reviewbot.eval.bench import Severity, load_benchmark, parse_entries
from reviewbot.eval.profiles import Category, Profile, fbeta
from reviewbot.eval.score import Counts, Score, overall, score_pr
from reviewbot.nodes.model import Priority

DATA = Path(__file__).resolve().parents[1] / "data" / "code-review-bench"
P0, P1, P2, P3 = Priority.P0, Priority.P1, Priority.P2, Priority.P3
MATCHES = {
    "https://github.com/octo/app/pull/1": [(P1, 0), (P1, 0), (P3, 2), (P2, None)],
    "https://github.com/octo/app/pull/2": [(P0, 0), (P2, 2), (P3, None), (P3, None)],
    "https://github.com/octo/lib/pull/3": [(P2, 1)],
}


def score(name: str, profile: Profile) -> Score:
    bench = load_benchmark(DATA / name)
    assert bench.problems == ()
    return overall(
        score_pr(
            [c.severity for c in pr.comments],
            [p for p, _ in MATCHES[pr.url]],
            [m for _, m in MATCHES[pr.url]],
            categories=[c.category for c in pr.comments],
            profile=profile,
        )
        for pr in bench.prs
    )


ALL = (Counts(tp=5, fp=3, fn=4), 10 / 17, 25 / 44)
EXPECTED = {
    Profile.ALL: ALL,
    Profile.CORE: (Counts(tp=3, fp=3, fn=4), 6 / 13, 15 / 34),
    Profile.STRICT: (Counts(tp=2, fp=3, fn=2), 4 / 9, 10 / 21),
}


class TestHandComputedFixture:
    @pytest.mark.parametrize("profile", list(Profile), ids=lambda p: p.value)
    def test_categorised_figures(self, profile):
        """Each profile's counts, F1 and F2 are those worked out in the module docstring."""
        counts, f1, f2 = EXPECTED[profile]
        total = score("categorised.json", profile).total
        assert total == counts
        assert (total.f1, total.fbeta(2.0)) == pytest.approx((f1, f2))

    @pytest.mark.parametrize(
        ("profile", "golden", "findings"),
        [(Profile.ALL, 0, 0), (Profile.CORE, 2, 2), (Profile.STRICT, 5, 3)],
        ids=["all", "core", "strict"],
    )
    def test_what_a_profile_sets_aside(self, profile, golden, findings):
        """Golden comments outside the profile, and findings matched only to them, are counted apart."""
        result = score("categorised.json", profile)
        assert (result.golden_outside, result.findings_outside) == (golden, findings)

    def test_core_by_category(self):
        """TP and FN per category; no FP anywhere; the rows add up to the total's TP and FN."""
        by = score("categorised.json", Profile.CORE).by_category
        assert by == {
            "api": Counts(fn=1),
            "bug": Counts(tp=1),
            "concurrency": Counts(tp=1),
            "doc_defect": Counts(tp=1),
            "perf": Counts(fn=1),
            "security": Counts(fn=1),
            "test_gap": Counts(fn=1),
        }

    def test_core_by_severity(self):
        """TP/FN by the golden comment's severity, FP by the finding's priority."""
        by = score("categorised.json", Profile.CORE).by_severity
        assert by == {
            Severity.CRITICAL: Counts(tp=1),
            Severity.HIGH: Counts(tp=1, fn=1),
            Severity.MEDIUM: Counts(fp=1, fn=2),
            Severity.LOW: Counts(tp=1, fp=2, fn=1),
        }

    @pytest.mark.parametrize("profile", list(Profile), ids=lambda p: p.value)
    def test_the_older_format_scores_the_same_under_every_profile(self, profile):
        """Without categories nothing is set aside: the All figures, one uncategorised row."""
        result = score("legacy.json", profile)
        assert result.total == ALL[0]
        assert (result.golden_outside, result.findings_outside) == (0, 0)
        assert result.by_category == {"uncategorised": Counts(tp=5, fn=4)}


class TestFormat:
    def test_the_benchmarks_own_newer_file_reads_its_categories(self):
        """Two entries copied from the benchmark's cal_dot_com.json (see NOTICE.md)."""
        bench = load_benchmark(DATA / "cal_dot_com-excerpt.json")
        assert bench.problems == ()
        assert [[c.category for c in pr.comments] for pr in bench.prs] == [
            [Category.SPECULATIVE, Category.CONCURRENCY],
            [Category.STYLE, Category.DOC_DEFECT, Category.BUG, Category.CONCURRENCY],
        ]

    def test_an_unknown_category_is_one_problem_line(self):
        """A category the benchmark does not define leaves that entry out, with one line."""
        entry = {
            "pr_title": "t",
            "url": "https://github.com/octo/app/pull/9",
            "comments": [{"comment": "c", "severity": "High", "category": "vibes"}],
        }
        bench = parse_entries([entry], origin="bench.json")
        assert bench.prs == ()
        assert len(bench.problems) == 1
        assert "category" in bench.problems[0]

    def test_category_is_read_in_any_case(self):
        """ "Test_Gap" and "test_gap" are the same category, as severities are in any case."""
        entry = json.loads((DATA / "categorised.json").read_text(encoding="utf-8"))[0]
        entry["comments"][3]["category"] = " Test_Gap "
        bench = parse_entries([entry], origin="bench.json")
        assert bench.prs[0].comments[3].category is Category.TEST_GAP

    def test_an_unreadable_file_is_still_a_usage_error(self, tmp_path):
        """The newer format changes nothing about a file that cannot be read."""
        with pytest.raises(UsageError):
            load_benchmark(tmp_path / "missing.json")


class TestBenchmarksDocumentedExamples:
    """Restated from the benchmark (MIT, Copyright (c) 2025 Martian), read offline:
    offline/README.md at 305605d59091cb5e87a33ec2aca63904bfc7ddd1 (its evaluations.json
    example), offline/tests/test_step3.py at 7ccd60b17f4cde023b19963618476c109d95fc56, and
    the F-beta of offline/analysis/score_profiles.py at 01776de2d7bfae59381c4c97f51ec0276374bfd9.
    """

    def test_readme_evaluations_example(self):
        """README: true_positives 3, false_positives 1, false_negatives 2 → precision 0.75, recall 0.6."""
        counts = Counts(tp=3, fp=1, fn=2)
        assert (counts.precision, counts.recall) == pytest.approx((0.75, 0.6))

    def test_step3_matches_and_metrics(self):
        """test_evaluate_review_matches_and_metrics: golden Issue A (High) and Issue B (Low),
        candidates "Issue A fix" (matches A) and "Unrelated" → TP 1, FP 1, FN 1, P 0.5, R 0.5."""
        total = score_pr([Severity.HIGH, Severity.LOW], [P2, P2], [0, None]).total
        assert total == Counts(tp=1, fp=1, fn=1)
        assert (total.precision, total.recall) == pytest.approx((0.5, 0.5))

    def test_step3_no_candidates(self):
        """test_evaluate_review_no_candidates: one golden comment, no candidate → TP 0, FN 1, P = R = 0."""
        total = score_pr([Severity.HIGH], [], []).total
        assert total == Counts(fn=1)
        assert (total.precision, total.recall) == (0.0, 0.0)

    @pytest.mark.parametrize(
        ("precision", "recall", "beta", "expected"),
        [
            (0.5, 0.5, 2.0, 0.5),
            (1.0, 0.5, 2.0, 5 / 9),
            (0.5, 1.0, 2.0, 5 / 6),
            (0.0, 0.0, 2.0, 0.0),
        ],
    )
    def test_fbeta(self, precision, recall, beta, expected):
        """(1 + β²)PR / (β²P + R): at β = 2, P 1 R ½ → 2.5/4.5 = 5/9, P ½ R 1 → 2.5/3 = 5/6;
        recall weighs more; a zero denominator is 0."""
        assert fbeta(precision, recall, beta) == pytest.approx(expected)

    def test_beta_one_is_f1(self):
        """At β = 1 F-beta is F1 (score_profiles computes F1 as _fbeta(p, r, 1.0))."""
        counts = Counts(tp=2, fp=3, fn=2)
        assert counts.fbeta(1.0) == pytest.approx(counts.f1) == pytest.approx(4 / 9)
