"""Benchmark the agent harness: a scripted review of a large synthetic PR against the fake API.

    python bench/bench_loop.py [N_FILES ...] [--reads N] [--context-tokens N] [--breakdown]
                                            (default: 300 files, 20 reads, [budget] context_tokens)

Builds a real git repository with `bench/synthetic.py` (N changed files: small and
large edits, additions, deletions, renames, binaries, a lockfile), indexes its diff,
and runs `run_panel` with the real `AnthropicClient` over `httpx.MockTransport` and
the fake Messages API (with a 1,024-token minimum cacheable prefix, as the real API
has for Sonnet). The scripted reviewer reads `--reads` files (20), adds 4 nodes (2 of
them P1) and finalizes; the verifier confirms one P1 and disputes the other.

Prints: model requests, total input tokens (the fake's count), the share of input
tokens that were cache reads, the effective input tokens (uncached + 0.1 × cache
reads + 1.25 × cache writes: what the tokens cost at the API's cache prices), the
local estimate against the API count, the packed context, and the harness time
excluding the time spent inside the fake. `--breakdown` also prints what the first
request is made of (tools, system prompt, the parts of the packed context, the
agent's own block; the local estimate and the fake's count of each) and every
request's cache usage.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import PRRepo, make_pr_repo
from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.panel import PanelOutcome, run_panel
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.file import ReviewConfig, is_excluded
from reviewbot.estimate import estimate_text
from reviewbot.redact import Redactor
from reviewbot.sources.diff_index import DiffIndex, LineKind, index_from_unified_diff
from reviewbot.sources.snapshot import Origin, PRSnapshot
from reviewbot.tools.ask_user import NoOperator
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import FakeMessagesAPI, count_tokens, reply, text, tool_use

READS = 20
CACHE_READ_PRICE = 0.1  # of the base input price
CACHE_WRITE_PRICE = 1.25  # 5-minute cache writes


def anchors(diff: DiffIndex, count: int) -> list[dict[str, Any]]:
    """Anchors on added lines of the first `count` modified source files."""
    found = []
    for file in diff:
        if file.binary or not file.path.endswith(".py"):
            continue
        added = [
            ln for h in file.hunks for ln in h.lines if ln.kind is LineKind.ADDED and ln.new_no
        ]
        if added:
            line = added[0]
            found.append(
                {
                    "path": file.path,
                    "start_line": line.new_no,
                    "end_line": line.new_no,
                    "quote": line.text,
                }
            )
        if len(found) == count:
            break
    return found


def node(anchor: dict[str, Any], priority: str, n: int) -> dict[str, Any]:
    return {
        "kind": "bug",
        "priority": priority,
        "confidence": 0.8,
        "title": f"Suspicious arithmetic change #{n}",
        "body": "The multiplier changes the result for every caller; no test covers it.",
        "anchor": anchor,
    }


def script(diff: DiffIndex, reads: int = READS) -> list[Any]:
    paths = [f.path for f in diff if f.path.endswith(".py") and not f.binary][:reads]
    found = anchors(diff, 4)
    turns: list[Any] = [
        reply(text("Reading the changed modules."), tool_use("read_file", {"path": paths[0]}))
    ]
    turns += [reply(tool_use("read_file", {"path": p})) for p in paths[1:]]
    turns += [
        reply(tool_use("add_review_node", node(a, "P1" if i < 2 else "P2", i)))
        for i, a in enumerate(found)
    ]
    turns.append(
        reply(tool_use("finalize_review", {"summary": "Two risky changes.", "verdict": "hold"}))
    )
    turns.append(
        reply(
            tool_use("confirm_review_node", {"id": "review-1", "reason": "checked the call sites"}),
            tool_use("dispute_review_node", {"id": "review-2", "reason": "only used in tests"}),
        )
    )  # both nodes it was given judged: the verifier's run ends with this turn
    return turns


def _api_count(text_: str) -> int:
    """The fake's count of `text_` as the text of one content block (JSON escapes included)."""
    return count_tokens({"text": text_}) - count_tokens({"text": ""})


_PART = (
    ("file heading", re.compile(r"^### ")),
    ("fence open", re.compile(r"^<untrusted_data")),
    ("fence close", re.compile(r"^</untrusted_data")),
    ("hunk header", re.compile(r"^@@")),
    ("diff line", re.compile(r"^ *\d+ [-+ ] ")),
    ("listed file", re.compile(r"^- ")),
)


def _context_parts(context: str) -> dict[str, list[str]]:
    """The packed context's lines by kind (prose, headings and blank lines are "other")."""
    parts: dict[str, list[str]] = {name: [] for name, _ in _PART}
    parts["other"] = []
    for line in context.split("\n"):
        kind = next((name for name, pattern in _PART if pattern.match(line)), "other")
        parts[kind].append(line)
    return parts


def breakdown(fake: FakeMessagesAPI) -> None:
    """What the first request is made of, and every request's cache usage."""
    first = fake.requests[0]
    rows: list[tuple[str, int, str]] = []
    for tool in first["tools"]:
        param = {k: v for k, v in tool.items() if k != "cache_control"}
        rows.append((f"tool {tool['name']}", count_tokens(param), json.dumps(param)))
    system = "".join(block["text"] for block in first["system"])
    rows.append(("system prompt", _api_count(system), system))
    context, *own = first["messages"][0]["content"]
    for kind, lines in _context_parts(context["text"]).items():
        joined = "\n".join(lines)
        rows.append((f"context: {kind} ×{len(lines)}", _api_count(joined), joined))
    for block in own:
        rows.append(("agent's own block", _api_count(block["text"]), block["text"]))
    print("  first request, part by part (API = the fake's count, est = agent/tokens.py):")
    for name, api, raw in rows:
        print(f"    {name:34} API {api:7,}  est {estimate_text(raw):7,}  chars {len(raw):8,}")
    print("  requests (uncached / cache write / cache read):")
    for number, usage in enumerate(fake.usages, 1):
        print(
            f"    #{number}: {usage['input_tokens']:,} / {usage['cache_creation_input_tokens']:,}"
            f" / {usage['cache_read_input_tokens']:,}"
        )


def local_snapshot(repo: PRRepo, diff: DiffIndex, config: ReviewConfig, body: str) -> PRSnapshot:
    """The synthetic PR as a local review sees it (no GitHub)."""
    return PRSnapshot(
        origin=Origin.LOCAL,
        url=None,
        repo=None,
        number=None,
        title="Synthetic change",
        body=body,
        author="bench",
        base_ref="main",
        head_ref="HEAD",
        base_sha=repo.base_sha,
        head_sha=repo.head_sha,
        diff=diff,
        checkout=repo.path,
        config=config,
    )


def review_with(fake: FakeMessagesAPI, snapshot: PRSnapshot, config: ReviewConfig) -> PanelOutcome:
    """`run_panel` with the real client over the fake's transport (no waits, no operator)."""
    client = AnthropicClient(
        "sk-ant-bench-0000000000",
        http_client=httpx.Client(transport=fake.transport()),
        sleep=lambda s: None,
    )
    return run_panel(
        snapshot,
        config,
        client=client,
        operator=NoOperator(),
        redactor=Redactor(),
        progress=SilentProgress(),
        excluded=lambda path: is_excluded(path, config.paths),
    )


def bench(
    n_files: int, reads: int = READS, *, show_parts: bool = False, context_tokens: int | None = None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_pr_repo(Path(tmp) / "repo", n_files)
        diff = index_from_unified_diff(
            git(repo.path, "diff", "-M", "--no-color", repo.base_sha, repo.head_sha)
        )
        config = ReviewConfig()
        if context_tokens is not None:
            budget = config.budget.model_copy(update={"context_tokens": context_tokens})
            config = config.model_copy(update={"budget": budget})
        snapshot = local_snapshot(repo, diff, config, "A large synthetic pull request.")
        fake = FakeMessagesAPI(script(diff, reads), min_cacheable_tokens=1_024)
        started = time.perf_counter()
        outcome = review_with(fake, snapshot, config)
        elapsed = time.perf_counter() - started
        assert not fake.problems, fake.problems
    stats, usage = fake.stats, outcome.usage
    print(f"PR with {len(diff)} changed files")
    print(
        f"  packed context       {outcome.coverage.files_in_context} files in full, "
        f"{len(outcome.coverage.files_listed)} listed, ~{outcome.packed_context_tokens:,} tokens (local estimate)"
    )
    print(f"  model requests       {stats.requests}")
    print(
        f"  input tokens         {stats.total_input:,} (uncached {stats.input_tokens:,}, "
        f"cache writes {stats.cache_write_tokens:,}, cache reads {stats.cache_read_tokens:,})"
    )
    # Over every request, the first included (bench_scale leaves out each agent's first request).
    print(f"  cache-read share     {stats.cache_read_tokens / stats.total_input:.1%}")
    effective = (
        stats.input_tokens
        + CACHE_READ_PRICE * stats.cache_read_tokens
        + CACHE_WRITE_PRICE * stats.cache_write_tokens
    )
    print(
        f"  effective input      {effective:,.0f} tokens (uncached + 0.1 × reads + 1.25 × writes)"
    )
    print(
        f"  local estimate       {usage.estimated_input_tokens:,} vs API count {usage.total_input_tokens:,} "
        f"({usage.estimated_input_tokens / usage.total_input_tokens:.2f}×)"
    )
    print(f"  cost (sonnet prices) ${usage.cost_usd:.3f}")
    print(
        "  agents               "
        + ", ".join(f"{a.name}: {a.stop_reason.value} in {a.turns} turns" for a in outcome.agents)
    )
    if fake.remaining:
        print(
            f"  scripted replies     {fake.remaining} unused: an agent stopped early (see its stop reason)"
        )
    print(
        f"  harness time         {elapsed - fake.busy_seconds:.3f}s (total {elapsed:.3f}s, inside the fake {fake.busy_seconds:.3f}s)"
    )
    if show_parts:
        breakdown(fake)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("files", type=int, nargs="*", default=[300])
    parser.add_argument("--reads", type=int, default=READS, help="files the reviewer reads")
    parser.add_argument(
        "--breakdown", action="store_true", help="print what the first request is made of"
    )
    parser.add_argument(
        "--context-tokens", type=int, default=None, help="the packed context's token budget"
    )
    args = parser.parse_args()
    for n in args.files:
        bench(n, args.reads, show_parts=args.breakdown, context_tokens=args.context_tokens)
