"""The end-to-end tests' names for the one test world (tests/fakes/world.py): a real git
repository, fake GitHub and Messages API on loopback, and `python -m reviewbot` run as a
subprocess with the environment GitHub Actions sets.

    with open_world(tmp_path, base=..., head=..., script=[reply(text("ok"))]) as world:
        run = world.run(["review", "--github-event", "--post"], event=pull_request_event(world))
        assert run.returncode == 0 and run.outputs["verdict"] == "ship"

Nothing is defined here: import from tests.fakes.* in new code.
"""

from __future__ import annotations

from tests.fakes.keys import ANTHROPIC_KEY, GITHUB_TOKEN, SECRETS
from tests.fakes.runs import RUN_TIMEOUT, Pending, Run, everything_sent, leaked
from tests.fakes.webhooks import (
    WEBHOOKS,
    check_suite_event,
    issue_comment_event,
    pull_request_event,
    workflow_run_event,
)
from tests.fakes.world import (
    AUTHOR,
    BASE_PATH,
    COVERAGE_VARIABLES,
    FORK,
    REPO,
    SOURCE_ROOT,
    World,
    open_world,
)

__all__ = [
    "ANTHROPIC_KEY",
    "AUTHOR",
    "BASE_PATH",
    "COVERAGE_VARIABLES",
    "FORK",
    "GITHUB_TOKEN",
    "REPO",
    "RUN_TIMEOUT",
    "SECRETS",
    "SOURCE_ROOT",
    "WEBHOOKS",
    "Pending",
    "Run",
    "World",
    "check_suite_event",
    "everything_sent",
    "issue_comment_event",
    "leaked",
    "open_world",
    "pull_request_event",
    "workflow_run_event",
]
