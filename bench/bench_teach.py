"""Benchmark teaching reviewbot: what a 10 kB AGENTS.md costs a review, and how quiet re-reviews are.

    python bench/bench_teach.py [--agents-kb 10]

Real CLI runs (`review --github-event --post`, as GitHub Actions runs it) against the
loopback GitHub and Messages API fakes of tests/e2e/harness.py; the fake prices each
request's prompt with its own tokenizer and cache (a breakpoint's prefix is written once,
read afterwards; nothing under 1,024 tokens is cached, as for Sonnet).

1. Guidelines: the same one-file PR reviewed twice, the base without and with an
   AGENTS.md of `--agents-kb` kB. The reviewer finds a P1 and ends; the verifier confirms
   it: three requests, the last two after the prefix was written. Prints each request's
   uncached input, cache writes and cache reads, and the difference the file makes.
2. Re-reviews: the scripted 3-push PR of tests/e2e/test_teaching.py (a P3 and a P1, then a
   re-raised P3, a new P3 and a new P2, then a new P3 and a new P1), once with the default
   `rereview_min_priority = "P2"` and once with "P3" (every new finding inline). Prints the
   inline comments each push posted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.harness import open_world, pull_request_event
from tests.e2e.test_teaching import NO_VERIFIER, PUSHES, app, found, posted_per_run, three_pushes
from tests.fakes.messages_api import FakeMessagesAPI, reply, text, tool_use

ARGS = ["review", "--github-event", "--post"]
MIN_CACHEABLE = 1_024
BASE = {"pay.py": "def total(items):\n    return sum(i.cents for i in items)\n"}
HEAD = {"pay.py": "def total(items):\n    return sum(float(i.price) for i in items)\n"}
FINDING = {
    "kind": "bug",
    "priority": "P1",
    "confidence": 0.9,
    "title": "A float for money",
    "body": "Amounts are integer cents.",
    "anchor": {
        "path": "pay.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return sum(float(i.price) for i in items)",
    },
}


def agents_md(kb: int) -> str:
    """Prose of about `kb` kB, like a real AGENTS.md: numbered conventions with reasons."""
    rules, n = [], 0
    while sum(map(len, rules)) < kb * 1_000:
        n += 1
        rules.append(
            f"{n}. Handlers in module {n} validate input before use, log with the request id, "
            f"and never catch a bare exception: the on-call runbook relies on it (rule {n}).\n"
        )
    return "# Conventions for reviewers\n\n" + "".join(rules)


def guideline_cost(root: Path, kb: int) -> list[dict[str, Any]]:
    script = [
        reply(tool_use("add_review_node", FINDING)),
        reply(text("One bug.")),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "float money"})),
    ]
    base = {**BASE, "AGENTS.md": agents_md(kb)} if kb else BASE
    model = FakeMessagesAPI(script, min_cacheable_tokens=MIN_CACHEABLE)
    with open_world(root, base=base, head=HEAD, model=model) as world:
        run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
        assert run.returncode in (0, 1), run.stderr
        used = run.report()["guidelines"]
        print(f"  guidelines used: {[(g['path'], g['size'], g['tokens']) for g in used]}")
        return list(world.model.usages)


def print_usages(name: str, usages: list[dict[str, Any]]) -> tuple[int, int, int]:
    print(f"| {name} | request | uncached input | cache write | cache read |")
    print("|---|---|---|---|---|")
    for n, u in enumerate(usages, 1):
        row = (u["input_tokens"], u["cache_creation_input_tokens"], u["cache_read_input_tokens"])
        print(f"| | {n} | {row[0]:,} | {row[1]:,} | {row[2]:,} |")
    sums = tuple(sum(u[k] for u in usages) for k in _KEYS)
    print(f"| | total | {sums[0]:,} | {sums[1]:,} | {sums[2]:,} |")
    return sums[0], sums[1], sums[2]


_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def rereviews(root: Path, floor: str) -> list[int]:
    config = NO_VERIFIER + f'[publish]\nrereview_min_priority = "{floor}"\n'
    script = [step for _, nodes in PUSHES for step in found(*nodes)]
    base = {".reviewbot.toml": config, "app.py": app(range(0))}
    with open_world(root, base=base, head={"app.py": app(PUSHES[0][0])}, script=script) as world:
        return posted_per_run(three_pushes(world))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents-kb", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-teach-") as tmp:
        print("1. Input tokens of one review (reviewer: 2 requests, verifier: 1)")
        plain = print_usages("no guidelines", guideline_cost(Path(tmp) / "plain", 0))
        guided = print_usages(
            f"{args.agents_kb} kB AGENTS.md", guideline_cost(Path(tmp) / "guided", args.agents_kb)
        )
        added = [g - p for g, p in zip(guided, plain, strict=True)]
        print(
            f"added by the AGENTS.md: uncached {added[0]:,}, cache write {added[1]:,}, "
            f"cache read {added[2]:,} tokens"
        )
        print("\n2. Inline comments posted per push of a scripted 3-push PR")
        print("| rereview_min_priority | push 1 | push 2 | push 3 |")
        print("|---|---|---|---|")
        for floor in ("P2", "P3"):
            counts = rereviews(Path(tmp) / f"push-{floor}", floor)
            print(f"| {floor} | " + " | ".join(map(str, counts)) + " |")


if __name__ == "__main__":
    main()
