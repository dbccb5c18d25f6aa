"""`reviewbot review`'s target: one `ReviewTarget` from the flags, and the run's exit gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.config.target import (
    EventTarget,
    LocalTarget,
    PullTarget,
    SnapshotTarget,
    TargetFlags,
    parse_target,
)
from reviewbot.errors import ExitCode, UsageError
from reviewbot.results.report import AgentReport
from reviewbot.results.run import StopReason
from reviewbot.review.gate import gate
from reviewbot.verdict.lattice import Verdict
from tests.factories import sample_report

URL = "https://github.com/octo/app/pull/7"


class TestParseTarget:
    @pytest.mark.parametrize(
        ("flags", "in_event", "expected"),
        [
            (TargetFlags(pr_url=URL), False, PullTarget(URL)),
            (TargetFlags(local=True), False, LocalTarget()),
            (
                TargetFlags(local=True, base="dev", worktree=True, given=("base",)),
                False,
                LocalTarget(base="dev", worktree=True),
            ),
            (TargetFlags(github_event=True), False, EventTarget()),
            (TargetFlags(), True, EventTarget()),  # in GitHub Actions, the event is the target
            (TargetFlags(from_snapshot=Path("pr")), True, SnapshotTarget(Path("pr"))),
            (TargetFlags(pr_url=URL), True, PullTarget(URL)),  # a URL wins inside Actions too
        ],
        ids=["url", "local", "local-options", "event", "actions", "snapshot", "url-in-actions"],
    )
    def test_each_flag_names_its_target(self, flags, in_event, expected):
        """Exactly one target flag names the target; none at all is the Actions event."""
        assert parse_target(flags, in_event=in_event) == expected

    @pytest.mark.parametrize(
        ("flags", "message"),
        [
            (TargetFlags(pr_url=URL, local=True), "give one of"),
            (TargetFlags(github_event=True, from_snapshot=Path("pr")), "give one of"),
            (TargetFlags(), "nothing to review"),
            (TargetFlags(local=True, post=True), "(drop --post)"),
            (TargetFlags(local=True, post=True, post_from_env=True), "REVIEWBOT_POST is set"),
            (TargetFlags(pr_url=URL, given=("base",)), "only apply to --local"),
            (TargetFlags(github_event=True, worktree=True), "only apply to --local"),
            (TargetFlags(local=True, worktree=True, given=("head",)), "give it or --head"),
        ],
        ids=["url+local", "event+snapshot", "none", "post", "post-env", "base", "worktree", "head"],
    )
    def test_a_contradiction_is_one_usage_error(self, flags, message):
        """Two targets, none, or an option the target would ignore: one line, exit 2."""
        with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_target(flags, in_event=False)


def stopped(code: int | None, error: str | None = None) -> AgentReport:
    return AgentReport(
        name="review",
        role="reviewer",
        model="claude-sonnet-5",
        stop_reason=StopReason.ERROR if code else StopReason.FINALIZED,
        error=error,
        exit_code=code,
    )


class TestGate:
    def test_a_stopped_agent_ends_with_its_own_code_before_fail_on(self):
        """A failing API is not a verdict: its code wins over --fail-on."""
        report = sample_report().model_copy(
            update={"agents": (stopped(None), stopped(5, "unreachable"), stopped(3, "refused"))}
        )
        failure = gate(report, "hold")
        assert failure is not None
        assert (failure.code, failure.message) == (5, "unreachable")

    @pytest.mark.parametrize(
        ("verdict", "fail_on", "fails"),
        [
            ("hold", "none", False),
            ("hold", "hold", True),
            ("hold", "block", False),
            ("block", "hold", True),
            ("ship", "hold", False),
        ],
    )
    def test_fail_on_compares_the_verdict(self, verdict, fail_on, fails):
        """--fail-on fails the step when the verdict reaches its level, never with `none`."""
        report = sample_report().model_copy(update={"verdict": Verdict.parse(verdict)})
        failure = gate(report, fail_on)
        assert (failure is not None) is fails
        if failure is not None:
            assert failure.code == ExitCode.FAIL_ON
