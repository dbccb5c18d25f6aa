"""Wall time of `reviewbot eval --workers N` against a serial run, on scripted PRs whose model
answers take a fixed time: how far the workers overlap the waiting on the Messages API.

    /work/venv/bin/python bench/bench_eval_workers.py                 # 4 PRs, workers 1 2 4
    /work/venv/bin/python bench/bench_eval_workers.py --prs 6 --latency 0.5 --workers 1 3

Each PR is `bench/synthetic.py`'s 10-file PR in its own repository (octo/r1, octo/r2, …) of one
fake GitHub; the fake Messages API answers every request after `--latency` seconds and routes
each request to its PR's own script (bench_scale's reviewer and verifier turns, then one judge
reply per finding), so the answers do not depend on which worker asks first. The eval runs
in-process through `run_eval` (real PyGithub and Anthropic clients, dry runs). Printed per
worker count: the wall time, its ratio to the serial run, and the overall figures, which must
be the same for every count (the script checks it).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_eval import _Quiet
from bench.bench_scale import Script
from bench.synthetic import make_pr_repo
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.settings import Settings
from reviewbot.eval.bench import parse_entries
from reviewbot.eval.judge import TOOL
from reviewbot.eval.runner import EvalOptions, run_eval
from reviewbot.sources.diff_index import index_from_unified_diff
from tests.fakes.github_api import FakeGitHub
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import FakeMessagesAPI, reply, tool_use
from tests.fakes.server import LoopbackServer, json_function_handler
from tests.fakes.world import seed_pull

MODEL = "claude-sonnet-4-5"
FINDINGS = 4
GOLDEN = [{"comment": "The multiplier changes every caller's result", "severity": "High"}]


def one_run(root: Path, prs: int, workers: int, latency: float) -> tuple[float, dict[str, Any]]:
    fake = FakeGitHub(user_endpoint=False, approve_allowed=False)
    scripts: dict[str, list[Any]] = {}
    for n in range(1, prs + 1):
        pr = make_pr_repo(root / f"repo-{n}", 10)
        diff = index_from_unified_diff(
            git(pr.path, "diff", "-M", "--no-color", pr.base_sha, pr.head_sha)
        )
        seed_pull(fake, pr.path, pr.base_sha, pr.head_sha, full_name=f"octo/r{n}", number=1)
        judge = [
            reply(tool_use(TOOL, {"golden": 1 if i == 0 else None, "reason": "r"}))
            for i in range(FINDINGS)
        ]
        scripts[f"octo/r{n}"] = [*Script(diff, FINDINGS).turns(), *judge]

    def route(body: Any) -> str:
        shown = json.dumps(body)
        named = [n for n in scripts if re.search(re.escape(n) + r"(?!\d)", shown)]
        assert len(named) == 1, f"a request names {named}: {shown[:300]}"
        return named[0]

    api = FakeMessagesAPI(scripts=scripts, route=route, latency=lambda: latency)
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
                "GITHUB_SERVER_URL": "https://github.com",
            }
        )
        entries = [
            {"pr_title": f"r{n}", "url": f"https://github.com/octo/r{n}/pull/1", "comments": GOLDEN}
            for n in range(1, prs + 1)
        ]
        started = time.perf_counter()
        result = run_eval(
            parse_entries(entries, origin="bench"),
            origin="bench",
            settings=settings,
            options=EvalOptions(
                model=MODEL, judge_model=MODEL, cache_dir=root / "cache", workers=workers
            ),
            progress=_Quiet(),
            agent_progress=SilentProgress(),
        )
        wall = time.perf_counter() - started
    api.verify()
    return wall, result.score.total.model_dump()


def main() -> None:
    logging.getLogger("github").setLevel(logging.ERROR)  # the expected GET /user 403
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prs", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per model answer")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    print(f"{args.prs} PRs, {args.latency:g} s per model answer")
    print("| workers | wall s | vs serial | TP | FP | FN |")
    print("|---|---|---|---|---|---|")
    serial: float | None = None
    figures: dict[str, Any] | None = None
    for workers in args.workers:
        with tempfile.TemporaryDirectory(prefix="bench-eval-workers-") as tmp:
            wall, total = one_run(Path(tmp), args.prs, workers, args.latency)
        serial = serial or wall
        assert figures is None or total == figures, f"figures differ: {total} vs {figures}"
        figures = total
        print(
            f"| {workers} | {wall:.1f} | {serial / wall:.2f}× | "
            f"{total['tp']} | {total['fp']} | {total['fn']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
