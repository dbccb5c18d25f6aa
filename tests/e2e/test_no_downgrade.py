"""Re-raising a finding at a lower priority never downgrades it (the real CLI, loopback fakes).

Head A: the reviewer finds a P0 (`eval` on the query). Head B adds an unrelated file, and the
model — as PR text could ask it to — records the same finding again as a P3 with little
confidence. Three ways, each ending before the fix with Ship and an APPROVE:

- incremental: the verifier confirmed the P0 on A; B's review is incremental;
- full: the same with `[review] incremental = false`;
- human: no verifier; a maintainer replied `/confirm` to the P0's comment; B is full.

A node's priority and confidence only get stricter across runs: B's finding is the confirmed
P0 still, and the PR is blocked — no approval, a failing check.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.messages_api import Scripted, reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]
BASE_APP = "def find(query):\n    return lookup(query)\n"
HEAD_APP = "def find(query):\n    return eval(query)\n"
P0 = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval() on the query",
    "body": "Any caller can run arbitrary code.",
    "anchor": {"path": "app.py", "start_line": 2, "end_line": 2, "quote": "    return eval(query)"},
}
P3 = {**P0, "priority": "P3", "confidence": 0.3, "body": "Minor style point, nothing urgent."}
FULL = "[review]\nincremental = false\n"
NO_VERIFIER = FULL + "\n[verifier]\nenabled = false\n"


def head_a(*, verified: bool) -> list[Scripted]:
    script = [
        reply(tool_use("add_review_node", P0)),
        reply(
            tool_use(
                "finalize_review",
                {"summary": "One P0.", "verdict": "block" if verified else "hold"},
            )
        ),
    ]
    if verified:
        script.append(reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval"})))
    return script


def head_b(*, read_first: bool) -> list[Scripted]:
    """The model re-records the P0 as a P3 and proposes Ship."""
    read = [reply(tool_use("read_file", {"path": "app.py"}))] if read_first else []
    return [
        *read,
        reply(tool_use("add_review_node", P3)),
        reply(tool_use("finalize_review", {"summary": "Only a nit.", "verdict": "ship"})),
    ]


def push(world: World) -> None:
    world.push({"other.py": "OTHER = 1\n"}, author=world.pull.author)


def confirm_by_maintainer(world: World) -> None:
    comments = world.github.repo(REPO).review_comments[world.pull.number]
    (parent,) = [c for c in comments if P0["title"] in c["body"]]
    world.github.add_reply(
        REPO, world.pull.number, in_reply_to=parent["id"], body="/confirm", author="maintainer"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    first: Run
    second: Run


def flow_of(worlds, name: str, *, config: str | None, verified: bool, read_first: bool) -> Flow:
    base = {"app.py": BASE_APP, **({".reviewbot.toml": config} if config else {})}
    world = worlds(
        name,
        base=base,
        head={"app.py": HEAD_APP},
        script=[*head_a(verified=verified), *head_b(read_first=read_first)],
        permissions={"maintainer": "write"},
    )
    world.github.approve_allowed = True  # so a Ship would be an APPROVE
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    if not verified:
        confirm_by_maintainer(world)
    push(world)
    event = pull_request_event(world, action="synchronize")
    return Flow(
        world=world, first=first, second=world.run(ARGS, event_name="pull_request", event=event)
    )


@pytest.fixture(scope="module")
def flows(worlds) -> dict[str, Flow]:
    return {
        "incremental": flow_of(worlds, "inc", config=None, verified=True, read_first=True),
        "full": flow_of(worlds, "full", config=FULL, verified=True, read_first=False),
        "human": flow_of(worlds, "human", config=NO_VERIFIER, verified=False, read_first=False),
    }


WAYS = ("incremental", "full", "human")


@pytest.mark.parametrize("way", WAYS)
class TestTheP0Stands:
    def test_the_first_review_holds_or_blocks_on_the_p0(self, flows, way):
        first = flows[way].first
        assert first.returncode == 0, first.stderr
        assert first.report()["verdict"] == ("hold" if way == "human" else "block")

    def test_the_finding_is_still_a_confirmed_p0(self, flows, way):
        """The re-raise at P3 changes nothing: P0, its confidence, confirmed."""
        second = flows[way].second
        assert second.returncode == 0, second.stderr
        (node,) = [n for n in second.report()["nodes"] if n["title"] == P0["title"]]
        assert (node["priority"], node["confidence"], node["status"]) == (
            "P0",
            0.95,
            "consensusReady",
        )

    def test_the_pr_is_blocked_with_no_approval(self, flows, way):
        """Block, a failing check, and no APPROVE in any review posted."""
        second = flows[way].second
        assert second.report()["verdict"] == "block"
        assert second.outputs["verdict"] == "block"
        events = [
            r.json().get("event") for r in second.calls("POST", f"/repos/{REPO}/pulls/7/reviews")
        ]
        assert "APPROVE" not in events
        (check,) = second.calls("POST", f"/repos/{REPO}/check-runs")
        assert check.json()["conclusion"] == "failure"


def test_the_incremental_review_ran_incrementally(flows):
    """The incremental flow is what it says (the P0 was carried, the model raised it again)."""
    review = flows["incremental"].second.report()["review"]
    assert review["kind"] == "incremental", review
