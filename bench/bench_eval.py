"""Tokens and cost per PR of `reviewbot eval`, measured on scripted runs: the basis of the README's
cost estimate.

    /work/venv/bin/python bench/bench_eval.py                  # sizes 5 10 25, 8 findings
    /work/venv/bin/python bench/bench_eval.py --sizes 10 --findings 4

For each size, `bench/synthetic.py` builds a real git repository whose head changes N
files; `tests.fakes.world.seed_pull` mirrors it as a PR in the fake GitHub; the fake
Messages API (1,024-token minimum cacheable prefix, its own token count) plays the
reviewer (bench_scale's script: reads the 3 largest changes, adds the findings 5 per
turn, P0…P3 in turn, finalizes), the verifier (confirms or disputes the P0/P1 nodes)
and the judge (one request per finding; every other finding is matched). The eval
runs in-process through `reviewbot.eval.runner.run_eval`, the real PyGithub and
Anthropic clients, as a dry run. Reported per PR, reviewers and judge apart: requests,
input tokens split into uncached / cache writes / cache reads, output tokens, and the
cost at the price table's rates for the reviewers' and the judge's models.

The scripted model writes little (tool calls only), so output tokens are far below a
real model's; the README's estimate adds an assumed output per review.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_scale import NUMBER, REPO, URL, Script
from bench.synthetic import make_pr_repo
from reviewbot.agent.messages import TokenUsage
from reviewbot.agent.pricing import cost_of
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.settings import Settings
from reviewbot.eval.bench import Benchmark, BenchmarkPR
from reviewbot.eval.judge import TOOL
from reviewbot.eval.result import PRResult
from reviewbot.eval.runner import EvalOptions, run_eval
from reviewbot.results.run import Usage
from reviewbot.sources.diff_index import index_from_unified_diff
from tests.fakes.github_api import FakeGitHub
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import FakeMessagesAPI, reply, tool_use
from tests.fakes.pulls import seed_pull
from tests.fakes.server import LoopbackServer, json_function_handler

MODEL = "claude-sonnet-4-5"
JUDGE_MODELS = ("claude-sonnet-4-5", "claude-opus-4-5")
GOLDEN = (
    ("The multiplier changes the result for every caller", "High"),
    ("No test covers the new arithmetic", "Medium"),
    ("A renamed module breaks its importers", "Low"),
)


class _Quiet:
    def started(self, index: int, total: int, url: str) -> None:
        return None

    def judging(self, url: str, *, finding: int, findings: int) -> None:
        return None

    def scored(self, index: int, total: int, result: PRResult, *, cached: bool) -> None:
        return None

    def failed(self, index: int, total: int, url: str, error: str) -> None:
        raise AssertionError(f"{url} failed: {error}")


def run_case(root: Path, n_files: int, findings: int) -> PRResult:
    pr = make_pr_repo(root / f"repo-{n_files}", n_files)
    diff = index_from_unified_diff(
        git(pr.path, "diff", "-M", "--no-color", pr.base_sha, pr.head_sha)
    )
    fake = FakeGitHub(user_endpoint=False, approve_allowed=False)
    seed_pull(fake, pr.path, pr.base_sha, pr.head_sha, full_name=REPO, number=NUMBER)
    judge = [
        reply(tool_use(TOOL, {"golden": (i % 3) + 1 if i % 2 == 0 else None, "reason": "r"}))
        for i in range(findings)
    ]
    api = FakeMessagesAPI([*Script(diff, findings).turns(), *judge], min_cacheable_tokens=1_024)
    with (
        LoopbackServer(fake) as gh,
        LoopbackServer(json_function_handler(api.handle, path="/v1/messages")) as ms,
    ):
        settings = Settings.from_environ(
            {
                "GITHUB_TOKEN": "ghs_" + "B" * 36,
                "ANTHROPIC_API_KEY": "sk-ant-" + "B" * 40,
                "ANTHROPIC_BASE_URL": ms.url,
                "GITHUB_API_URL": gh.url,
                "GITHUB_SERVER_URL": "https://github.com",  # the web host the fake API serves
            }
        )
        entry = BenchmarkPR(
            pr_title="synthetic",
            url=URL,
            comments=tuple({"comment": c, "severity": s} for c, s in GOLDEN),
        )
        result = run_eval(
            Benchmark(prs=(entry,), problems=()),
            origin="bench",
            settings=settings,
            options=EvalOptions(model=MODEL, judge_model=JUDGE_MODELS[0], cache_dir=root / "cache"),
            progress=_Quiet(),
            agent_progress=SilentProgress(),
        )
    assert not api.problems, api.problems
    assert not api.remaining, f"{api.remaining} scripted replies unused"
    return result.prs[0]


def _tokens(usage: Usage) -> TokenUsage:
    return TokenUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )


def _row(n_files: int, findings: int, result: PRResult) -> str:
    r, j = result.reviewers, result.judge
    cells: list[Any] = [n_files, findings]
    for usage in (r, j):
        cells += [
            usage.requests,
            f"{usage.input_tokens:,}",
            f"{usage.cache_write_tokens:,}",
            f"{usage.cache_read_tokens:,}",
            f"{usage.output_tokens:,}",
        ]
    cells.append(f"${cost_of(MODEL, _tokens(r)).usd:.3f}")
    cells += [f"${cost_of(m, _tokens(j)).usd:.4f}" for m in JUDGE_MODELS]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def main() -> None:
    logging.getLogger("github").setLevel(logging.ERROR)  # the expected GET /user 403
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10, 25])
    parser.add_argument("--findings", type=int, default=8)
    args = parser.parse_args()
    print(
        "| files | findings | rev req | rev uncached | rev cache write | rev cache read | rev out "
        "| judge req | judge uncached | judge cache write | judge cache read | judge out "
        f"| reviewers ({MODEL}) | judge ({JUDGE_MODELS[0]}) | judge ({JUDGE_MODELS[1]}) |"
    )
    print("|" + "---|" * 15)
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        for size in args.sizes:
            print(_row(size, args.findings, run_case(Path(tmp), size, args.findings)), flush=True)


if __name__ == "__main__":
    main()
