"""The CI axis: check states folded into passed / failed / not_run, gated per config."""

from __future__ import annotations

import pytest

from reviewbot.config.file import CIConfig
from reviewbot.sources.ci import CheckKind, CheckState, CheckStatus, ci_axis, ci_not_run
from reviewbot.verdict.axes import Outcome


def check(name: str, status: str, kind: CheckKind = CheckKind.CHECK_RUN) -> CheckState:
    return CheckState(name=name, status=CheckStatus(status), kind=kind)


class TestOutcome:
    @pytest.mark.parametrize(
        "status",
        ["failure", "cancelled", "timed_out", "action_required", "startup_failure", "error"],
        ids=str,
    )
    def test_failing_conclusions_fail(self, status):
        """Any failing conclusion fails the axis, whatever else passed."""
        result = ci_axis([check("lint", "success"), check("test", status)], CIConfig())
        assert result.outcome is Outcome.FAILED
        assert result.detail == f"failing: test ({status})"

    @pytest.mark.parametrize("status", ["pending", "queued", "in_progress", "stale"], ids=str)
    def test_unfinished_checks_are_not_run(self, status):
        """A check still running (or abandoned) means CI could not be judged yet."""
        result = ci_axis([check("lint", "success"), check("test", status)], CIConfig())
        assert result.outcome is Outcome.NOT_RUN
        assert result.detail == f"not finished: test ({status})"

    def test_success_neutral_skipped_pass(self):
        """Only success, neutral and skipped count as passing."""
        checks = [check("a", "success"), check("b", "neutral"), check("c", "skipped")]
        result = ci_axis(checks, CIConfig())
        assert (result.outcome, result.detail) == (Outcome.PASSED, "all 3 checks passed")

    def test_no_checks_is_not_a_pass(self):
        """Absence of evidence never passes: no CI at all is not_run."""
        result = ci_axis([], CIConfig())
        assert result.outcome is Outcome.NOT_RUN
        assert result.detail == "no CI checks reported for the head commit"

    def test_failure_outranks_pending(self):
        """With both a failure and a pending check, the axis fails and lists both."""
        result = ci_axis([check("a", "failure"), check("b", "queued")], CIConfig())
        assert result.outcome is Outcome.FAILED
        assert result.detail == "failing: a (failure); not finished: b (queued)"

    def test_statuses_count_like_check_runs(self):
        """A failing commit status fails the axis like a failing check run."""
        result = ci_axis([check("ci/jenkins", "failure", CheckKind.STATUS)], CIConfig())
        assert result.outcome is Outcome.FAILED


class TestExclusions:
    def test_own_check_is_excluded(self):
        """reviewbot's own (in-progress) check run never holds the CI axis."""
        result = ci_axis([check("reviewbot", "in_progress"), check("t", "success")], CIConfig())
        assert result.outcome is Outcome.PASSED

    def test_this_workflow_runs_jobs_are_excluded(self):
        """The jobs of the workflow run reviewbot runs in (GITHUB_RUN_ID) never count."""
        own = "https://github.com/octo/app/actions/runs/42/job/7"
        other = "https://github.com/octo/app/actions/runs/41/job/3"
        checks = [
            CheckState(name="review", status=CheckStatus.IN_PROGRESS, url=own),
            CheckState(name="test", status=CheckStatus.SUCCESS, url=other),
        ]
        assert ci_axis(checks, CIConfig(), run_id="42").outcome is Outcome.PASSED
        assert ci_axis(checks, CIConfig(), run_id="41").outcome is Outcome.NOT_RUN
        assert ci_axis(checks, CIConfig()).outcome is Outcome.NOT_RUN

    def test_checks_that_cannot_be_read_are_not_run(self):
        """A token that may not read checks makes the axis not_run, gated as configured."""
        result = ci_not_run(CIConfig(gated=True), "403: Resource not accessible")
        assert (result.outcome, result.gated) == (Outcome.NOT_RUN, True)

    def test_ignored_checks(self):
        """`ci.ignore` patterns drop checks before folding."""
        checks = [check("codecov/patch", "failure"), check("t", "success")]
        result = ci_axis(checks, CIConfig(ignore=("codecov/*",)))
        assert result.outcome is Outcome.PASSED


class TestGating:
    def test_not_gated_by_default(self):
        """The CI axis is reported but non-gated unless configured."""
        assert ci_axis([check("t", "failure")], CIConfig()).gated is False

    def test_gated_flag(self):
        """`ci.gated = true` gates on every check."""
        result = ci_axis([check("t", "failure")], CIConfig(gated=True))
        assert (result.name, result.gated, result.outcome) == ("ci", True, Outcome.FAILED)

    def test_gated_checks_select_and_gate(self):
        """With `gated_checks`, only those count and the axis is gated."""
        checks = [check("test (3.11)", "success"), check("flaky-e2e", "failure")]
        result = ci_axis(checks, CIConfig(gated_checks=("test (*)",)))
        assert (result.gated, result.outcome) == (True, Outcome.PASSED)

    def test_missing_gated_check_is_not_run(self):
        """A required check that never reported keeps the axis not_run, naming it."""
        checks = [check("test", "success")]
        result = ci_axis(checks, CIConfig(gated_checks=("test", "build")))
        assert result.outcome is Outcome.NOT_RUN
        assert result.detail == "required but absent: build"
