"""A dropped connection (no HTTP status at all) is one line and exit 5, on a read or on any write.

GitHub is reached through one adapter (reviewbot/github/client.py), so a connection that is
reset, closed before the answer, or cut mid-body ends the run the same way wherever it
happens: one `reviewbot: error:` line, exit 5 (NetworkError), no traceback, and nothing
posted twice. Each write case drops the write AND its read-back, so the publisher can
confirm nothing and must give up cleanly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.scenario import block_script
from tests.fakes.server import Hangup, Request, Response
from tests.fakes.world import NUMBER, REPO, World

PARTIALS = {
    "closed-before-answer": b"",
    "status-line-only": b"HTTP/1.1 201 Created\r\n",
    "cut-mid-body": (
        b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n"
        b'{"id'
    ),
    "truncated-json-until-close": (
        b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        b'{"id": 1, "html_url'
    ),
}

REVIEWS = rf"/pulls/{NUMBER}/reviews$"
ISSUE_COMMENTS = rf"/issues/{NUMBER}/comments$"
CHECK_RUNS = r"/check-runs$"
STATUSES = r"/statuses/[0-9a-f]{40}$"
COMMIT_CHECK_RUNS = r"/commits/[0-9a-f]{40}/check-runs$"
COMMIT_STATUSES = r"/commits/[0-9a-f]{40}/statuses$"
FORBIDDEN = Response.json(403, {"message": "Resource not accessible by integration"})


@pytest.fixture(params=list(PARTIALS), ids=list(PARTIALS))
def dropped(request: pytest.FixtureRequest) -> Hangup:
    return Hangup(partial=PARTIALS[request.param])


def _assert_one_line_exit_5(run: Any) -> None:
    assert run.exit_code == 5, run.stderr
    assert len(run.error_lines) == 1, run.stderr
    assert "GitHub" in run.error_lines[0]
    assert "internal error" not in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def _noting(seen: list[Request]) -> Callable[[Request], bool]:
    """A `when` that matches every request and notes it (the server's lock is held: no count())."""
    return lambda request: seen.append(request) is None


class TestWrites:
    """The write and its read-back both drop: one line, exit 5, nothing posted twice."""

    @pytest.mark.parametrize(
        ("write", "read_back", "setup"),
        [
            ("POST " + REVIEWS, "GET " + REVIEWS, None),
            ("POST " + ISSUE_COMMENTS, "GET " + ISSUE_COMMENTS, None),
            ("POST " + CHECK_RUNS, "GET " + COMMIT_CHECK_RUNS, None),
            ("POST " + STATUSES, "GET " + COMMIT_STATUSES, "checks-forbidden"),
        ],
        ids=["review", "summary-comment", "check-run", "commit-status"],
    )
    def test_post_and_read_back_dropped(
        self, world: World, dropped: Hangup, write: str, read_back: str, setup: str | None
    ) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        server = world.github_server
        if setup == "checks-forbidden":
            server.fail_next("POST", CHECK_RUNS, FORBIDDEN)
        method, route = write.split(" ")
        posted: list[Request] = []
        server.fail_next(method, route, dropped, times=10, when=_noting(posted))
        get, back = read_back.split(" ")
        # Only the read-backs drop: the reads before the write (the prior state) are answered.
        server.fail_next(get, back, dropped, times=30, when=lambda request: bool(posted))
        run = world.review("--post")
        _assert_one_line_exit_5(run)
        assert server.count(method, route) <= 3  # never blindly re-posted past the read-backs

    def test_summary_edit_dropped(self, world: World, dropped: Hangup) -> None:
        """PATCH of the summary (the second run edits it in place) keeps dropping."""
        world.build()
        world.seed()
        world.serve(*block_script(), *block_script())
        assert world.review("--post").exit_code == 0
        world.github_server.fail_next("PATCH", r"/issues/comments/\d+$", dropped, times=30)
        run = world.review("--post")
        _assert_one_line_exit_5(run)
        assert len(world.issue_comments()) == 1

    def test_pending_review_delete_dropped(self, world: World, dropped: Hangup) -> None:
        """DELETE of a crashed run's PENDING review keeps dropping."""
        world.build()
        pull = world.seed()
        world.serve(*block_script())
        repo = world.github.repo(REPO)
        pending = world.github._review_json(
            world.github_server.url,
            repo,
            pull,
            world.github.next_id(),
            "",
            "PENDING",
            pull.head_sha,
        )
        repo.reviews.setdefault(NUMBER, []).append(pending)
        world.github_server.fail_next("DELETE", rf"/pulls/{NUMBER}/reviews/\d+$", dropped, times=30)
        run = world.review("--post")
        _assert_one_line_exit_5(run)
        assert [r["state"] for r in world.posted_reviews()] == ["PENDING"]  # nothing posted


class TestReads:
    def test_files_listing_dropped(self, world: World, dropped: Hangup) -> None:
        world.build()
        world.seed()
        world.serve()
        world.github_server.fail_next("GET", rf"/pulls/{NUMBER}/files$", dropped, times=30)
        run = world.review("--post")
        _assert_one_line_exit_5(run)
        assert world.api.requests == []

    def test_prior_comments_dropped(self, world: World, dropped: Hangup) -> None:
        world.build()
        world.seed()
        world.serve()
        world.github_server.fail_next("GET", ISSUE_COMMENTS, dropped, times=30)
        run = world.review("--post")
        _assert_one_line_exit_5(run)
        assert world.posted_reviews() == []
