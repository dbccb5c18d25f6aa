"""The CI axis in GitHub Actions: the workflow run that is running reviewbot never counts."""

from __future__ import annotations

from tests.fakes.messages_api import reply, text
from tests.fakes.world import REPO, World

RUN_ID = "4242"


def seed_checks(world: World) -> None:
    """CI passed; this very run's job (named unlike its id) is still in progress."""
    assert world.pull is not None
    head = world.pull.head_sha
    world.github.add_check_run(REPO, name="tests", head_sha=head, conclusion="success")
    world.github.add_check_run(
        REPO,
        name="Review the pull request",
        head_sha=head,
        status="in_progress",
        app_slug="github-actions",
        html_url=f"https://github.com/{REPO}/actions/runs/{RUN_ID}/job/1",
    )


class TestOwnRun:
    def test_the_running_workflow_is_excluded_by_run_id(self, world: World) -> None:
        """With GITHUB_RUN_ID set, reviewbot's own in-progress job does not hold the CI axis."""
        world.build()
        world.seed()
        seed_checks(world)
        world.serve(reply(text("Nothing to add.")))
        run = world.review(GITHUB_RUN_ID=RUN_ID)
        assert run.exit_code == 0, run.stderr
        assert run.axis("ci")["outcome"] == "passed"
        world.api.verify()

    def test_without_it_the_running_job_counts_as_pending(self, world: World) -> None:
        """Outside that run (or without the id) the in-progress job makes the axis not_run."""
        world.build()
        world.seed()
        seed_checks(world)
        world.serve(reply(text("Nothing to add.")))
        run = world.review()
        assert run.axis("ci")["outcome"] == "not_run"
        assert "Review the pull request" in run.axis("ci")["detail"]
        world.api.verify()
