"""A command replied in a finding's thread on a PR from a fork, run by GitHub Actions.

GitHub gives that `pull_request_review_comment` run a read-only token and no secrets, so the
first write is refused (403): its one line says to write the command as a PR comment instead.
The same line on a PR of the base repository, and a token that may write, are as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.errors import ExitCode
from tests.e2e.harness import REPO, World
from tests.fakes.keys import GITHUB_TOKEN
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.talk import ARGS, comment, thread_reply_event
from tests.fakes.talk import DROP_ZERO as MINOR
from tests.fakes.talk import SUM_BASE as BASE
from tests.fakes.talk import SUM_HEAD as HEAD

EVENT = "pull_request_review_comment"
ADVICE = "a reply in a review thread of a PR from a fork cannot be answered from GitHub Actions"


@pytest.fixture(scope="module")
def fork(worlds) -> tuple[World, dict[str, Any]]:
    """A fork's PR reviewed on a maintainer's `/review`; its finding's thread root."""
    script = [reply(tool_use("add_review_node", MINOR)), reply(text("Only a nit."))]
    world = worlds(
        "fork-thread",
        base=BASE,
        head=HEAD,
        script=script,
        fork=True,
        permissions={"maintainer": "write"},
    )
    review = world.run(
        ARGS,
        event_name="issue_comment",
        event=comment(world, "maintainer", "/review", association="MEMBER"),
    )
    assert review.returncode == 0, review.stderr
    (root,) = world.github.repo(REPO).review_comments[world.pull.number]
    return world, root


def reply_in_thread(
    world: World, root: dict[str, Any], login: str, body: str, *, read_only: bool = True
) -> Run:
    """The reply's run as Actions makes it for a fork: a read-only token and no secrets; else
    a token that may write, and the secrets (as `reviewbot serve` runs it, as the App)."""
    world.github.read_only_tokens = frozenset({GITHUB_TOKEN} if read_only else ())
    try:
        event = thread_reply_event(world, root=root["id"], login=login, body=body)
        return world.run(ARGS, event_name=EVENT, event=event, anthropic=not read_only)
    finally:
        world.github.read_only_tokens = frozenset()


def summaries(world: World) -> list[str]:
    return [c["body"] for c in world.github.repo(REPO).issue_comments[world.pull.number]]


def error_line(run: Run) -> str:
    [line] = [x for x in run.stderr.splitlines() if x.startswith("reviewbot: error: ")]
    return line


class TestReadOnlyToken:
    def test_a_dismiss_reply_says_to_write_it_as_a_pr_comment(self, fork):
        world, root = fork
        run = reply_in_thread(world, root, "maintainer", "/dismiss harmless")
        assert run.returncode == ExitCode.AUTH, run.stderr
        line = error_line(run)
        assert "(403): Resource not accessible by integration" in line
        assert ADVICE in line
        assert "write `/dismiss <id> <reason>` as a PR comment" in line
        assert "runs as issue_comment in the base repository" in line
        assert "the token needs write access" not in line

    def test_a_confirm_reply_says_so_too_and_nothing_changes(self, fork):
        world, root = fork
        before = summaries(world)
        run = reply_in_thread(world, root, "maintainer", "/confirm agreed")
        assert run.returncode == ExitCode.AUTH, run.stderr
        assert "write `/confirm <id> [reason]` as a PR comment" in error_line(run)
        assert summaries(world) == before
        assert len(run.model) == 0

    def test_a_reply_on_a_pr_of_the_base_repository_keeps_the_token_line(self, fork):
        world, root = fork
        head_repo, world.pull.head_repo = world.pull.head_repo, None  # the payload's head repo
        try:
            run = reply_in_thread(world, root, "maintainer", "/dismiss harmless")
        finally:
            world.pull.head_repo = head_repo
        assert run.returncode == ExitCode.AUTH, run.stderr
        line = error_line(run)
        assert "the token needs write access" in line
        assert ADVICE not in line


class TestTokenThatMayWrite:
    def test_a_fork_prs_dismiss_reply_is_applied(self, fork):
        """As under `reviewbot serve`, whose App installation token may write to a fork's PR."""
        world, root = fork
        run = reply_in_thread(world, root, "maintainer", "/dismiss harmless", read_only=False)
        assert run.returncode == 0, run.stderr
        assert "error" not in run.stderr
        assert run.report()["nodes"][0]["status"] == "dismissed"
