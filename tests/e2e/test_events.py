"""The other Action triggers end to end: `/review` comments, `check_suite` refolds, fork PRs.

The independent runs start together (each in its own world) so the module stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.talk import DROP_ZERO as MINOR
from tests.fakes.talk import SUM_BASE as BASE
from tests.fakes.talk import SUM_HEAD as HEAD
from tests.fakes.webhooks import check_suite_event, issue_comment_event, pull_request_event
from tests.fakes.world import REPO, World

GATED_CI = {**BASE, ".reviewbot.toml": "[ci]\ngated = true\n"}
ARGS = ["review", "--github-event", "--post"]


def clean_review() -> list:
    """A reviewer that ends its turn without nodes (the verifier then has nothing to do)."""
    return [reply(text("Nothing to report: the change is harmless."))]


@dataclass(frozen=True, slots=True, kw_only=True)
class Runs:
    writer: Run
    writer_world: World
    reader: Run
    reader_world: World
    fork: Run
    fork_world: World
    reviewed: Run  # the pull_request review before CI finished
    refold: Run  # the check_suite completed run after CI failed
    suite_world: World


@pytest.fixture(scope="module")
def runs(worlds) -> Runs:
    """Start the comment, fork and first CI-world runs together; then refold after CI fails."""
    writer_world = worlds(
        "writer", base=BASE, head=HEAD, script=clean_review(), permissions={"maintainer": "write"}
    )
    reader_world = worlds("reader", base=BASE, head=HEAD, permissions={"reader": "read"})
    fork_world = worlds("fork", base=BASE, head=HEAD, fork=True)
    suite_world = worlds(
        "suite",
        base=GATED_CI,
        head=HEAD,
        script=[reply(tool_use("add_review_node", MINOR)), reply(text("Only a nit."))],
    )
    ci_run = suite_world.github.add_check_run(
        REPO, name="tests", head_sha=suite_world.pull.head_sha, status="in_progress"
    )
    started = [
        writer_world.start(
            ARGS,
            event_name="issue_comment",
            event=issue_comment_event(writer_world, login="maintainer"),
        ),
        reader_world.start(
            ARGS,
            event_name="issue_comment",
            event=issue_comment_event(reader_world, login="reader", association="COLLABORATOR"),
        ),
        fork_world.start(
            ARGS, event_name="pull_request", event=pull_request_event(fork_world), anthropic=False
        ),
        suite_world.start(ARGS, event_name="pull_request", event=pull_request_event(suite_world)),
    ]
    writer, reader, fork, reviewed = (pending.wait() for pending in started)
    ci_run.update(status="completed", conclusion="failure")  # CI finished, red
    refold = suite_world.run(ARGS, event_name="check_suite", event=check_suite_event(suite_world))
    for world in (writer_world, reader_world, fork_world, suite_world):
        world.model.verify()
    return Runs(
        writer=writer,
        writer_world=writer_world,
        reader=reader,
        reader_world=reader_world,
        fork=fork,
        fork_world=fork_world,
        reviewed=reviewed,
        refold=refold,
        suite_world=suite_world,
    )


def _stderr_lines(run: Run) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.strip()]


class TestReviewCommandByAWriter:
    def test_runs_the_review_and_posts_it(self, runs):
        """`/review` by a user with write access reviews the PR and posts one review."""
        run = runs.writer
        assert run.returncode == 0, run.stderr
        assert len(run.model) == 1
        assert run.outputs["verdict"] == "ship"
        attempts = [(p.json()["event"], p.status) for p in run.calls("POST", "/reviews")]
        assert attempts == [("APPROVE", 422), ("COMMENT", 200)]
        reviews = runs.writer_world.github.repo(REPO).reviews[runs.writer_world.pull.number]
        # GITHUB_TOKEN may not approve: the publisher falls back to a comment review.
        assert [r["state"] for r in reviews] == ["COMMENTED"]

    def test_checks_the_commenters_permission_through_the_api(self, runs):
        """The payload's association is only a hint: the permission endpoint is asked."""
        asked = runs.writer.calls("GET", f"/repos/{REPO}/collaborators/maintainer/permission")
        assert len(asked) == 1


class TestReviewCommandByAReader:
    def test_is_skipped_with_the_reason_and_exit_zero(self, runs):
        """A collaborator with read access is refused on stderr, and the step still succeeds."""
        run = runs.reader
        assert run.returncode == 0, run.stderr
        assert (
            "reviewbot: nothing to review: /review by reader ignored: they have read access, "
            "and write access is required" in _stderr_lines(run)
        )
        assert run.outputs == {"verdict": "", "report-path": ""}

    def test_makes_no_model_request_and_no_write(self, runs):
        """Nothing is spent and nothing is posted for a refused command."""
        assert runs.reader.model == ()
        assert runs.reader.writes() == []
        assert runs.reader.calls("GET", "/collaborators/reader/permission")


class TestCheckSuiteRefold:
    def test_the_review_before_ci_finished_held(self, runs):
        """With `[ci] gated = true` and CI still running, the first review is Hold."""
        assert runs.reviewed.returncode == 0, runs.reviewed.stderr
        assert runs.reviewed.outputs["verdict"] == "hold"
        axes = {a["name"]: a["outcome"] for a in runs.reviewed.report()["axes"]}
        assert axes == {"review": "passed", "ci": "not_run"}

    def test_makes_no_model_request(self, runs):
        """A refold re-judges what is on the PR: the Messages API is never called."""
        assert runs.refold.returncode == 0, runs.refold.stderr
        assert runs.refold.model == ()
        assert len(runs.suite_world.model.requests) == 2  # the first review's two turns only

    def test_failed_ci_turns_the_verdict_to_block(self, runs):
        """The failing gated CI check makes the refolded verdict Block."""
        assert runs.refold.outputs["verdict"] == "block"
        ci = next(a for a in runs.refold.report()["axes"] if a["name"] == "ci")
        assert (ci["gated"], ci["outcome"]) == (True, "failed")

    def test_keeps_the_earlier_review_axis_and_nodes(self, runs):
        """The review axis is the one the last summary recorded, the nodes those on the PR."""
        report = runs.refold.report()
        review = next(a for a in report["axes"] if a["name"] == "review")
        before = next(a for a in runs.reviewed.report()["axes"] if a["name"] == "review")
        assert (review["outcome"], review["detail"]) == ("passed", before["detail"])
        assert [n["title"] for n in report["nodes"]] == ["Drop the + 0"]

    def test_updates_the_summary_and_the_check(self, runs):
        """The summary comment is edited in place and a failing `reviewbot` check is set."""
        run, number = runs.refold, runs.suite_world.pull.number
        assert run.calls("POST", f"/issues/{number}/comments") == []
        summary_id = runs.reviewed.report()["published"]["summary_comment_id"]
        assert len(run.calls("PATCH", f"/issues/comments/{summary_id}")) == 1
        checks = [p.json() for p in run.calls("POST", f"/repos/{REPO}/check-runs")]
        assert [(c["name"], c["conclusion"]) for c in checks] == [("reviewbot", "failure")]

    def test_posts_the_new_verdict_without_reposting_findings(self, runs):
        """The verdict changed, so one review requests changes; the node already inline is not repeated."""
        comments = runs.suite_world.github.repo(REPO).review_comments[runs.suite_world.pull.number]
        assert len(comments) == 1
        posts = [p.json() for p in runs.refold.calls("POST", "/reviews")]
        assert [(p["event"], p["comments"]) for p in posts] == [("REQUEST_CHANGES", [])]


class TestForkWithoutSecrets:
    def test_holds_and_exits_zero(self, runs):
        """No ANTHROPIC_API_KEY on a fork PR: the review axis is not_run, the verdict Hold."""
        run = runs.fork
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "hold"
        review = next(a for a in run.report()["axes"] if a["name"] == "review")
        assert (review["gated"], review["outcome"]) == (True, "not_run")

    def test_explains_why_on_stderr(self, runs):
        """The log says why nothing was reviewed and how to review forks safely."""
        lines = _stderr_lines(runs.fork)
        assert any(
            line.startswith("reviewbot: fork PR without secrets") and "two-stage" in line
            for line in lines
        )
        assert any("not posting" in line for line in lines)

    def test_posts_nothing_and_calls_no_model(self, runs):
        """The fork's token is read-only: no write is attempted, and no model request is made."""
        assert runs.fork.writes() == []
        assert runs.fork.model == ()
        assert runs.fork.report()["published"] is None
