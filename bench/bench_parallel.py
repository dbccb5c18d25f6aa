"""Benchmark time to verdict: a 3-reviewer panel one agent at a time against all at once.

    python bench/bench_parallel.py [--latency 1.5] [--files 100] [--first-request 1000]

Part 1 — the model phase. `bench/synthetic.py` builds a PR repository of `--files`
changed files; `run_panel` runs `review` plus two focused reviewers (`security`,
`style`) and the verifier, with the real `AnthropicClient` over `httpx.MockTransport`
and the fake Messages API (1,024-token minimum cacheable prefix), which answers
every request after `--latency` seconds. Each reviewer reads two files, records one
P1 node and finalizes (4 requests); the verifier confirms the three nodes (1
request). The panel runs with `max_parallel_agents = 1` (every agent after the
previous one: the behaviour before agents ran at the same time) and with the
default, 4. Printed per run: the model phase (first request sent → last answer),
the agents' spans added up (each agent's first request → its last answer), their
ratio (1.0× is sequential), and the share of input tokens read from the cache.

Part 2 — the time before the first model request: a full `review --post` of a PR of
`--first-request` files in a child process (the fakes on loopback, no latency, as in
bench_scale.py), once cloning the PR (no reusable workspace) and once reusing the
workspace; printed: the seconds from the start of `review_pull` to the fake's first
model request, and GitHub's reads up to then.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_loop import anchors, local_snapshot, node, review_with
from bench.synthetic import make_pr_repo
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.file import BudgetConfig, ReviewConfig, ReviewerConfig
from reviewbot.sources.diff_index import DiffIndex, index_from_unified_diff
from tests.fakes.github_api import FakeGitHub
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import (
    FakeMessagesAPI,
    Scripted,
    reply,
    route_by_brief,
    text,
    tool_use,
)
from tests.fakes.pulls import seed_pull
from tests.fakes.server import LoopbackServer, json_function_handler

FOCUS = {"security": "Look for injection and authorization gaps.", "style": "Look at naming."}
REPO, NUMBER = "bench/app", 1
URL = f"https://github.com/{REPO}/pull/{NUMBER}"


def scripts(diff: DiffIndex) -> dict[str, list[Scripted]]:
    paths = [f.path for f in diff if f.path.endswith(".py") and not f.binary]
    found = anchors(diff, 3)
    per_agent: dict[str, list[Scripted]] = {}
    for n, agent in enumerate(("review", "security", "style")):
        per_agent[agent] = [
            reply(text("Reading."), tool_use("read_file", {"path": paths[2 * n]})),
            reply(tool_use("read_file", {"path": paths[2 * n + 1]})),
            reply(tool_use("add_review_node", node(found[n], "P1", n))),
            reply(tool_use("finalize_review", {"summary": "One risk.", "verdict": "hold"})),
        ]
    ids = ("review-1", "security-1", "style-1")
    per_agent["verifier"] = [
        reply(*(tool_use("confirm_review_node", {"id": i, "reason": "checked"}) for i in ids))
    ]
    return per_agent


def panel(diff: DiffIndex, repo: Any, *, parallel: int, latency: float) -> dict[str, float]:
    config = ReviewConfig(
        reviewers=tuple(ReviewerConfig(name=n, brief=b) for n, b in FOCUS.items()),
        budget=BudgetConfig(max_parallel_agents=parallel),
    )
    snapshot = local_snapshot(repo, diff, config, "A synthetic pull request.")
    fake = FakeMessagesAPI(
        scripts=scripts(diff),
        route=route_by_brief(FOCUS),
        latency=lambda: latency,
        min_cacheable_tokens=1_024,
    )
    outcome = review_with(fake, snapshot, config)
    assert not fake.problems, fake.problems
    assert not fake.remaining, fake.remaining
    assert len(outcome.nodes) == 3, [a.stop_reason for a in outcome.agents]
    spans = fake.timeline
    phase = max(s.answered for s in spans) - min(s.arrived for s in spans)
    summed = 0.0
    for agent in {s.agent for s in spans}:
        own = [s for s in spans if s.agent == agent]
        summed += max(s.answered for s in own) - min(s.arrived for s in own)
    stats = fake.stats
    return {
        "phase": phase,
        "summed": summed,
        "requests": stats.requests,
        "cache_share": stats.cache_read_tokens / stats.total_input,
    }


# ---------------------------------------------------------------- before the first request


def _child(env: dict[str, str], out: Any) -> None:
    from reviewbot import app
    from reviewbot.config.settings import Settings

    logging.getLogger("github").handlers.clear()
    logging.getLogger("github").setLevel(logging.ERROR)
    job = app.Job(progress=SilentProgress(), post=True)
    started = time.monotonic()  # CLOCK_MONOTONIC: the same clock in the parent
    outcome = app.review_pull(URL, Settings.from_environ(env), job, lambda report, snap: None)
    out.send(
        {"started": started, "verdict": outcome.report.verdict.label if outcome.report else None}
    )


def first_request(n_files: int, root: Path, *, reuse_workspace: bool) -> dict[str, float]:
    repo = make_pr_repo(root / f"repo-{n_files}-{reuse_workspace}", n_files)
    github = FakeGitHub(user_endpoint=False, approve_allowed=False)
    seed_pull(github, repo.path, repo.base_sha, repo.head_sha, full_name=REPO, number=NUMBER)
    api = FakeMessagesAPI([reply(text("Nothing to add."))], min_cacheable_tokens=1_024)
    first: list[float] = []
    reads_before: list[int] = []
    with LoopbackServer(github) as gh:

        def messages(body: Any, headers: Any) -> tuple[int, Any, Any]:
            if not first:
                first.append(time.monotonic())
                reads_before.append(gh.reads)
            return api.handle(body, headers)

        with LoopbackServer(json_function_handler(messages, path="/v1/messages")) as ms:
            env = {
                "GITHUB_TOKEN": "ghs_" + "B" * 36,
                "ANTHROPIC_API_KEY": "sk-ant-" + "B" * 40,
                "ANTHROPIC_BASE_URL": ms.url,
                "GITHUB_API_URL": gh.url,
                "GITHUB_SERVER_URL": "https://github.com",  # the web host the loopback API serves
            }
            if reuse_workspace:
                env["GITHUB_WORKSPACE"] = str(repo.path)
            receive, send = multiprocessing.Pipe(duplex=False)
            child = multiprocessing.get_context("spawn").Process(target=_child, args=(env, send))
            child.start()
            result = receive.recv()
            child.join()
    assert first, api.problems
    assert result["verdict"] is not None, result
    return {"seconds": first[0] - result["started"], "reads": reads_before[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.5)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--first-request", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_pr_repo(Path(tmp) / "repo", args.files)
        diff = index_from_unified_diff(
            git(repo.path, "diff", "-M", "--no-color", repo.base_sha, repo.head_sha)
        )
        print(f"3 reviewers + verifier, {args.files} files, {args.latency} s per request")
        print(
            "| max_parallel_agents | requests | model phase | agents' spans summed | ratio | cache-read share |"
        )
        print("|---|---|---|---|---|---|")
        for parallel in (1, 4):
            row = panel(diff, repo, parallel=parallel, latency=args.latency)
            print(
                f"| {parallel} | {row['requests']:.0f} | {row['phase']:.1f} s | {row['summed']:.1f} s "
                f"| {row['phase'] / row['summed']:.2f}× | {row['cache_share']:.1%} |"
            )
        if args.first_request:
            print(f"\ntime before the first model request, {args.first_request}-file PR")
            for reuse in (False, True):
                row = first_request(args.first_request, Path(tmp), reuse_workspace=reuse)
                how = "workspace reused" if reuse else "cloned"
                print(
                    f"- {how}: {row['seconds']:.2f} s ({row['reads']:.0f} GitHub reads before it)"
                )


if __name__ == "__main__":
    main()
