"""reviewbot's earlier approval stops counting when a later head is not a Ship (real CLI, fakes).

Head A is clean: Ship, and reviewbot APPROVES. Head B adds `cache.py` with a P1 the verifier
confirms: Hold, posted as a COMMENT — which on GitHub does not replace the approval. The run
dismisses reviewbot's own earlier approval (`PUT …/dismissals`), and only that one: a
maintainer's approval and an unsealed approval posted as the same account stay.

When GitHub refuses the dismissal (branch protection restricts who may dismiss reviews) with
`advisory_hold = true`, the Hold's check would pass (neutral) while the old approval still
counts: the check fails instead, and the summary and the report say which approval stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.messages_api import Scripted, reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]
BASE = {"app.py": "VALUE = 1\n"}
HEAD = {"app.py": "VALUE = 2\n"}
P1 = {
    "kind": "bug",
    "priority": "P1",
    "confidence": 0.8,
    "title": "KeyError on a missing key",
    "body": "`CACHE[key]` raises for a key never stored; use `.get`.",
    "anchor": {
        "path": "cache.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return CACHE[key]",
    },
}
ADVISORY = "[publish]\nadvisory_hold = true\n"


def script() -> list[Scripted]:
    return [
        reply(text("Nothing to report.")),  # head A: clean
        reply(tool_use("add_review_node", P1)),  # head B: a P1, confirmed
        reply(tool_use("finalize_review", {"summary": "One P1.", "verdict": "hold"})),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "KeyError"})),
    ]


def push(world: World) -> None:
    world.push({"cache.py": "def get(key):\n    return CACHE[key]\n"}, author=world.pull.author)


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    first: Run
    second: Run
    others: tuple[int, ...]  # reviews reviewbot must not touch


def flow_of(worlds, name: str, *, base: dict[str, str], dismiss_allowed: bool) -> Flow:
    world = worlds(name, base=base, head=HEAD, script=script())
    world.github.approve_allowed = True
    world.github.dismiss_allowed = dismiss_allowed
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    human = world.github.add_review(REPO, 7, "LGTM", author="maintainer", state="APPROVED")
    copy = world.github.add_review(REPO, 7, "ok", author="github-actions[bot]", state="APPROVED")
    push(world)
    event = pull_request_event(world, action="synchronize")
    second = world.run(ARGS, event_name="pull_request", event=event)
    return Flow(world=world, first=first, second=second, others=(human["id"], copy["id"]))


@pytest.fixture(scope="module")
def flows(worlds) -> dict[str, Flow]:
    return {
        "dismissed": flow_of(worlds, "dismissed", base=BASE, dismiss_allowed=True),
        "refused": flow_of(
            worlds, "refused", base={**BASE, ".reviewbot.toml": ADVISORY}, dismiss_allowed=False
        ),
    }


def states(flow: Flow) -> dict[int, str]:
    return {r["id"]: r["state"] for r in flow.world.github.repo(REPO).reviews[7]}


def approval_of(flow: Flow) -> int:
    assert flow.first.returncode == 0, flow.first.stderr
    published = flow.first.report()["published"]
    assert (flow.first.report()["verdict"], published["event"]) == ("ship", "APPROVE")
    return int(published["review_id"])


class TestDismissed:
    def test_head_b_holds_with_a_comment(self, flows):
        second = flows["dismissed"].second
        assert second.returncode == 0, second.stderr
        assert (second.report()["verdict"], second.report()["published"]["event"]) == (
            "hold",
            "COMMENT",
        )

    def test_reviewbots_approval_of_a_is_dismissed(self, flows):
        """The PUT …/dismissals with reviewbot's reason; GitHub's state is DISMISSED."""
        flow = flows["dismissed"]
        approval = approval_of(flow)
        (put,) = flow.second.calls("PUT", f"/pulls/7/reviews/{approval}/dismissals")
        assert put.json()["event"] == "DISMISS"
        assert "is Hold: this approval of an earlier head no longer stands" in put.json()["message"]
        assert states(flow)[approval] == "DISMISSED"
        assert flow.second.report()["published"]["dismissed_approvals"] == [approval]

    def test_other_approvals_are_never_touched(self, flows):
        """A maintainer's approval and an unsealed one by the same account stay APPROVED."""
        flow = flows["dismissed"]
        assert [states(flow)[i] for i in flow.others] == ["APPROVED", "APPROVED"]
        dismissals = [r for r in flow.second.github if r.path.endswith("/dismissals")]
        assert len(dismissals) == 1

    def test_the_summary_says_so(self, flows):
        comments = flows["dismissed"].world.github.repo(REPO).issue_comments[7]
        (summary,) = [c["body"] for c in comments if "reviewbot:summary" in c["body"]]
        assert "Dismissed reviewbot's earlier approval(s)" in summary


class TestRefused:
    def test_the_approval_still_stands_and_the_report_says_so(self, flows):
        flow = flows["refused"]
        approval = approval_of(flow)
        assert flow.second.returncode == 0, flow.second.stderr
        assert states(flow)[approval] == "APPROVED"
        published = flow.second.report()["published"]
        # The unsealed copy by the same account cannot be told apart from reviewbot's: it
        # is not dismissed, but it stands too (it counts toward required reviews).
        assert published["standing_approvals"] == [approval, flow.others[1]]
        assert any("could not be dismissed" in note for note in published["notes"])

    def test_the_advisory_hold_fails_the_check(self, flows):
        """Not neutral: with the old approval counting, a passing check would let it merge."""
        second = flows["refused"].second
        assert second.report()["verdict"] == "hold"
        (check,) = second.calls("POST", f"/repos/{REPO}/check-runs")
        assert check.json()["conclusion"] == "failure"
        assert "earlier approval could not be dismissed" in check.json()["output"]["title"]
        assert second.report()["published"]["check_conclusion"] == "failure"
