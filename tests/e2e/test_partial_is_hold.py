"""Partial coverage is never a Ship, in any output (the real CLI, loopback GitHub and model).

The PR changes two files; `big.py` does not fit `[budget] context_tokens` and the reviewer
does not read it, then proposes Ship. Nobody saw `big.py`: the `review` axis did not fully
run, so it is `partial` and the verdict is Hold — in the JSON report, the Action's
`verdict` output, the review's event and body, the check run, `--fail-on hold` (exit 1),
and the terminal's headline, which names what was not reviewed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from tests.fakes.messages_api import Scripted, reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

CONFIG = "[budget]\ncontext_tokens = 2000\n"
BIG = "".join(f"ROW_{n} = {n}  # padding that costs tokens\n" for n in range(1_500))
BASE = {".reviewbot.toml": CONFIG, "small.py": "VALUE = 1\n", "big.py": "ROW = 0\n"}
HEAD = {"small.py": "VALUE = 2\n", "big.py": BIG}
ARGS = ["review", "--github-event", "--post", "--fail-on", "hold"]


def ships() -> list[Scripted]:
    return [reply(tool_use("finalize_review", {"summary": "Looks fine.", "verdict": "ship"}))]


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    action: Run
    terminal: Run


@pytest.fixture(scope="module")
def flow(worlds) -> Flow:
    world = worlds("partial-ship", base=BASE, head=HEAD, script=[*ships(), *ships()])
    world.github.approve_allowed = True  # an approval would be posted if the verdict allowed it
    action = world.start(ARGS, event_name="pull_request", event=pull_request_event(world))
    terminal = world.start(
        ["review", "--local", "--base", "main", "--fail-on", "hold"], github=False, cwd=world.repo
    )
    return Flow(world=world, action=action.wait(), terminal=terminal.wait())


class TestEveryOutputSaysHold:
    def test_the_report_is_hold_with_a_partial_review_axis(self, flow):
        """The report's verdict is Hold and the `review` axis says what it did not see."""
        report = flow.action.report()
        assert report["coverage"]["partial"] is True
        assert [f["path"] for f in report["coverage"]["unseen"]] == ["big.py"]
        assert report["verdict"] == "hold"
        (review,) = [a for a in report["axes"] if a["name"] == "review"]
        assert review["outcome"] == "partial"
        assert "1 of 2 changed file(s) unseen" in review["detail"]

    def test_fail_on_hold_fails_and_the_output_says_hold(self, flow):
        """`--fail-on hold` exits 1; the Action's `verdict` output is `hold`."""
        assert flow.action.returncode == 1, flow.action.stderr
        assert flow.action.outputs["verdict"] == "hold"

    def test_the_review_is_a_comment_headed_hold(self, flow):
        """The review is no approval, and its body's headline is the Hold and why."""
        (posted,) = flow.action.calls("POST", f"/repos/{REPO}/pulls/7/reviews")
        review = posted.json()
        assert review["event"] == "COMMENT"
        headline = review["body"].splitlines()[0]
        assert "Hold" in headline
        assert "Ship" not in headline

    def test_the_check_fails_titled_hold(self, flow):
        """The check run fails and its title is the Hold, not a Ship."""
        (posted,) = flow.action.calls("POST", f"/repos/{REPO}/check-runs")
        check = posted.json()
        assert check["conclusion"] == "failure"
        assert check["output"]["title"].startswith("🟡 Hold (blocks merge: coverage is partial)")
        assert "did not see the whole PR" in check["output"]["title"]

    def test_the_summary_is_headed_hold(self, flow):
        """The summary comment (and so `--format markdown`) is headed Hold."""
        comments = flow.world.github.repo(REPO).issue_comments[7]
        (summary,) = [c["body"] for c in comments if "reviewbot:summary" in c["body"]]
        heading = next(line for line in summary.splitlines() if line.startswith("## "))
        assert heading.startswith("## 🟡 Hold")
        marker = summary.split("<!-- reviewbot:summary ", 1)[1].split(" -->", 1)[0]
        assert json.loads(marker)["verdict"] == "hold"


class TestTheTerminalHeadline:
    def test_the_box_is_a_hold_naming_what_was_not_reviewed(self, flow):
        """The first lines (the verdict box) say Hold and how much nobody saw."""
        assert flow.terminal.returncode == 1, flow.terminal.stderr
        box = flow.terminal.stdout.split("\n\n", 1)[0]
        head = "\n".join(box.splitlines()[:6])
        assert "Hold" in head
        assert "Ship" not in head
        assert "Not reviewed: 1 of 2 changed file(s)" in head
        assert "big.py" in head
