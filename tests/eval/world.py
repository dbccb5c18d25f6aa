"""Two PRs of a benchmark in one fake GitHub, and the scripts that make the fake model review
and judge them.

PR A is octo/app#7 (the harness's world), PR B is octo/lib#3 (a second repository seeded into
the same fake GitHub). Each finding's judgement is scripted by its title, so the judge's reply
depends on the finding it was actually sent, not on the order the findings arrive in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.gitrepo import make_repo
from tests.fakes.messages_api import (
    JSON,
    FakeMessagesAPI,
    Reply,
    Scripted,
    reply,
    text,
    tool_use,
)
from tests.fakes.pulls import seed_pull
from tests.fakes.world import World, open_world

URL_A = "https://github.com/octo/app/pull/7"
URL_B = "https://github.com/octo/lib/pull/3"
JUDGE_TOOL = "record_judgement"

APP_BASE = "def run(command):\n    return command\n\n\ndef pay(amount):\n    return amount\n"
APP_HEAD = (
    "def run(command):\n    return eval(command)\n\n\ndef pay(amount):\n    return charge(amount)\n"
)
LIB_BASE = (
    "def load(path):\n    return open(path).read()\n\n\n"
    "def parse(text):\n    return text.split(',')\n\n\n"
    "def total(values):\n    return sum(values)\n"
)
LIB_HEAD = (
    "def load(path):\n    return open(path).read()[1:]\n\n\n"
    "def parse(text):\n    return text.split(';')\n\n\n"
    "def total(values):\n    return sum(values) / len(values)\n"
)

GOLDEN_A = [
    {
        "comment": "run() passes user input to eval(): arbitrary code execution",
        "severity": "Critical",
    },
    {"comment": "pay() does not reject negative amounts", "severity": "Medium"},
]
GOLDEN_B = [
    {"comment": "load() silently drops the first character of the file", "severity": "High"},
    {
        "comment": "parse() now splits on ';', which breaks existing comma-separated input",
        "severity": "Low",
    },
    {"comment": "total() divides by zero on an empty list", "severity": "High"},
]
BENCH = [
    {"pr_title": "Run commands", "url": URL_A, "comments": GOLDEN_A, "az_comment": "ignored"},
    {"pr_title": "Loader fixes", "url": URL_B, "comments": GOLDEN_B},
]


def node(title: str, priority: str, path: str, line: int, quote: str, kind: str = "bug") -> JSON:
    return {
        "kind": kind,
        "priority": priority,
        "confidence": 0.9,
        "title": title,
        "body": f"{title}.",
        "anchor": {"path": path, "start_line": line, "end_line": line, "quote": quote},
    }


# PR A: N1 and N2 both describe golden #1 (duplicates), N3 matches nothing.
FINDINGS_A = [
    node("eval() executes the command string", "P2", "app.py", 2, "    return eval(command)"),
    node("Arbitrary code execution through run()", "P2", "app.py", 2, "    return eval(command)"),
    node(
        "Name the charge helper more clearly",
        "P3",
        "app.py",
        6,
        "    return charge(amount)",
        "suggestion",
    ),
]
JUDGED_A: dict[str, int | None] = {
    "eval() executes the command string": 1,
    "Arbitrary code execution through run()": 1,
    "Name the charge helper more clearly": None,
}
# PR B: M1 (P1, so the verifier runs) matches #1, M2 matches #2, M3 and M4 match nothing.
FINDINGS_B = [
    node("load() drops the first character", "P1", "lib.py", 2, "    return open(path).read()[1:]"),
    node(
        "The separator changed from comma to semicolon",
        "P3",
        "lib.py",
        6,
        "    return text.split(';')",
    ),
    node(
        "total() now returns a mean, not a sum",
        "P2",
        "lib.py",
        10,
        "    return sum(values) / len(values)",
    ),
    node(
        "Use a context manager for open()",
        "P3",
        "lib.py",
        2,
        "    return open(path).read()[1:]",
        "suggestion",
    ),
]
JUDGED_B: dict[str, int | None] = {
    "load() drops the first character": 1,
    "The separator changed from comma to semicolon": 2,
    "total() now returns a mean, not a sum": None,
    "Use a context manager for open()": None,
}


def judge_reply(answers: Mapping[str, int | None]) -> Scripted:
    """The judge's answer for whichever finding the request carries."""

    def answer(request: JSON) -> Reply:
        shown = request["messages"][-1]["content"][-1]["text"]
        titles = [title for title in answers if title in shown]
        assert len(titles) == 1, f"the judge request names {titles}"
        golden = answers[titles[0]]
        reason = "same issue" if golden else "no golden comment describes this"
        return reply(tool_use(JUDGE_TOOL, {"golden": golden, "reason": reason}))

    return answer


def script_a() -> list[Scripted]:
    """Reviewer (one turn of nodes, then done; no P0/P1, so no verifier), then the judge ×3."""
    return [
        reply(*(tool_use("add_review_node", f) for f in FINDINGS_A)),
        reply(text("Reviewed.")),
        *(judge_reply(JUDGED_A) for _ in FINDINGS_A),
    ]


def script_b() -> list[Scripted]:
    """Reviewer, the verifier confirming the P1, then the judge ×4."""
    return [
        reply(*(tool_use("add_review_node", f) for f in FINDINGS_B)),
        reply(text("Reviewed.")),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "the slice drops it"})),
        *(judge_reply(JUDGED_B) for _ in FINDINGS_B),
    ]


@contextmanager
def bench_world(root: Path, model: FakeMessagesAPI | None = None) -> Iterator[World]:
    """The harness's world (PR A) with PR B of a second repository added to its fake GitHub;
    `model`: a fake Messages API of the test's (e.g. one script per PR) instead of one script."""
    app = {"base": {"app.py": APP_BASE}, "head": {"app.py": APP_HEAD}}
    with open_world(root / "world", **app, model=model) as world:
        lib = make_repo(root / "lib", {"lib.py": LIB_BASE}, {"lib.py": LIB_HEAD}).path
        seed_pull(
            world.github, lib, "main", "feature", full_name="octo/lib", number=3, author="octocat"
        )
        yield world


def by_pr(body: JSON) -> str:
    """Which PR a request is about, whichever worker sent it: B's name its repository or file."""
    shown = json.dumps(body)
    return "B" if "octo/lib" in shown or "lib.py" in shown else "A"


def routed_model() -> FakeMessagesAPI:
    """The two PRs' scripts apart, each answered in its own order: for concurrent runs."""
    return FakeMessagesAPI(scripts={"A": script_a(), "B": script_b()}, route=by_pr)


def write_bench(path: Path, entries: Any) -> Path:
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def eval_args(bench: Path, out: Path, cache: Path, *extra: str) -> list[str]:
    return ["eval", str(bench), "--out", str(out), "--cache-dir", str(cache), *extra]


# What depends on the order requests reach the API: which PR's request first writes a prompt
# prefix both PRs share (the system prompt, the tools) to the cache, and which reads it. The
# total input, the requests and the output do not depend on it.
ORDER_DEPENDENT = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd")


def without_cache_split(value: Any) -> Any:
    """`value` with each usage's input split and cost replaced by its order-free total input."""
    if isinstance(value, dict):
        if "cache_read_tokens" in value:
            kept = {k: v for k, v in value.items() if k not in ORDER_DEPENDENT}
            total = sum(value[k] for k in ORDER_DEPENDENT[:3])
            return {**kept, "total_input": total}
        return {k: without_cache_split(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_cache_split(v) for v in value]
    return value
