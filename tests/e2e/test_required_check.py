"""The Action on `pull_request` without an Anthropic key: a Hold, and what branch protection makes of it.

Default config: the required `reviewbot` check fails, the step exits 0 (`fail-on: none`),
the outputs say `hold`. `[publish] advisory_hold = true` on the base branch does not make
this Hold pass: no model received the PR, so every changed file is unseen and the
coverage is partial, which never passes (tests/reliability/test_required_check.py has an
advisory Hold that passes). `--fail-on hold` still fails the step: `fail-on` judges the
verdict, the check judges verdict, coverage and the base config.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

BASE = {"app.py": "def greet(name):\n    return 'hi ' + name\n"}
HEAD = {"app.py": "def greet(name):\n    return 'hi ' + name.strip()\n"}
ADVISORY = {**BASE, ".reviewbot.toml": "[publish]\nadvisory_hold = true\n"}
ARGS = ["review", "--github-event", "--post"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Holds:
    default: World
    default_run: Run
    advisory: World
    advisory_run: Run


@pytest.fixture(scope="module")
def holds(worlds) -> Holds:
    """One run per config, both without ANTHROPIC_API_KEY (the review axis cannot run → Hold)."""
    default = worlds("hold-default", base=BASE, head=HEAD)
    default_run = default.run(
        ARGS, event_name="pull_request", event=pull_request_event(default), anthropic=False
    )
    advisory = worlds("hold-advisory", base=ADVISORY, head=HEAD)
    advisory_run = advisory.run(
        [*ARGS, "--fail-on", "hold"],
        event_name="pull_request",
        event=pull_request_event(advisory),
        anthropic=False,
    )
    return Holds(
        default=default, default_run=default_run, advisory=advisory, advisory_run=advisory_run
    )


def _required(world: World) -> str:
    return world.github.required_check(REPO, world.pull.head_sha, "reviewbot")


class TestDefaultHold:
    def test_the_pr_is_not_mergeable(self, holds):
        """A required `reviewbot` check fails on the Hold: the PR cannot merge."""
        assert _required(holds.default) == "failing"

    def test_the_step_succeeds_with_hold_in_the_outputs(self, holds):
        """`fail-on: none`: the step exits 0; the verdict output and the report say Hold."""
        run = holds.default_run
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "hold"
        assert run.report()["published"]["check_conclusion"] == "failure"

    def test_the_check_title_says_hold_and_why(self, holds):
        """The title a reviewer sees in the checks list names the verdict and its reason."""
        (post,) = holds.default_run.calls("POST", "/check-runs")
        title = post.json()["output"]["title"]
        assert title == (
            "🟡 Hold (blocks merge: coverage is partial): gated axis `review` could not run: "
            "ANTHROPIC_API_KEY is not set"
        )


class TestAdvisoryHoldWithoutAModel:
    """Advisory Hold informs about a reviewed PR; a run in which no model ran reviewed nothing."""

    def test_the_pr_is_not_mergeable(self, holds):
        """No key: every changed file is unseen, coverage is partial, so the check fails."""
        assert _required(holds.advisory) == "failing"
        (post,) = holds.advisory_run.calls("POST", "/check-runs")
        assert post.json()["conclusion"] == "failure"
        assert post.json()["output"]["title"].startswith("🟡 Hold (blocks merge: ")

    def test_the_coverage_says_nothing_was_reviewed(self, holds):
        """The report and the summary say 0 files were reviewed, and why."""
        coverage = holds.advisory_run.report()["coverage"]
        assert (coverage["partial"], coverage["files_in_context"]) == (True, 0)
        [unseen] = coverage["unseen"]
        assert unseen["path"] == "app.py"
        assert unseen["reason"] == "no model ran: ANTHROPIC_API_KEY is not set"
        body = holds.advisory_run.calls("POST", "/comments")[-1].json()["body"]
        assert "Files reviewed: none of 1 changed files (no model ran)" in body
        assert "Nothing was reviewed: no model ran: ANTHROPIC_API_KEY is not set" in body

    def test_fail_on_hold_still_fails_the_step(self, holds):
        """`--fail-on hold` judges the verdict: exit 1 after the check is published."""
        run = holds.advisory_run
        assert run.returncode == 1, run.stderr
        assert run.outputs["verdict"] == "hold"
        assert run.report()["published"]["check_conclusion"] == "failure"
