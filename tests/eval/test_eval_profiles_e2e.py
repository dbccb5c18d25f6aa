"""`reviewbot eval` on the newer golden format, end to end: the profile, β, the category table,
rescoring from the cache, and findings the review would post in its body.

The benchmark of tests/eval/world.py with categories added (hand computation, default Core, β 2):

    A  #1 Critical security  ← N1, N2 (duplicates)     #2 Medium bug  ← none      N3 (P3) FP
    B  #1 High bug ← M1      #2 Low style ← M2          #3 High bug ← none        M3, M4 FP

Core leaves style out: B #2 and M2 (matched only to it) are set aside, neither TP nor FP.
    TP 2 (A #1, B #1)   FP 3 (N3, M3, M4)   FN 2 (A #2, B #3)
    precision 2/5, recall 1/2, F1 = (2/5)/(9/10) = 4/9, F2 = 5PR/(4P+R) = 1/(21/10) = 10/21
    by category: bug TP 1 FN 2 · security TP 1
Under All (β 1) from the cache: TP 3 FP 3 FN 2 (B #2 is a TP again), F1 = Fβ = 6/11.
"""

from __future__ import annotations

import copy
import json

import pytest

from tests.eval.world import (
    BENCH,
    FINDINGS_A,
    JUDGED_A,
    URL_A,
    bench_world,
    eval_args,
    judge_reply,
    script_a,
    script_b,
    write_bench,
)
from tests.fakes.messages_api import reply, text, tool_use

CATEGORIES = {
    URL_A: ["security", "bug"],
    "https://github.com/octo/lib/pull/3": ["bug", "style", "bug"],
}


def categorised() -> list[dict]:
    bench = copy.deepcopy(BENCH)
    for entry in bench:
        for comment, category in zip(entry["comments"], CATEGORIES[entry["url"]], strict=True):
            comment["category"] = category
    return bench


def figures(total: dict) -> tuple:
    return (
        total["tp"],
        total["fp"],
        total["fn"],
        total["precision"],
        total["recall"],
        total["f1"],
        total["fbeta"],
    )


class TestProfiles:
    def test_core_by_default_then_all_from_the_cache(self, tmp_path):
        """Run 1: Core, β 2, as worked out above. Run 2: --resume --profile all --beta 1 rescores
        the cached matches with no request at all."""
        with bench_world(tmp_path) as world:
            bench, cache = write_bench(tmp_path / "bench.json", categorised()), tmp_path / "cache"
            world.model.add(*script_a(), *script_b())
            first = world.run(eval_args(bench, tmp_path / "1.json", cache))
            assert first.returncode == 0, first.stderr
            core = json.loads((tmp_path / "1.json").read_text(encoding="utf-8"))
            assert (core["profile"], core["beta"]) == ("core", 2.0)
            assert figures(core["score"]["total"]) == pytest.approx(
                (2, 3, 2, 2 / 5, 1 / 2, 4 / 9, 10 / 21)
            )
            assert (core["score"]["golden_outside"], core["score"]["findings_outside"]) == (1, 1)
            by = {c: (v["tp"], v["fn"]) for c, v in core["score"]["by_category"].items()}
            assert by == {"bug": (1, 2), "security": (1, 0)}
            assert "By category (core; an FP has none)" in first.stdout
            assert "F2" in first.stdout
            second = world.run(
                eval_args(
                    bench, tmp_path / "2.json", cache, "--resume", "--profile", "all", "--beta", "1"
                )
            )
            assert second.returncode == 0, second.stderr
            assert second.model == ()
            every = json.loads((tmp_path / "2.json").read_text(encoding="utf-8"))
            assert figures(every["score"]["total"]) == pytest.approx(
                (3, 3, 2, 0.5, 0.6, 6 / 11, 6 / 11)
            )
            assert every["score"]["golden_outside"] == 0

    def test_a_bad_profile_or_beta_is_a_usage_error(self, tmp_path):
        """--profile outside strict|core|all, or β not a finite number > 0: exit 2 before any request."""
        with bench_world(tmp_path) as world:
            bench = write_bench(tmp_path / "bench.json", categorised())
            for extra in (
                ("--profile", "loose"),
                ("--beta", "0"),
                ("--beta", "nan"),
                ("--beta", "inf"),
            ):
                run = world.run(eval_args(bench, tmp_path / "o.json", tmp_path / "c", *extra))
                assert run.returncode == 2, run.stderr
                assert run.model == ()


class TestReviewBody:
    def test_a_finding_for_the_review_body_counts_like_an_inline_one(self, tmp_path):
        """A finding about the whole PR (no anchor) would be posted in the review body: it is one
        candidate, judged and matched like the inline ones, and recorded as placed in the body.
        PR A: #1 ← N1, N2; #2 ← the body finding; N3 FP → TP 2, FP 1, FN 0."""
        whole_pr = {
            "kind": "bug",
            "priority": "P2",
            "confidence": 0.9,
            "title": "pay() accepts negative amounts",
            "body": "Nothing in the PR rejects a negative amount.",
        }
        answers = {**JUDGED_A, whole_pr["title"]: 2}
        findings = [*FINDINGS_A, whole_pr]
        script = [
            reply(*(tool_use("add_review_node", f) for f in findings)),
            reply(text("Reviewed.")),
            *(judge_reply(answers) for _ in findings),
        ]
        assert len(script) == len(script_a()) + 1
        with bench_world(tmp_path) as world:
            bench = write_bench(tmp_path / "bench.json", categorised()[:1])
            world.model.add(*script)
            run = world.run(eval_args(bench, tmp_path / "r.json", tmp_path / "cache"))
            assert run.returncode == 0, run.stderr
            result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
            pr = result["prs"][0]
            placed = {f["title"]: f["placement"] for f in pr["findings"]}
            assert placed[whole_pr["title"]] == "body"
            assert {placed[f["title"]] for f in FINDINGS_A} == {"inline"}
            total = pr["score"]["total"]
            assert (total["tp"], total["fp"], total["fn"]) == (2, 1, 0)
