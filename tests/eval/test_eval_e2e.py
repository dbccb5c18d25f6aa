"""`reviewbot eval` end to end: two PRs on the loopback GitHub fake, the Messages API fake playing
the reviewers, the verifier and the judge, the real CLI in a subprocess.

The expected figures are computed by hand below from what the script makes the judge answer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import pytest

from reviewbot.agent.messages import TokenUsage
from reviewbot.agent.pricing import cost_of
from reviewbot.config.file import DEFAULT_MODEL
from tests.eval.world import (
    BENCH,
    FINDINGS_A,
    FINDINGS_B,
    JUDGE_TOOL,
    URL_A,
    URL_B,
    bench_world,
    eval_args,
    script_a,
    script_b,
    write_bench,
)
from tests.fakes.runs import Run
from tests.fakes.world import World

JUDGE_MODEL = "claude-haiku-4-5"

# ---- the arithmetic, by hand --------------------------------------------------------------
# PR A: golden #1 (Critical) matched by N1 and N2 — duplicates, counted once — #2 (Medium)
#   matched by none; N3 (P3) matches nothing.        TP 1, FP 1, FN 1
#   precision = 1 / (1 + 1) = 0.5    recall = 1 / (1 + 1) = 0.5    F1 = 2·0.5·0.5 / 1.0 = 0.5
# PR B: #1 (High) by M1, #2 (Low) by M2, #3 (High) by none; M3 (P2), M4 (P3) match nothing.
#   TP 2, FP 2, FN 1
#   precision = 2 / 4 = 0.5    recall = 2 / 3    F1 = 2·0.5·(2/3) / (0.5 + 2/3) = 4/7
# Overall (counts summed): TP 3, FP 3, FN 2
#   precision = 3 / 6 = 0.5    recall = 3 / 5 = 0.6    F1 = 2·0.5·0.6 / 1.1 = 6/11
# By severity (TP/FN by the golden comment, FP by the finding's priority P0 C, P1 H, P2 M, P3 L):
#   Critical TP 1 FP 0 FN 0: P 1,   R 1,   F1 1
#   High     TP 1 FP 0 FN 1: P 1,   R 1/2, F1 2·1·0.5/1.5 = 2/3
#   Medium   TP 0 FP 1 FN 1: P 0,   R 0,   F1 0            (FP: M3, P2; FN: A #2)
#   Low      TP 1 FP 2 FN 0: P 1/3, R 1,   F1 2·(1/3)·1/(4/3) = 1/2   (FP: N3, M4, both P3)
# Without collapsing N1 and N2, PR A's precision would be 2/3 (or 1/3 counting N2 as an FP).
# F2 (the default β = 2) = 5PR / (4P + R):
#   A 5·0.25/2.5 = 1/2    B 5·(1/3)/(8/3) = 5/8    overall 5·0.3/2.6 = 15/26
#   Critical 1    High 5·0.5/4.5 = 5/9    Medium 0    Low 5·(1/3)/(7/3) = 5/7
# The golden comments have no category (the older format): every profile counts them all.
PR_A = {"tp": 1, "fp": 1, "fn": 1, "precision": 0.5, "recall": 0.5, "f1": 0.5, "fbeta": 0.5}
PR_B = {"tp": 2, "fp": 2, "fn": 1, "precision": 0.5, "recall": 2 / 3, "f1": 4 / 7, "fbeta": 5 / 8}
TOTAL = {"tp": 3, "fp": 3, "fn": 2, "precision": 0.5, "recall": 0.6, "f1": 6 / 11, "fbeta": 15 / 26}
BY_SEVERITY = {
    "Critical": {
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "fbeta": 1.0,
    },
    "High": {
        "tp": 1,
        "fp": 0,
        "fn": 1,
        "precision": 1.0,
        "recall": 0.5,
        "f1": 2 / 3,
        "fbeta": 5 / 9,
    },
    "Medium": {"tp": 0, "fp": 1, "fn": 1, "precision": 0.0, "recall": 0.0, "f1": 0.0, "fbeta": 0.0},
    "Low": {
        "tp": 1,
        "fp": 2,
        "fn": 0,
        "precision": 1 / 3,
        "recall": 1.0,
        "f1": 0.5,
        "fbeta": 5 / 7,
    },
}
REVIEWER_REQUESTS = 2 + 3  # A: two reviewer turns; B: two reviewer turns, one verifier turn
JUDGE_REQUESTS = len(FINDINGS_A) + len(FINDINGS_B)


def approx(expected: dict[str, float]) -> dict[str, Any]:
    return {k: pytest.approx(v) for k, v in expected.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    run: Run
    result: dict[str, Any]


@pytest.fixture(scope="module")
def flow(tmp_path_factory: pytest.TempPathFactory):
    """One eval of the two-PR benchmark, reviewers on the default model, judge on haiku."""
    root = tmp_path_factory.mktemp("eval")
    with bench_world(root) as world:
        world.model.add(*script_a(), *script_b())
        bench = write_bench(root / "bench.json", BENCH)
        out = root / "result.json"
        run = world.run(eval_args(bench, out, root / "cache", "--judge-model", JUDGE_MODEL))
        result = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        yield Flow(world=world, run=run, result=result)


def pr(flow: Flow, url: str) -> dict[str, Any]:
    return next(p for p in flow.result["prs"] if p["url"] == url)


class TestScores:
    def test_exits_zero_when_every_pr_is_scored(self, flow):
        """Both PRs reviewed, judged and scored: exit 0, nothing failed, no traceback."""
        assert flow.run.returncode == 0, flow.run.stderr
        assert flow.result["failed"] == []
        assert "Traceback" not in flow.run.stderr

    @pytest.mark.parametrize(("url", "expected"), [(URL_A, PR_A), (URL_B, PR_B)], ids=["A", "B"])
    def test_per_pr_figures_are_the_hand_computed_ones(self, flow, url, expected):
        """Each PR's TP/FP/FN, precision, recall and F1 are those worked out above."""
        assert pr(flow, url)["score"]["total"] == approx(expected)

    def test_overall_figures_sum_the_counts(self, flow):
        """Overall: TP 3, FP 3, FN 2 → precision 0.5, recall 0.6, F1 6/11."""
        assert flow.result["score"]["total"] == approx(TOTAL)

    def test_by_severity_figures(self, flow):
        """Each severity's figures are those worked out above, and the rows add up to the total."""
        by = flow.result["score"]["by_severity"]
        assert {s: by[s] for s in BY_SEVERITY} == {s: approx(v) for s, v in BY_SEVERITY.items()}
        for field in ("tp", "fp", "fn"):
            assert sum(row[field] for row in by.values()) == TOTAL[field]

    def test_duplicates_are_recorded_against_the_one_golden_comment(self, flow):
        """Golden #1 of PR A lists both findings that matched it; #2 lists none."""
        golden = pr(flow, URL_A)["golden"]
        assert [g["matched_by"] for g in golden] == [["review-1", "review-2"], []]

    def test_the_terminal_table_shows_the_figures(self, flow):
        """stdout carries the PR table, the severity table and the usage table."""
        out = flow.run.stdout
        assert "octo/app#7" in out
        assert "octo/lib#3" in out
        assert "54.5%" in out  # overall F1, 6/11
        assert "By severity" in out
        assert "Tokens and cost" in out

    def test_progress_has_one_line_per_pr(self, flow):
        """stderr says which PR is reviewed and what it scored, in order."""
        lines = [line for line in flow.run.stderr.splitlines() if line.startswith(("…", "✓"))]
        assert [line.split(" ")[0] for line in lines] == ["…", "✓", "…", "✓"]
        assert "[1/2] octo/app#7" in lines[1]
        assert "[2/2] octo/lib#3" in lines[3]


class TestDryRun:
    def test_nothing_is_written_to_github(self, flow):
        """The reviews are dry runs: the fake GitHub received no write at all."""
        assert flow.run.writes() == []
        assert flow.run.calls("GET", "/pulls/7")
        assert flow.run.calls("GET", "/pulls/3")

    def test_the_reviewers_ran_the_real_pipeline(self, flow):
        """Reviewer and verifier requests carry the review tools; the verifier confirmed B's P1."""
        reviewers = [r for r in flow.run.model if r["model"] == DEFAULT_MODEL]
        assert len(reviewers) == REVIEWER_REQUESTS
        assert all(
            "add_review_node" in {t["name"] for t in r["tools"]}
            or "confirm_review_node" in {t["name"] for t in r["tools"]}
            for r in reviewers
        )
        finding = pr(flow, URL_B)["findings"][0]
        assert (finding["id"], finding["priority"], finding["golden"]) == ("review-1", "P1", 0)


class TestJudge:
    def judge_requests(self, flow):
        return [r for r in flow.run.model if r["model"] == JUDGE_MODEL]

    def test_one_request_per_finding_on_the_judge_model(self, flow):
        """Seven findings, seven judge requests, all on --judge-model."""
        assert len(self.judge_requests(flow)) == JUDGE_REQUESTS

    def test_the_judge_is_a_separate_conversation_forced_to_its_tool(self, flow):
        """Each judge request is a fresh one-message conversation with one tool, forced."""
        for request in self.judge_requests(flow):
            assert len(request["messages"]) == 1
            assert [t["name"] for t in request["tools"]] == [JUDGE_TOOL]
            assert request["tool_choice"] == {"type": "tool", "name": JUDGE_TOOL}
            assert "strict judge" in request["system"][0]["text"]
            assert "add_review_node" not in json.dumps(request)

    def test_the_judge_sees_every_golden_comment_and_the_finding(self, flow):
        """The PR's golden comments are numbered in the cached block; the finding follows."""
        first = self.judge_requests(flow)[0]["messages"][0]["content"]
        assert "#1 (Critical)" in first[0]["text"]
        assert "#2 (Medium)" in first[0]["text"]
        assert "cache_control" in first[0]
        assert "app.py, line(s) 2" in first[1]["text"]


class TestUsage:
    def test_reviewers_and_judge_are_counted_apart(self, flow):
        """Requests of each side match what the fake received; both have tokens and a cost."""
        usage = flow.result["usage"]
        assert usage["reviewers"]["requests"] == REVIEWER_REQUESTS
        assert usage["judge"]["requests"] == JUDGE_REQUESTS
        assert usage["reviewers"]["cost_usd"] > 0
        assert usage["judge"]["cost_usd"] > 0

    def test_the_judge_cost_uses_the_judge_models_price(self, flow):
        """The judge's cost is its token counts priced at --judge-model's rates."""
        judge = flow.result["usage"]["judge"]
        tokens = TokenUsage(
            input_tokens=judge["input_tokens"],
            output_tokens=judge["output_tokens"],
            cache_read_tokens=judge["cache_read_tokens"],
            cache_write_tokens=judge["cache_write_tokens"],
        )
        assert judge["cost_usd"] == pytest.approx(cost_of(JUDGE_MODEL, tokens).usd)

    def test_later_findings_read_the_golden_comments_from_the_cache(self, flow):
        """After the first finding of a PR, the system, tool and golden block are cache reads."""
        assert flow.result["usage"]["judge"]["cache_read_tokens"] > 0


class TestResume:
    def test_a_resumed_run_makes_no_request_for_finished_prs(self, tmp_path):
        """Run 1 (--limit 1) finishes A; run 2 (--resume) reuses it and only reviews B."""
        with bench_world(tmp_path) as world:
            bench, cache = write_bench(tmp_path / "bench.json", BENCH), tmp_path / "cache"
            world.model.add(*script_a())
            first = world.run(eval_args(bench, tmp_path / "1.json", cache, "--limit", "1"))
            assert first.returncode == 0, first.stderr
            assert len(first.model) == len(script_a())
            world.model.add(*script_b())
            second = world.run(eval_args(bench, tmp_path / "2.json", cache, "--resume"))
            assert second.returncode == 0, second.stderr
            assert len(second.model) == len(script_b())  # nothing for A
            assert not [r for r in second.github if "/octo/app/" in r.path]
            result = json.loads((tmp_path / "2.json").read_text(encoding="utf-8"))
            assert result["cached"] == [URL_A]
            assert result["score"]["total"] == approx(TOTAL)
            reused = [line for line in second.stderr.splitlines() if line.startswith("✓ [1/2]")]
            assert reused[0].endswith("· cached"), second.stderr

    def test_without_resume_the_cache_is_not_reused(self, tmp_path):
        """A second run without --resume reviews the PR again (and refreshes its entry)."""
        with bench_world(tmp_path) as world:
            bench, cache = write_bench(tmp_path / "bench.json", BENCH[:1]), tmp_path / "cache"
            world.model.add(*script_a(), *script_a())
            first = world.run(eval_args(bench, tmp_path / "1.json", cache))
            second = world.run(eval_args(bench, tmp_path / "2.json", cache))
            assert (first.returncode, second.returncode) == (0, 0), second.stderr
            assert len(second.model) == len(script_a())
            assert len(list(cache.glob("*.json"))) == 1


class TestClosedStdout:
    def test_a_reader_that_quit_gets_141_and_the_results_file(self, tmp_path):
        """`reviewbot eval … | head`: rich would exit 1 and lose --out; 141, and --out written."""
        with bench_world(tmp_path) as world:
            bench, out = write_bench(tmp_path / "bench.json", BENCH[:1]), tmp_path / "1.json"
            world.model.add(*script_a())
            read_end, write_end = os.pipe()
            pending = world.start(eval_args(bench, out, tmp_path / "cache"), stdout=write_end)
            os.close(write_end)
            os.close(read_end)
            run = pending.wait()
            assert run.returncode == 141, run.stderr
            assert "Traceback" not in run.stderr
            assert json.loads(out.read_text(encoding="utf-8"))["prs"][0]["url"] == URL_A


class TestBadInput:
    def test_bad_entries_are_one_line_each_and_the_valid_pr_still_runs(self, tmp_path):
        """A missing field, a non-PR URL, a bad severity and a non-object: 4 lines; A scored; exit 2."""
        entries = [
            {"pr_title": "no comments", "url": URL_B},
            {
                "pr_title": "an issue",
                "url": "https://github.com/octo/app/issues/7",
                "comments": BENCH[0]["comments"],
            },
            BENCH[0],
            {"pr_title": "odd", "url": URL_B, "comments": [{"comment": "x", "severity": "Urgent"}]},
            "not an object",
        ]
        with bench_world(tmp_path) as world:
            bench = write_bench(tmp_path / "bench.json", entries)
            world.model.add(*script_a())
            run = world.run(eval_args(bench, tmp_path / "out.json", tmp_path / "cache"))
        assert run.returncode == 2, run.stderr
        problems = [line for line in run.stderr.splitlines() if ": entry " in line]
        assert len(problems) == 4, run.stderr
        assert "entry 1: comments: Field required" in problems[0]
        assert "entry 2: url: not a pull request URL" in problems[1]
        assert "entry 4: comments[0].severity" in problems[2]
        assert "entry 5" in problems[3]
        assert "Traceback" not in run.stderr
        result = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
        assert [p["url"] for p in result["prs"]] == [URL_A]
        assert result["score"]["total"] == approx(PR_A)
        assert len(result["problems"]) == 4

    def test_a_pr_that_does_not_exist_fails_alone(self, tmp_path):
        """A PR the fake GitHub does not have is one failed row (exit 4); the other PR is scored."""
        missing = {
            "pr_title": "gone",
            "url": "https://github.com/octo/app/pull/404",
            "comments": BENCH[0]["comments"],
        }
        with bench_world(tmp_path) as world:
            bench = write_bench(tmp_path / "bench.json", [missing, BENCH[0]])
            world.model.add(*script_a())
            run = world.run(eval_args(bench, tmp_path / "out.json", tmp_path / "cache"))
        assert run.returncode == 4, run.stderr
        result = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
        assert [f["url"] for f in result["failed"]] == [missing["url"]]
        assert [p["url"] for p in result["prs"]] == [URL_A]
        assert "✗ [1/2] octo/app#404: not scored" in run.stderr

    def test_a_missing_key_is_one_line_and_exit_3(self, tmp_path):
        """Without ANTHROPIC_API_KEY: one error line, exit 3, no request to anyone."""
        with bench_world(tmp_path) as world:
            bench = write_bench(tmp_path / "bench.json", BENCH)
            run = world.run(
                eval_args(bench, tmp_path / "out.json", tmp_path / "cache"), anthropic=False
            )
        assert run.returncode == 3
        assert run.said == [
            "reviewbot: error: ANTHROPIC_API_KEY is not set: reviewbot eval needs the Messages API "
            "for the reviewers and the judge"
        ]
        assert run.github == ()
        assert run.model == ()
