"""Benchmark the whole product at scale: a full `review --post` of synthetic PRs of growing size.

    /work/venv/bin/python bench/bench_scale.py                       # sizes 10 100 1000 5000
    /work/venv/bin/python bench/bench_scale.py --sizes 10 100        # a quick run
    /work/venv/bin/python bench/bench_scale.py --findings 1 25 60 --findings-size 100

For each size, `bench/synthetic.py` builds a real git repository whose head changes
N files (small and large edits, additions, deletions, renames with edits,
binaries, a lockfile). `tests.fakes.world.seed_pull` mirrors it as a PR in the
fake GitHub (which, like GitHub, lists at most 3,000 files); the fake GitHub and
the fake Messages API (1,024-token minimum cacheable prefix) are served on
loopback with zero latency. A scripted model reads 3 files, adds the findings
(5 per turn, P0…P3 in turn, anchored on added lines of files in its context),
finalizes; the verifier confirms half of the P0/P1 nodes and disputes the rest.

The review runs in a child process (`reviewbot.app.review_pull` with
`Settings.from_environ`, `--post`, the workspace reused as GitHub Actions would),
so its memory figures are the harness's alone, not the fakes':

- harness time: the child's wall time of `review_pull` minus the time the fakes'
  handlers spent answering it (measured in the parent around each handler);
- memory: the growth of the child's peak resident memory during the run
  (`VmHWM` after − `VmRSS` before, from /proc: what a CI runner sees, the figure
  the targets use; `ru_maxrss` is useless here, Linux carries it across the
  spawn's fork+exec from the parent), the child's absolute peak, and the tracemalloc peak of
  Python allocations in a second, separate run (tracemalloc slows the code, so
  that run is not timed);
- GitHub reads and writes (writes: the review, the summary, the check run with the first 50
  annotations, one PATCH per further 50), model requests, input tokens (the fake's count: total,
  first request, largest request), and the share of input tokens that were cache
  reads after the first request of each agent.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

from bench.synthetic import PRRepo, make_pr_repo
from reviewbot.sources.diff_index import DiffIndex, LineKind, index_from_unified_diff
from tests.fakes.github_api import FakeGitHub
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import JSON, FakeMessagesAPI, Reply, reply, tool_use
from tests.fakes.pulls import seed_pull
from tests.fakes.server import Handler, LoopbackServer, Request, Response, json_function_handler

REPO = "octo/app"
NUMBER = 7
URL = f"https://github.com/{REPO}/pull/{NUMBER}"
READS = 3
PER_TURN = 5
PRIORITIES = ("P0", "P1", "P2", "P3")


# ---------------------------------------------------------------- the scripted model


def _added_lines(diff: DiffIndex) -> dict[str, list[tuple[int, str]]]:
    """Added (head line, text) pairs of every text file, by path."""
    found: dict[str, list[tuple[int, str]]] = {}
    for file in diff:
        if file.binary or not file.path.endswith(".py"):
            continue
        lines = [
            (ln.new_no, ln.text)
            for hunk in file.hunks
            for ln in hunk.lines
            if ln.kind is LineKind.ADDED and ln.new_no and ln.text.strip()
        ]
        if lines:
            found[file.path] = lines
    return found


def _in_context(request: JSON) -> list[str]:
    """Paths whose patch is in the first user message (the packed context)."""
    context = request["messages"][0]["content"][0]["text"]
    return [line[4:].split(" (", 1)[0] for line in context.splitlines() if line.startswith("### ")]


@dataclass
class Script:
    """The reviewer's and the verifier's turns, anchoring on files the model has in context."""

    diff: DiffIndex
    findings: int
    added: dict[str, list[tuple[int, str]]] = field(init=False)

    def __post_init__(self) -> None:
        self.added = _added_lines(self.diff)

    @property
    def read(self) -> list[str]:
        """The files the reviewer reads: the largest changes."""
        return sorted(self.added, key=lambda p: -len(self.added[p]))[:READS]

    def turns(self) -> list[Any]:
        turns: list[Any] = [reply(tool_use("read_file", {"path": p})) for p in self.read]
        for start in range(0, self.findings, PER_TURN):
            turns.append(self._nodes(start, min(start + PER_TURN, self.findings)))
        turns.append(
            reply(tool_use("finalize_review", {"summary": "Scripted review.", "verdict": "hold"}))
        )
        targets = [i for i in range(self.findings) if PRIORITIES[i % 4] in ("P0", "P1")]
        if targets:
            judgements = [
                tool_use(
                    "confirm_review_node" if k % 2 == 0 else "dispute_review_node",
                    {"id": f"review-{i + 1}", "reason": "checked the callers"},
                )
                for k, i in enumerate(targets)
            ]
            turns.append(reply(*judgements))  # every node judged: the verifier's run ends
        return turns

    def _nodes(self, start: int, end: int) -> Callable[[JSON], Reply]:
        def answer(request: JSON) -> Reply:
            # Anchors only on files the model has seen: its packed context, else what it read.
            seen = [p for p in _in_context(request) if p in self.added] or self.read
            blocks = []
            for i in range(start, end):
                path = seen[i % len(seen)]
                lines = self.added[path]
                line, quote = lines[(i // len(seen)) % len(lines)]
                node = {
                    "kind": "bug",
                    "priority": PRIORITIES[i % 4],
                    "confidence": 0.8,
                    "title": f"Suspicious arithmetic change #{i + 1}",
                    "body": "The multiplier changes the result for every caller; no test covers it.",
                    "anchor": {"path": path, "start_line": line, "end_line": line, "quote": quote},
                }
                blocks.append(tool_use("add_review_node", node))
            return reply(*blocks)

        return answer


# ---------------------------------------------------------------- the fakes, timed


@dataclass
class Timed:
    """A handler wrapper that adds up the seconds spent inside the fake."""

    handler: Handler
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            return self.handler(request)
        finally:
            with self._lock:
                self.seconds += time.perf_counter() - started


# ---------------------------------------------------------------- the review, in a child


def _status_kb(field: str) -> int:
    """A size from /proc/self/status, in KiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak_rss() -> None:
    # ru_maxrss cannot serve: Linux carries it across the spawn's fork+exec, so the child
    # starts with the parent's peak. VmHWM is per process image and can be reset (Linux ≥ 4.0).
    Path("/proc/self/clear_refs").write_text("5")


def _child(env: dict[str, str], trace: bool, out: Any) -> None:
    """Run one `review_pull --post` and send back its figures (runs in a spawned process)."""
    from reviewbot import app
    from reviewbot.agent.progress import SilentProgress
    from reviewbot.config.settings import Settings

    # As the CLI does: PyGithub's own stderr handler off (it logs every expected 403).
    logging.getLogger("github").handlers.clear()
    logging.getLogger("github").setLevel(logging.ERROR)
    settings = Settings.from_environ(env)
    job = app.Job(progress=SilentProgress(), post=True)
    before = _status_kb("VmRSS")
    _reset_peak_rss()
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    outcome = app.review_pull(URL, settings, job, lambda report, snapshot: None)
    wall = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    after = _status_kb("VmHWM")
    assert outcome.report is not None, outcome.skipped
    out.send(
        {
            "wall": wall,
            "rss_kb": after - before,
            "rss_total_kb": after,
            "peak": peak,
            "report": json.loads(outcome.report.model_dump_json()),
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    files: int
    findings: int
    harness_s: float
    wall_s: float
    fakes_s: float
    rss_mb: float
    rss_total_mb: float
    traced_mb: float
    gh_reads: int
    gh_writes: int
    model_requests: int
    input_tokens: int
    first_input: int
    max_input: int
    cache_share: float
    in_context: int
    listed: int
    inline: int
    in_body: int
    annotated: int
    verdict: str


def _serve_and_review(pr: PRRepo, diff: DiffIndex, findings: int, trace: bool) -> dict[str, Any]:
    fake = FakeGitHub(user_endpoint=False, approve_allowed=False)
    seed_pull(fake, pr.path, pr.base_sha, pr.head_sha, full_name=REPO, number=NUMBER)
    api = FakeMessagesAPI(Script(diff, findings).turns(), min_cacheable_tokens=1_024)
    usages: list[dict[str, int]] = []

    def messages(body: Any, headers: Any) -> tuple[int, Any, Any]:
        status, answer_headers, answer = api.handle(body, headers)
        if status == 200:
            usages.append(answer["usage"] | {"first": len(body["messages"]) == 1})
        return status, answer_headers, answer

    github = Timed(fake)
    model = Timed(json_function_handler(messages, path="/v1/messages"))
    with LoopbackServer(github) as gh, LoopbackServer(model) as ms:
        env = {
            "GITHUB_TOKEN": "ghs_" + "B" * 36,
            "ANTHROPIC_API_KEY": "sk-ant-" + "B" * 40,
            "ANTHROPIC_BASE_URL": ms.url,
            "GITHUB_API_URL": gh.url,
            "GITHUB_WORKSPACE": str(pr.path),  # HEAD is the PR head: the checkout is reused
        }
        receive, send = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.get_context("spawn").Process(target=_child, args=(env, trace, send))
        child.start()
        result: dict[str, Any] = receive.recv()
        child.join()
        result |= {
            "fakes_s": github.seconds + model.seconds,
            "gh_reads": gh.reads,
            "gh_writes": gh.writes,
            "usages": usages,
            "problems": list(api.problems) + gh.errors + ms.errors,
            "unused": api.remaining,
        }
    return result


def run_case(root: Path, n_files: int, findings: int) -> Row:
    pr = make_pr_repo(root / f"repo-{n_files}-{findings}", n_files)
    diff = index_from_unified_diff(
        git(pr.path, "diff", "-M", "--no-color", pr.base_sha, pr.head_sha)
    )
    timed = _serve_and_review(pr, diff, findings, trace=False)
    traced = _serve_and_review(pr, diff, findings, trace=True)
    for result in (timed, traced):
        problems = result["problems"] + (
            [f"{result['unused']} scripted replies unused"] if result["unused"] else []
        )
        agents = [(a["name"], a["stop_reason"], a["error"]) for a in result["report"]["agents"]]
        assert not problems, (problems, agents)
    report, usages = timed["report"], timed["usages"]
    total = [
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        for u in usages
    ]
    later = [(u, t) for u, t in zip(usages, total, strict=True) if not u["first"]]
    cached = sum(u["cache_read_input_tokens"] for u, _ in later)
    published = report["published"]
    return Row(
        files=n_files,
        findings=findings,
        harness_s=timed["wall"] - timed["fakes_s"],
        wall_s=timed["wall"],
        fakes_s=timed["fakes_s"],
        rss_mb=timed["rss_kb"] / 1024,
        rss_total_mb=timed["rss_total_kb"] / 1024,
        traced_mb=traced["peak"] / 2**20,
        gh_reads=timed["gh_reads"],
        gh_writes=timed["gh_writes"],
        model_requests=len(usages),
        input_tokens=sum(total),
        first_input=total[0],
        max_input=max(total),
        cache_share=cached / max(1, sum(t for _, t in later)),
        in_context=report["coverage"]["files_in_context"],
        listed=len(report["coverage"]["files_listed"]),
        inline=sum(1 for c in published["comments"] if c["landed"]),
        in_body=len(published["in_body"]),
        annotated=len(published["annotated"]),
        verdict=report["verdict"],
    )


# ---------------------------------------------------------------- the table


HEADER = (
    "| files | findings | harness s | wall s | in fakes s | RSS growth MB | peak RSS MB | traced peak MB "
    "| GH reads | GH writes | model req | input tok | 1st req tok | max req tok "
    "| tok/turn | cache-read share | in context | listed | inline | in body | annotated | verdict |"
)


def _line(row: Row) -> str:
    return (
        f"| {row.files:,} | {row.findings} | {row.harness_s:.2f} | {row.wall_s:.2f} | {row.fakes_s:.2f} "
        f"| {row.rss_mb:.1f} | {row.rss_total_mb:.0f} | {row.traced_mb:.1f} | {row.gh_reads} | {row.gh_writes} "
        f"| {row.model_requests} | {row.input_tokens:,} | {row.first_input:,} | {row.max_input:,} "
        f"| {row.input_tokens // max(1, row.model_requests):,} | {row.cache_share:.1%} "
        f"| {row.in_context:,} | {row.listed:,} | {row.inline} | {row.in_body} | {row.annotated} "
        f"| {row.verdict} |"
    )


def _targets(sizes: list[Row], findings: list[Row]) -> list[str]:
    out = []
    at_1000 = next((r for r in sizes if r.files == 1_000), None)
    if at_1000 is not None:
        time_ok, mem_ok = at_1000.harness_s < 2.0, at_1000.rss_mb < 300
        out.append(
            f"- harness overhead at 1,000 files: {at_1000.harness_s:.2f} s (< 2 s: "
            f"{'met' if time_ok else 'NOT met'}), RSS growth {at_1000.rss_mb:.0f} MB, traced "
            f"peak {at_1000.traced_mb:.0f} MB (< 300 MB: {'met' if mem_ok else 'NOT met'})"
        )
    rows = sizes + findings
    # Review, summary, check run; plus one PATCH per further 50 annotations (≤ 150: ≤ 2 more).
    expected = [3 + max(0, -(-r.annotated // 50) - 1) for r in rows]
    writes = [f"{r.findings}: {r.gh_writes} ({r.annotated} annotated)" for r in rows]
    exact = all(r.gh_writes == e for r, e in zip(rows, expected, strict=True))
    out.append(
        f"- GitHub writes per run by findings: {', '.join(writes)} (3, plus one PATCH per 50 "
        f"annotations past the first 50, ≤ 5: "
        f"{'met' if exact and max(r.gh_writes for r in rows) <= 5 else 'NOT met'})"
    )
    ordered = sorted(sizes, key=lambda r: r.files)
    if len(ordered) >= 2:
        growth = ", ".join(
            f"{a.files:,}→{b.files:,} files ×{b.files / a.files:g}: tokens ×{b.input_tokens / a.input_tokens:.2f}"
            for a, b in itertools.pairwise(ordered)
        )
        big = [(a, b) for a, b in itertools.pairwise(ordered) if a.files >= 100]
        sub = all(b.input_tokens / a.input_tokens < b.files / a.files for a, b in big)
        # With no pair of sizes beyond the budget there is nothing to judge: say so, not "met".
        verdict = "not measured" if not big else "met" if sub else "NOT met"
        out.append(f"- input tokens vs files: {growth} (sub-linear beyond the budget: {verdict})")
    shares = [r.cache_share for r in rows]
    out.append(
        f"- cache-read share after each agent's first request: {min(shares):.1%}–{max(shares):.1%} "
        f"(≥ 80%: {'met' if min(shares) >= 0.8 else 'NOT met'})"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100, 1_000, 5_000])
    parser.add_argument("--findings", type=int, nargs="*", default=[1, 25, 60])
    parser.add_argument("--size-findings", type=int, default=20, help="findings in the size runs")
    parser.add_argument("--findings-size", type=int, default=100, help="files in the findings runs")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        sizes = [run_case(Path(tmp), n, args.size_findings) for n in args.sizes]
        findings = [run_case(Path(tmp), args.findings_size, f) for f in args.findings]
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for row in sizes + findings:
        print(_line(row))
    print()
    print("\n".join(_targets(sizes, findings)))
    print(f"\n(benchmark ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
