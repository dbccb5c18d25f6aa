"""The `reviewbot` check as branch protection sees it: only a fully covered Ship lets a PR merge.

Each test runs the real CLI against the fake GitHub and asks the fake what a required
`reviewbot` check would say of the head (`FakeGitHub.required_check`, GitHub's rule:
`success`, `neutral` and `skipped` pass; a commit status passes only on `success`), so
they assert mergeability, not a conclusion string.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.github_api import FILES_CAP
from tests.fakes.messages_api import reply, text, tool_use, unauthorized
from tests.fakes.scenario import BASE_APP, finding
from tests.fakes.server import Response
from tests.fakes.world import REPO, World

ADVISORY = "[publish]\nadvisory_hold = true\n"
CHECK_RUNS = r"/check-runs$"


def _required(world: World) -> str:
    assert world.pull is not None
    return world.github.required_check(REPO, world.pull.head_sha, "reviewbot")


def _disputed_p0() -> list[Any]:
    """A reviewer records a P0; the verifier disputes it: the P0 stays open → Hold."""
    return [
        reply(tool_use("add_review_node", finding())),
        reply(text("Found one.")),
        reply(tool_use("dispute_review_node", {"id": "review-1", "reason": "cannot tell"})),
    ]


def _confirmed_p0() -> list[Any]:
    return [
        reply(tool_use("add_review_node", finding())),
        reply(text("Found one.")),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


def _forbidden() -> Response:
    """GitHub's answer to a token without `checks: write` (a fork's, or a narrowed one)."""
    return Response.json(
        403, {"message": "Resource not accessible by integration", "status": "403"}
    )


class TestHoldBlocksMerge:
    """By default a Hold, whatever its reason, leaves a required `reviewbot` check failing."""

    def test_hold_without_a_key(self, world: World) -> None:
        """No ANTHROPIC_API_KEY → Hold: the check fails, and its title says Hold and why."""
        world.build()
        world.seed()
        world.serve()
        run = world.review("--post", ANTHROPIC_API_KEY=None)
        assert run.exit_code == 0, run.stderr
        assert run.verdict == "hold"
        assert _required(world) == "failing"
        (check,) = world.check_runs()
        assert check["conclusion"] == "failure"
        title = check["output"]["title"]
        # No model received the PR, so nothing was seen: coverage is partial as well.
        assert title.startswith("🟡 Hold (blocks merge: coverage is partial): ")
        assert "gated axis `review` could not run: ANTHROPIC_API_KEY is not set" in title

    def test_hold_on_an_open_p0(self, world: World) -> None:
        """A disputed P0 stays open → Hold: the check fails and its title names the finding."""
        world.build()
        world.seed()
        world.serve(*_disputed_p0())
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.verdict == "hold"
        assert _required(world) == "failing"
        title = world.check_runs()[0]["output"]["title"]
        assert title.startswith("🟡 Hold (blocks merge): P0 bug “eval on user input”")

    def test_block_fails(self, world: World) -> None:
        """A confirmed P0 → Block: the check fails, its title says Block."""
        world.build()
        world.seed()
        world.serve(*_confirmed_p0())
        run = world.review("--post")
        assert run.verdict == "block"
        assert _required(world) == "failing"
        assert world.check_runs()[0]["output"]["title"].startswith(
            "⛔ Block: gated axis `review` failed"
        )

    def test_clean_ship_passes(self, world: World) -> None:
        """A fully covered Ship is the one verdict that lets the PR merge."""
        world.build()
        world.seed()
        world.serve(reply(text("Nothing to report.")))
        run = world.review("--post")
        assert run.verdict == "ship"
        assert _required(world) == "passing"
        assert world.check_runs()[0]["conclusion"] == "success"


class TestAdvisoryHold:
    """`[publish] advisory_hold = true` on the base branch: a Hold informs and does not block."""

    def test_advisory_hold_is_neutral(self, world: World) -> None:
        """An advisory Hold concludes `neutral`: the required check passes, the title says advisory."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": ADVISORY})
        world.seed()
        world.serve(*_disputed_p0())
        run = world.review("--post")
        assert run.verdict == "hold"
        assert _required(world) == "passing"
        (check,) = world.check_runs()
        assert check["conclusion"] == "neutral"
        assert check["output"]["title"].startswith("🟡 Hold (advisory): P0 bug")

    def test_advisory_hold_on_the_head_changes_nothing(self, world: World) -> None:
        """The setting is read from the base branch only: a PR adding it still gets a failing check."""
        world.build(head={"app.py": BASE_APP + "# x\n", ".reviewbot.toml": ADVISORY})
        world.seed()
        world.serve()
        run = world.review("--post", ANTHROPIC_API_KEY=None)
        assert run.verdict == "hold"
        assert _required(world) == "failing"

    def test_an_advisory_hold_where_the_key_was_refused_fails(self, world: World) -> None:
        """A 401 on the first request: no model got the PR, nothing was seen, the check fails."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": ADVISORY})
        world.seed()
        world.serve(unauthorized())
        run = world.review("--post")
        assert run.verdict == "hold"
        assert _required(world) == "failing"
        assert run.report is not None
        [unseen] = run.report["coverage"]["unseen"]
        assert unseen["reason"].startswith("the request to the model failed: ")

    def test_advisory_block_still_fails(self, world: World) -> None:
        """Advisory covers Hold only: a Block fails the required check."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": ADVISORY})
        world.seed()
        world.serve(*_confirmed_p0())
        run = world.review("--post")
        assert run.verdict == "block"
        assert _required(world) == "failing"

    def test_partial_coverage_never_passes(self, world: World) -> None:
        """3,001 files (coverage partial): the check fails even with advisory Hold."""
        world.build(
            base={"app.py": BASE_APP, ".reviewbot.toml": ADVISORY},
            head={f"many/f{n:04d}.txt": f"{n}\n" for n in range(FILES_CAP + 1)},
        )
        world.seed()
        world.serve(reply(text("Looked at what fits.")))
        run = world.review("--post")
        assert run.report is not None
        assert run.report["coverage"]["partial"] is True
        assert _required(world) == "failing"
        (check,) = world.check_runs()
        assert check["conclusion"] == "failure"
        assert "coverage is partial" in check["output"]["title"]


class TestStatusFallback:
    """Without `checks: write` the verdict goes to a commit status, with the same pass/fail answer."""

    @pytest.mark.parametrize(
        ("config", "state", "required", "prefix"),
        [
            ("", "failure", "failing", "Hold (blocks merge): "),
            (ADVISORY, "success", "passing", "Hold (advisory): "),
        ],
        ids=["default", "advisory"],
    )
    def test_hold_as_a_commit_status(
        self, world: World, config: str, state: str, required: str, prefix: str
    ) -> None:
        """Statuses have no neutral: a blocking Hold is `failure`, an advisory one `success`."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": config})
        world.seed()
        world.serve(*_disputed_p0())  # a Hold of a reviewed PR (without a key nothing is seen)
        world.github_server.fail_next("POST", CHECK_RUNS, _forbidden())
        run = world.review("--post")
        assert run.verdict == "hold"
        assert world.check_runs() == []
        (status,) = world.github.repo(REPO).statuses
        assert (status["context"], status["state"]) == ("reviewbot", state)
        assert status["description"].startswith(prefix)
        assert _required(world) == required
