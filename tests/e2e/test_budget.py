"""The run's time budget is a bound: a Messages API that accepts and never answers still ends
in a published Hold, with what was found before the stop.

`.reviewbot.toml` on the base branch sets `[budget] timeout_seconds = 2`; the fake Messages
API stalls (reads the request, never answers), or answers 529/429 with a `retry-after` longer
than the budget. One rule tells the budget from a failing API: an API that never answered,
or kept failing until the deadline, is unreachable — exit 5 after the Hold is published —
while an answering API whose last answer is still due at the deadline is the budget (exit 0).
The subprocess guard of the harness (`RUN_TIMEOUT`) fails a run that does not end; nothing
here asserts how long a run took.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.fakes.messages_api import JSON, Reply, overloaded, rate_limited, reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.server import HUNG_UP, Stall
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import World

MESSAGES = r"^/v1/messages$"
CONFIG = "[budget]\ntimeout_seconds = 2\n"
APP_BASE = "def run(command):\n    return command\n"
APP_HEAD = "def run(command):\n    return eval(command)\n"
P0 = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval() on the command",
    "body": "Any caller can run arbitrary code.",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return eval(command)",
    },
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Runs:
    hung: Run  # the API stalls on the first request
    hung_world: World
    found: Run  # one node recorded, then the API stalls
    found_world: World


def _stall_after(world_ref: list[World], answer: Reply) -> Any:
    """A scripted turn that answers, and makes every later request stall."""

    def turn(_request: JSON) -> Reply:
        world_ref[0].model_server.fail_next("POST", MESSAGES, Stall(), times=10)
        return answer

    return turn


@pytest.fixture(scope="module")
def runs(worlds) -> Runs:
    """Two Action runs for `pull_request` opened, each against a Messages API that hangs."""
    files = {"app.py": APP_BASE, ".reviewbot.toml": CONFIG}
    hung = worlds("hung", base=files, head={"app.py": APP_HEAD})
    hung.model_server.fail_next("POST", MESSAGES, Stall(), times=10)
    ref: list[World] = []
    script = [_stall_after(ref, reply(tool_use("add_review_node", P0)))]
    found = worlds("found", base=files, head={"app.py": APP_HEAD}, script=script)
    ref.append(found)
    args = ["review", "--github-event", "--post"]
    pending = [
        w.start(args, event_name="pull_request", event=pull_request_event(w)) for w in (hung, found)
    ]
    first, second = (p.wait() for p in pending)
    return Runs(hung=first, hung_world=hung, found=second, found_world=found)


def _stops(run: Run) -> dict[str, str]:
    return {a["name"]: a["stop_reason"] for a in run.report()["agents"]}


class TestAHangingAPIStillEndsInAHold:
    def test_the_run_ends_and_holds(self, runs):
        """Verdict Hold, then exit 5: an API that answered nothing is unreachable, not a budget."""
        run = runs.hung
        assert run.returncode == 5, run.stderr
        assert run.outputs["verdict"] == "hold"
        assert _stops(run) == {"review": "error", "verifier": "skipped"}
        [agent] = [a for a in run.report()["agents"] if a["name"] == "review"]
        assert agent["exit_code"] == 5
        assert "it has answered no request of this run" in agent["error"]
        review = next(a for a in run.report()["axes"] if a["name"] == "review")
        assert (review["gated"], review["outcome"]) == (True, "not_run")

    def test_no_attempt_is_made_past_the_deadline(self, runs):
        """The one request's wait is the whole budget: it is not retried with a fresh timeout."""
        statuses = [r.status for r in runs.hung_world.model_server.snapshot()]
        assert statuses == [HUNG_UP]

    def test_the_hold_is_published(self, runs):
        """A review, the summary comment and the check run are posted."""
        run = runs.hung
        assert [p.json()["event"] for p in run.calls("POST", "/reviews")] == ["COMMENT"]
        assert len(run.calls("POST", "/issues/7/comments")) == 1
        assert len(run.calls("POST", "/check-runs")) == 1

    def test_the_summary_says_why(self, runs):
        """The summary names the unanswered request and the budget, so a reader knows why."""
        body = runs.hung.calls("POST", "/issues/7/comments")[0].json()["body"]
        assert "gave no answer within" in body
        assert "timeout_seconds" in body


@pytest.mark.parametrize(
    "failure",
    [overloaded(retry_after="30"), rate_limited(retry_after="30")],
    ids=["529", "429"],
)
def test_an_api_failing_until_the_deadline_is_exit_5_after_the_hold(worlds, failure):
    """A 529 or 429 whose retry-after passes the budget: not waited, the Hold is published, and
    the run exits 5 as any unreachable API (it used to be a budget stop, exit 0)."""
    files = {"app.py": APP_BASE, ".reviewbot.toml": CONFIG}
    world = worlds("failing", base=files, head={"app.py": APP_HEAD}, script=[failure])
    run = world.run(
        ["review", "--github-event", "--post"],
        event_name="pull_request",
        event=pull_request_event(world),
    )
    assert run.returncode == 5, run.stderr
    assert run.outputs["verdict"] == "hold"
    assert _stops(run) == {"review": "error", "verifier": "skipped"}
    assert "kept failing" in run.stderr
    assert [p.json()["event"] for p in run.calls("POST", "/reviews")] == ["COMMENT"]
    assert len(run.calls("POST", "/check-runs")) == 1
    assert [r.status for r in world.model_server.snapshot()] == [failure.status]


class TestWhatWasFoundBeforeTheStopIsKept:
    def test_the_node_is_published_with_the_hold(self, runs):
        """The P0 recorded before the API hung is in the report and posted inline."""
        run = runs.found
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "hold"
        assert [n["title"] for n in run.report()["nodes"]] == ["eval() on the command"]
        posted = [p.json() for p in run.calls("POST", "/reviews")]
        assert [[c["path"] for c in p["comments"]] for p in posted] == [["app.py"]]

    def test_every_agent_stops_on_the_shared_deadline(self, runs):
        """The reviewer times out mid-review; the verifier, due to check the P0, is not started late."""
        assert _stops(runs.found) == {"review": "timeout", "verifier": "timeout"}
        statuses = [r.status for r in runs.found_world.model_server.snapshot()]
        assert statuses == [200, HUNG_UP]
