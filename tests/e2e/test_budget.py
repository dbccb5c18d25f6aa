"""The run's time budget is a bound: a Messages API that accepts and never answers still ends
in a published Hold, with what was found before the stop.

`.reviewbot.toml` on the base branch sets `[budget] timeout_seconds = 2`; the fake Messages
API stalls (reads the request, never answers). The subprocess guard of the harness
(`RUN_TIMEOUT`) fails a run that does not end; nothing here asserts how long a run took.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e.harness import Run, World, pull_request_event
from tests.fakes.messages_api import JSON, Reply, reply, tool_use
from tests.fakes.server import HUNG_UP, Stall

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
        """The run exits 0 with verdict Hold; the reviewer's stop reason is the timeout."""
        run = runs.hung
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "hold"
        assert _stops(run) == {"review": "timeout", "verifier": "skipped"}
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

    def test_the_summary_says_the_budget_ran_out(self, runs):
        """The summary names the timeout, so a reader knows why nothing was reviewed."""
        body = runs.hung.calls("POST", "/issues/7/comments")[0].json()["body"]
        assert "timeout" in body


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
