"""Fault injection: GitHub and the Messages API fail mid-review, and the review still ends well.

Each case runs the whole `reviewbot review URL --post` against the loopback fakes
with one injected fault and asserts the specific outcome: what was retried, what
was posted (once), which axis could not run, that nothing already found is lost,
and that an unrecoverable error is one `reviewbot: error:` line with its exit code.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from reviewbot.agent.loop import CUT_OFF_TOOL
from tests.fakes.github_api import FakeGitHub, bad_gateway, secondary_rate_limit
from tests.fakes.messages_api import (
    Failure,
    not_found,
    overloaded,
    rate_limited,
    reply,
    server_error,
    text,
    tool_use,
    unauthorized,
)
from tests.fakes.runs import CliRun
from tests.fakes.scenario import HEAD_APP, HEAD_UTIL, UTIL_QUOTE, block_script, finding
from tests.fakes.server import HUNG_UP, Hangup, Request, Response
from tests.fakes.world import NUMBER, REPO, World

REVIEWS = rf"/pulls/{NUMBER}/reviews$"
MESSAGES = r"^/v1/messages$"


def _assert_posted_once(world: World, event: str) -> None:
    reviews = world.posted_reviews()
    assert [r["state"] for r in reviews] == [event]
    assert [(c["path"], c["line"]) for c in world.inline_comments()] == [("app.py", 3)]
    assert len(world.issue_comments()) == 1
    assert len(world.check_runs()) == 1


class TestGitHubFaults:
    """GitHub answers errors or drops the connection."""

    def test_bad_gateway_on_a_read_is_retried(self, world: World) -> None:
        """A 502 on the files listing is retried once and the review is posted once."""
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("GET", rf"/pulls/{NUMBER}/files$", bad_gateway())
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.count("GET", rf"/pulls/{NUMBER}/files$") == 2
        assert world.github_server.pending_faults == 0
        assert run.verdict == "block"
        _assert_posted_once(world, "CHANGES_REQUESTED")

    def test_secondary_rate_limit_on_the_review_post_honours_retry_after(
        self, world: World
    ) -> None:
        """A 403 secondary rate limit with Retry-After: 1 is waited out, then the review is posted once."""
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", REVIEWS, secondary_rate_limit(retry_after=1))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        posts = [
            r.at
            for r in world.github_server.snapshot()
            if r.method == "POST" and r.path.endswith("/reviews")
        ]
        assert len(posts) == 2
        assert posts[1] - posts[0] >= 0.9  # the Retry-After second was honoured
        _assert_posted_once(world, "CHANGES_REQUESTED")

    def test_unprocessable_comment_is_bisected_into_the_body(self, world: World) -> None:
        """GitHub refusing one inline comment (422) moves that finding into the body; the rest post."""
        world.build(head={"app.py": HEAD_APP, "util.py": HEAD_UTIL})
        world.seed()
        util = finding("util.py", 2, UTIL_QUOTE, priority="P2", title="IndexError on empty input")
        world.serve(
            reply(tool_use("add_review_node", finding()), tool_use("add_review_node", util)),
            reply(tool_use("finalize_review", {"summary": "Two.", "verdict": "block"})),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
        )
        world.github_server.handler = _refusing_comments_on("util.py", world.github)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        submitted = [r for r in world.posted_reviews() if r["state"] != "PENDING"]
        assert len(submitted) == 1
        assert not [r for r in world.posted_reviews() if r["state"] == "PENDING"]
        assert [c["path"] for c in world.inline_comments()] == ["app.py"]
        assert "IndexError on empty input" in submitted[0]["body"]
        assert run.report is not None
        published = run.report["published"]
        assert published["in_body"] == ["review-2"]
        assert any("refused 1 inline comment" in note for note in published["notes"])

    @pytest.mark.parametrize(
        "partial",
        [
            b"",
            b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"url',
        ],
        ids=["closed-before-answer", "cut-mid-body"],
    )
    def test_connection_dropped_is_one_network_error_line(
        self, world: World, partial: bytes
    ) -> None:
        """A GitHub that keeps closing the connection ends the run with exit 5 and one clear line."""
        world.build()
        world.seed()
        world.serve()
        world.github_server.fail_next(
            "GET", rf"/pulls/{NUMBER}$", Hangup(partial=partial), times=10
        )
        run = world.review("--post")
        assert run.exit_code == 5, run.stderr
        assert len(run.error_lines) == 1, run.stderr
        assert "GitHub" in run.error_lines[0]
        assert "Traceback" not in run.stderr + run.stdout
        assert world.api.requests == []
        assert world.posted_reviews() == []


def _refusing_comments_on(path: str, fake: FakeGitHub) -> Any:
    """GitHub's all-or-nothing 422 for any review carrying a comment on `path` (it says not which)."""

    def handle(request: Request) -> Response:
        payload = request.json() if request.method == "POST" else None
        if (
            request.path.endswith(f"/pulls/{NUMBER}/reviews")
            and isinstance(payload, dict)
            and any(c.get("path") == path for c in payload.get("comments") or [])
        ):
            return Response.json(
                422,
                {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]},
            )
        return fake(request)

    return handle


def _retried_script(failure: Failure) -> list[Any]:
    return [failure, *block_script()]


class TestMessagesAPIFaults:
    """The Messages API is overloaded, rate limited, failing, or cuts a reply short."""

    @pytest.mark.parametrize(
        ("failure", "expected_wait"),
        [
            (overloaded(retry_after="0"), (0.0, 0.0)),
            (rate_limited(retry_after="1"), (1.0, 1.0)),
            (server_error(), (0.75, 1.0)),  # no retry-after: first backoff step, with jitter
        ],
        ids=["529-overloaded", "429-retry-after", "500-api-error"],
    )
    def test_transient_error_is_retried_then_succeeds(
        self, world: World, failure: Failure, expected_wait: tuple[float, float]
    ) -> None:
        """One transient error is retried after the wait it asks for, and the review is unchanged."""
        world.build()
        world.seed()
        world.serve(*_retried_script(failure))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert len(world.sleeps) == 1
        assert expected_wait[0] <= world.sleeps[0] <= expected_wait[1]
        assert run.verdict == "block"
        assert run.axis("review")["outcome"] == "failed"
        _assert_posted_once(world, "CHANGES_REQUESTED")

    def test_retries_exhausted_keep_the_nodes_hold_then_exit_5(self, world: World) -> None:
        """Retries run out mid-review: axis not_run, Hold and the node posted, then the step fails with 5."""
        world.build()
        world.seed()
        world.serve(
            reply(tool_use("add_review_node", finding(priority="P1", title="eval is risky"))),
            *[server_error()] * 5,  # the first try and 4 retries
            reply(text("Could not confirm it from the code.")),  # the verifier still runs
        )
        run = world.review("--post", "--fail-on", "none")
        assert run.exit_code == 5, run.stderr
        review = run.axis("review")
        assert review["outcome"] == "not_run"
        assert "500" in review["detail"]
        assert len(run.error_lines) == 1, run.stderr
        assert "Messages API answered 500" in run.error_lines[0]
        assert run.verdict == "hold"
        assert [n["title"] for n in run.report["nodes"]] == ["eval is risky"]
        assert [(c["path"], c["line"]) for c in world.inline_comments()] == [("app.py", 3)]
        errors = [line for line in run.stderr.splitlines() if "Messages API error 500" in line]
        assert len(errors) == 1, run.stderr
        assert len(world.sleeps) == 4

    @pytest.mark.parametrize(
        "failures",
        [
            [overloaded(retry_after="0")] * 5,
            [server_error()] * 5,
            [Failure(400, "invalid_request_error", "prompt is too long")],
        ],
        ids=["529-retries-exhausted", "500-retries-exhausted", "400-refused"],
    )
    def test_a_verifier_stopped_by_the_api_holds_and_says_so(
        self, world: World, failures: list[Failure]
    ) -> None:
        """The verifier's requests fail with a finding to verify: Hold everywhere, never Ship."""
        world.build()
        world.seed()
        world.serve(
            reply(tool_use("add_review_node", finding(priority="P1", title="eval is risky"))),
            reply(tool_use("finalize_review", {"summary": "One P1.", "verdict": "ship"})),
            *failures,
        )
        run = world.review("--post", "--fail-on", "none")
        assert run.verdict == "hold", run.report
        assert run.axis("verifier")["outcome"] == "not_run"
        assert any("verifier" in reason["text"] for reason in run.report["reasons"])
        assert run.exit_code == 5, run.stderr
        assert len(run.error_lines) == 1, run.stderr
        assert [r["state"] for r in world.posted_reviews()] == ["COMMENTED"]
        [check] = world.check_runs()
        assert check["conclusion"] == "failure"
        assert "Ship" not in check["output"]["title"]
        [summary] = world.issue_comments()
        assert "gated axis `verifier` could not run" in summary["body"]

    @pytest.mark.parametrize("kind", ["incremental", "full"])
    def test_an_unverified_finding_carried_to_the_next_head_still_holds(
        self, world: World, kind: str
    ) -> None:
        """Run 1 leaves a P1 unverified; a push elsewhere, the model silent: the carried P1 is
        given to the verifier again, which is refused again: still Hold, never Ship."""
        _left_unverified(world)
        if kind == "full":  # a maintainer asks for it
            world.github.repo(REPO).permissions["maintainer"] = "write"
            world.github.add_issue_comment(REPO, NUMBER, "/review full", "maintainer", "MEMBER")
        world.api.add(reply(text("Nothing to report.")), _TOO_LONG)
        second = world.review("--post", "--fail-on", "none")
        assert second.report["review"]["kind"] == kind
        kept = [n for n in second.report["nodes"] if n["title"] == "eval is risky"]
        assert [n["status"] for n in kept] == ["open"], second.report["nodes"]
        assert second.verdict != "ship", (second.report["axes"], second.report["reasons"])
        assert second.axis("verifier")["outcome"] == "not_run"
        assert "1 finding(s) not verified" in second.axis("verifier")["detail"]

    def test_a_carried_finding_the_verifier_judges_later_stops_holding(self, world: World) -> None:
        """The next run's verifier disputes the carried P1: judged, so Ship; the run after it
        does not ask the verifier again."""
        first = _left_unverified(world)
        carried = f"{first.report['pr']['head_sha'][:12]}:{first.report['nodes'][0]['id']}"
        dispute = {"id": carried, "reason": "the input is a constant"}
        world.api.add(
            reply(text("Nothing to report.")), reply(tool_use("dispute_review_node", dispute))
        )
        second = world.review("--post", "--fail-on", "none")
        assert [a["name"] for a in second.report["axes"]] == ["review", "ci"], second.report["axes"]
        assert second.verdict == "ship", second.report["reasons"]
        assert second.report["agents"][-1]["stop_reason"] == "finalized"  # it judged its one
        world.push({"newer.py": "VALUE = 2\n"})
        world.api.add(reply(text("Nothing to report.")))
        third = world.review("--post", "--fail-on", "none")
        assert third.verdict == "ship", (third.report["axes"], third.report["reasons"])
        assert [a["stop_reason"] for a in third.report["agents"]][-1] == "skipped"

    def test_rejected_key_publishes_hold_then_exits_3(self, world: World) -> None:
        """A rejected ANTHROPIC_API_KEY: Hold is published, no agent retries it, and the step fails with 3."""
        world.build()
        world.seed()
        world.serve(unauthorized())
        run = world.review("--post")
        assert run.exit_code == 3, run.stderr
        assert run.verdict == "hold"
        stops = {a["name"]: a["stop_reason"] for a in run.report["agents"]}
        assert stops == {"review": "credentials_refused", "verifier": "skipped"}
        assert [r["state"] for r in world.posted_reviews()] == ["COMMENTED"]
        assert [c["conclusion"] for c in world.check_runs()] == ["failure"]
        assert len(run.error_lines) == 1, run.stderr
        assert "ANTHROPIC_API_KEY" in run.error_lines[0]

    def test_unknown_model_publishes_hold_then_exits_4(self, world: World) -> None:
        """A model the API does not know: Hold is published, then the step fails with 4 naming it."""
        world.build()
        world.seed()
        world.serve(not_found("claude-nope"))
        run = world.review("--post", "--model", "claude-nope")
        assert run.exit_code == 4, run.stderr
        assert run.verdict == "hold"
        assert run.axis("review")["outcome"] == "not_run"
        assert [c["conclusion"] for c in world.check_runs()] == [
            "failure"
        ]  # a Hold fails the required check
        assert len(run.error_lines) == 1, run.stderr
        assert "model 'claude-nope' was not found" in run.error_lines[0]

    def test_unreachable_messages_api_publishes_hold_then_exits_5(self, world: World) -> None:
        """ANTHROPIC_BASE_URL on a closed port: every retry fails, Hold is published, exit 5."""
        world.build()
        world.seed()
        world.serve()
        with socket.socket() as probe:  # a port that was free a moment ago, and is closed now
            probe.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
        run = world.review("--post", ANTHROPIC_BASE_URL=closed)
        assert run.exit_code == 5, run.stderr
        assert run.verdict == "hold"
        assert [r["state"] for r in world.posted_reviews()] == ["COMMENTED"]
        assert len(run.error_lines) == 1, run.stderr
        assert f"could not reach the Messages API at {closed}" in run.error_lines[0]
        assert len(world.sleeps) == 4

    @pytest.mark.parametrize(
        ("provider", "env", "service"),
        [
            (
                "bedrock",
                {"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIA" + "FAKE" * 4},
                "Amazon Bedrock",
            ),
            (
                "vertex",
                {"CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "octo"},
                "Google Vertex AI",
            ),
        ],
    )
    def test_unreachable_cloud_publishes_hold_then_exits_5(
        self, world: World, provider: str, env: dict[str, str], service: str
    ) -> None:
        """A cloud endpoint on a closed port: retried like the direct API, Hold, exit 5."""
        world.build()
        world.seed()
        world.serve()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
        credentials = {
            "AWS_SECRET_ACCESS_KEY": "s" * 40,
            "AWS_SESSION_TOKEN": None,
            "AWS_PROFILE": None,
            "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29." + "G" * 60,
        }
        run = world.review(
            "--post",
            REVIEWBOT_PROVIDER=provider,
            ANTHROPIC_BEDROCK_BASE_URL=closed,
            ANTHROPIC_VERTEX_BASE_URL=closed,
            **credentials,
            **env,
        )
        assert run.exit_code == 5, run.stderr
        assert run.verdict == "hold"
        assert [r["state"] for r in world.posted_reviews()] == ["COMMENTED"]
        assert len(run.error_lines) == 1, run.stderr
        assert f"could not reach {service} at {closed}" in run.error_lines[0]
        assert len(world.sleeps) == 4

    def test_connection_reset_mid_response_is_retried(self, world: World) -> None:
        """A reply cut off mid-body by a closed socket is retried; the review completes unchanged."""
        world.build()
        world.seed()
        world.serve(*block_script())
        half = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 900\r\n\r\n{"id":"msg_'
        world.model_server.fail_next("POST", MESSAGES, Hangup(partial=half))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert [r.status for r in world.model_server.snapshot()].count(HUNG_UP) == 1
        assert len(world.sleeps) == 1
        assert run.verdict == "block"
        _assert_posted_once(world, "CHANGES_REQUESTED")

    def test_tool_call_cut_at_max_tokens_is_not_run(self, world: World) -> None:
        """A tool call cut off at max_tokens is not executed, the model is told, and the run goes on."""
        world.build()
        world.seed()
        cut = {"kind": "bug", "priority": "P0", "confidence": 0.9, "title": "eval on"}
        world.serve(
            reply(tool_use("add_review_node", cut, id="toolu_cut"), stop_reason="max_tokens"),
            *block_script(),
        )
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        results = {r["tool_use_id"]: r for r in world.tool_results()}
        assert results["toolu_cut"]["is_error"] is True
        assert results["toolu_cut"]["content"] == CUT_OFF_TOOL
        assert run.report is not None
        assert [n["id"] for n in run.report["nodes"]] == ["review-1"]
        assert run.report["discarded"] == []
        assert run.report["verdict"] == "block"
        _assert_posted_once(world, "CHANGES_REQUESTED")


_TOO_LONG = Failure(400, "invalid_request_error", "prompt is too long")


def _left_unverified(world: World) -> CliRun:
    """Run 1: the verifier is refused with a P1 to judge (Hold); then a push elsewhere."""
    world.build()
    world.seed()
    world.serve(
        reply(tool_use("add_review_node", finding(priority="P1", title="eval is risky"))),
        reply(tool_use("finalize_review", {"summary": "One P1.", "verdict": "ship"})),
        _TOO_LONG,
    )
    first = world.review("--post", "--fail-on", "none")
    assert first.verdict == "hold", first.report
    world.push({"new.py": "VALUE = 1\n"})
    return first
