"""Every write to GitHub happens once, even when GitHub stores it and the answer is lost.

Each case runs the whole `reviewbot review URL --post` against the loopback fake with
one write that GitHub performs but whose answer never reaches reviewbot (`Lost`: a 502
from a proxy, or the connection reset), and asserts what is on the PR afterwards:
exactly one review with one set of inline comments, one summary comment, one check
run (or commit status), and no PENDING review left behind. A write GitHub did not
store is posted again after the read-back finds it absent; one that cannot be
confirmed either way ends the run with one line and exit 5.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from reviewbot.memory.markers import NODE_TAG, find_markers
from tests.fakes.github_api import bad_gateway
from tests.fakes.messages_api import reply, tool_use
from tests.fakes.scenario import HEAD_APP, HEAD_UTIL, UTIL_QUOTE, block_script, finding
from tests.fakes.server import Fault, Hangup, Lost, Request, Response
from tests.fakes.world import NUMBER, REPO, World

REVIEWS = rf"/pulls/{NUMBER}/reviews$"
ISSUE_COMMENTS = rf"/issues/{NUMBER}/comments$"
CHECK_RUNS = r"/check-runs$"
STATUSES = r"/statuses/[0-9a-f]{40}$"

LOST_ANSWERS = {
    "502-after-the-write": Lost(bad_gateway()),
    "reset-after-the-write": Lost(Hangup()),
}


def _assert_once(world: World) -> None:
    assert [r["state"] for r in world.posted_reviews()] == ["CHANGES_REQUESTED"]
    assert [(c["path"], c["line"]) for c in world.inline_comments()] == [("app.py", 3)]
    assert len(world.issue_comments()) == 1
    assert len(world.check_runs()) == 1


@pytest.fixture(params=list(LOST_ANSWERS), ids=list(LOST_ANSWERS))
def lost(request: pytest.FixtureRequest) -> Fault:
    return LOST_ANSWERS[request.param]


class TestStoredThenLost:
    """GitHub stores the write, the answer is lost: a read-back finds it, nothing is re-posted."""

    def test_review(self, world: World, lost: Fault) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", REVIEWS, lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        _assert_once(world)
        assert world.github_server.count("POST", REVIEWS) == 1
        assert run.report is not None
        (comment,) = run.report["published"]["comments"]
        assert comment["landed"] is True
        assert run.report["published"]["review_id"] == world.posted_reviews()[0]["id"]

    def test_summary_comment(self, world: World, lost: Fault) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", ISSUE_COMMENTS, lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        _assert_once(world)
        assert world.github_server.count("POST", ISSUE_COMMENTS) == 1
        assert run.report is not None
        assert run.report["published"]["summary_comment_id"] == world.issue_comments()[0]["id"]

    def test_check_run(self, world: World, lost: Fault) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", CHECK_RUNS, lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        _assert_once(world)
        assert world.github_server.count("POST", CHECK_RUNS) == 1
        assert run.report is not None
        assert run.report["published"]["check_run_id"] == world.check_runs()[0]["id"]

    def test_commit_status(self, world: World, lost: Fault) -> None:
        """The fallback without `checks: write`: one status, not two."""
        world.build()
        world.seed()
        world.serve(*block_script())
        forbidden = Response.json(403, {"message": "Resource not accessible by integration"})
        world.github_server.fail_next("POST", CHECK_RUNS, forbidden)
        world.github_server.fail_next("POST", STATUSES, lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        statuses = [s for s in world.github.repo(REPO).statuses if s["context"] == "reviewbot"]
        assert [s["state"] for s in statuses] == ["failure"]
        assert world.github_server.count("POST", STATUSES) == 1

    def test_pending_probe(self, world: World, lost: Fault) -> None:
        """A bisecting PENDING review stored then lost is found, deleted, and counted as accepted."""
        world.build(head={"app.py": HEAD_APP, "util.py": HEAD_UTIL})
        world.seed()
        util = finding("util.py", 2, UTIL_QUOTE, priority="P2", title="IndexError on empty input")
        world.serve(
            reply(tool_use("add_review_node", finding()), tool_use("add_review_node", util)),
            reply(tool_use("finalize_review", {"summary": "Two.", "verdict": "block"})),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
        )
        world.github_server.handler = _refusing_comments_on("util.py", world)
        world.github_server.fail_next("POST", REVIEWS, lost, when=_is_probe)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.pending_faults == 0
        assert [r["state"] for r in world.posted_reviews()] == ["CHANGES_REQUESTED"]
        assert [c["path"] for c in world.inline_comments()] == ["app.py"]
        assert "IndexError on empty input" in world.posted_reviews()[0]["body"]
        assert run.report is not None
        assert run.report["published"]["in_body"] == ["review-2"]


SHIP = [reply(tool_use("finalize_review", {"summary": "Fine.", "verdict": "ship"}))]
BLOCK = [reply(tool_use("finalize_review", {"summary": "No.", "verdict": "block"}))]


def _dismissed_by_a_maintainer(world: World) -> None:
    """A maintainer's `/dismiss` of the P0: the one way a head that blocked can ship (a finding
    the same head's next review does not repeat still stands)."""
    world.github.repo(REPO).permissions["maintainer"] = "write"
    root = world.inline_comments()[0]["id"]
    world.github.add_reply(
        REPO, NUMBER, in_reply_to=root, body="/dismiss fine", author="maintainer"
    )


class TestLatestWriteCounts:
    """A read-back matches only the newest write: an identical write of an earlier run on the
    same head does not stand for this one when a looser write came in between (a maintainer's
    `/dismiss` ships it; the reviewer's proposal blocks it again)."""

    def test_block_ship_block_on_one_head_ends_failing(self, world: World) -> None:
        world.build()
        world.seed()
        world.serve(*block_script(), *SHIP, *BLOCK)
        sha = world.github.repo(REPO).pulls[NUMBER].head_sha
        assert world.review("--post").exit_code == 0
        _dismissed_by_a_maintainer(world)
        assert world.review("--post").exit_code == 0
        assert world.github.required_check(REPO, sha, "reviewbot") == "passing"
        world.github_server.fail_next("POST", CHECK_RUNS, bad_gateway())  # not stored
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github.required_check(REPO, sha, "reviewbot") == "failing"
        assert [r["conclusion"] for r in world.check_runs()] == ["failure", "success", "failure"]

    def test_the_review_too(self, world: World) -> None:
        """Block (new comment), Ship, Block, Ship, Block lost: the last review requests changes."""
        world.build()
        world.seed()
        world.serve(*block_script(), *SHIP, *BLOCK, *SHIP, *BLOCK)
        for run in range(4):
            if run == 1:
                _dismissed_by_a_maintainer(world)
            assert world.review("--post").exit_code == 0
        world.github_server.fail_next("POST", REVIEWS, bad_gateway())  # not stored
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.posted_reviews()[-1]["state"] == "CHANGES_REQUESTED"

    def test_the_status_fallback_too(self, world: World) -> None:
        world.build()
        world.seed()
        world.serve(*block_script(), *SHIP, *BLOCK)
        sha = world.github.repo(REPO).pulls[NUMBER].head_sha
        forbidden = Response.json(403, {"message": "Resource not accessible by integration"})
        for run in range(2):
            if run:
                _dismissed_by_a_maintainer(world)
            world.github_server.fail_next("POST", CHECK_RUNS, forbidden)
            assert world.review("--post").exit_code == 0
        assert world.github.required_check(REPO, sha, "reviewbot") == "passing"
        world.github_server.fail_next("POST", CHECK_RUNS, forbidden)
        world.github_server.fail_next("POST", STATUSES, bad_gateway())  # not stored
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github.required_check(REPO, sha, "reviewbot") == "failing"


class TestIdempotentEdits:
    """An edit (PATCH) whose answer is lost is simply made again: same content, same result."""

    def test_summary_edit_answered_502_is_retried(self, world: World, lost: Fault) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        assert world.review("--post").exit_code == 0
        world.api.add(*block_script())
        world.github_server.fail_next("PATCH", r"/issues/comments/\d+$", lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.count("PATCH", r"/issues/comments/\d+$") == 2
        assert len(world.issue_comments()) == 1
        assert len(world.posted_reviews()) == 1


class TestNotStored:
    """A write GitHub did not store is posted once more after the read-back finds it absent."""

    def test_review_refused_with_502_is_posted_once(self, world: World) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", REVIEWS, bad_gateway())
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        _assert_once(world)
        assert world.github_server.count("POST", REVIEWS) == 2

    def test_a_write_that_cannot_be_confirmed_is_one_line_and_exit_5(self, world: World) -> None:
        world.build()
        world.seed()
        world.serve(*block_script())
        world.github_server.fail_next("POST", REVIEWS, Hangup(), times=10)
        run = world.review("--post")
        assert run.exit_code == 5, run.stderr
        assert len(run.error_lines) == 1, run.stderr
        assert "Traceback" not in run.stderr + run.stdout
        assert "did not answer POST" in run.error_lines[0]
        assert "/reviews" in run.error_lines[0]
        assert world.posted_reviews() == []
        assert world.github_server.count("POST", REVIEWS) == 3


class TestReadsRetry:
    """Reads (and rate-limited writes) keep retrying, as long as GitHub's headers ask."""

    def test_429_without_retry_after_waits_for_the_rate_limit_reset(self, world: World) -> None:
        """A primary-limit 429 (remaining 0, no Retry-After) is retried after x-ratelimit-reset."""
        world.build()
        world.seed()
        world.serve(*block_script())
        limited = Response.json(
            429,
            {"message": "API rate limit exceeded for installation ID 1."},
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()))},
        )
        files = rf"/pulls/{NUMBER}/files$"
        world.github_server.fail_next("GET", files, limited)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        gets = [r.at for r in world.github_server.snapshot() if r.path.endswith("/files")]
        assert len(gets) == 2
        assert gets[1] - gets[0] >= 0.9  # the reset second (+1) was waited out
        _assert_once(world)

    def test_429_on_the_review_post_is_retried_once(self, world: World) -> None:
        """A rate-limited POST stored nothing: it is retried, and the review is posted once."""
        world.build()
        world.seed()
        world.serve(*block_script())
        limited = Response.json(
            429, {"message": "You have exceeded a secondary rate limit."}, {"Retry-After": "0"}
        )
        world.github_server.fail_next("POST", REVIEWS, limited)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.count("POST", REVIEWS) == 2
        _assert_once(world)


def _is_probe(request: Request) -> bool:
    """A PENDING review (no `event`) used to bisect a 422."""
    payload = request.json()
    return isinstance(payload, dict) and "event" not in payload


def _refusing_comments_on(path: str, world: World) -> Any:
    """GitHub's all-or-nothing 422 for a review carrying a comment on `path`."""
    fake = world.github

    def handle(request: Request) -> Response:
        payload = request.json() if request.method == "POST" else None
        if (
            request.path.endswith(f"/pulls/{NUMBER}/reviews")
            and isinstance(payload, dict)
            and any(c.get("path") == path for c in payload.get("comments") or [])
        ):
            return Response.json(
                422, {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}
            )
        return fake(request)

    return handle


def _long_finding(n: int, *, title: str = "", repeat: int = 330) -> dict[str, Any]:
    """A finding about the whole PR (so it is listed in the review body) with a long body."""
    return {
        "kind": "recommendation",
        "priority": "P2",
        "confidence": 0.8,
        "title": f"Long finding number {n}{title}",
        "body": f"Paragraph {n}. " + ("This explains the finding at length. " * repeat),
    }


def _long_script(count: int, *, title: str = "", repeat: int = 330, per_turn: int = 6) -> list[Any]:
    """The reviewer adds `count` findings, `per_turn` a turn (a turn's output is bounded)."""
    adds = [
        tool_use("add_review_node", _long_finding(n, title=title, repeat=repeat), id=f"toolu_{n}")
        for n in range(count)
    ]
    turns = [reply(*adds[i : i + per_turn]) for i in range(0, count, per_turn)]
    return [*turns, reply(tool_use("finalize_review", {"summary": "Long.", "verdict": "hold"}))]


def _visible(body: str) -> str:
    return re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL)


class TestBodyLimit:
    """A review body over GitHub's 65,536 characters keeps every marker; re-runs add nothing."""

    def test_a_70000_character_review_keeps_every_marker_and_reruns_post_nothing(
        self, world: World
    ) -> None:
        world.build()
        world.seed()
        world.serve(*_long_script(6))
        first = world.review("--post")
        assert first.exit_code == 0, first.stderr
        assert first.report is not None
        fingerprints = {n["fingerprint"] for n in first.report["nodes"]}
        assert len(fingerprints) == 6
        assert sum(len(n["body"]) for n in first.report["nodes"]) > 70_000
        (review,) = world.posted_reviews()
        body = review["body"]
        assert len(body) <= 65_536
        marked = [m["fingerprint"] for m in find_markers(body, NODE_TAG) if isinstance(m, dict)]
        assert sorted(marked) == sorted(fingerprints)
        assert "<!--" not in _visible(body)  # no marker cut open, hiding the rest
        assert "Shortened to fit GitHub's size limit" in _visible(body)
        for _ in range(2):  # the same head again: nothing new, nothing posted twice
            world.api.add(*_long_script(6))
            again = world.review("--post")
            assert again.exit_code == 0, again.stderr
        shown = "\n".join(_visible(r["body"]) for r in world.posted_reviews())
        shown += "\n".join(_visible(c["body"]) for c in world.inline_comments())
        for n in range(6):
            assert shown.count(f"Long finding number {n}**") == 1, n
        assert len(world.posted_reviews()) == 1
        assert len(world.issue_comments()) == 1

    def test_findings_left_out_are_posted_once_by_the_next_run(self, world: World) -> None:
        """Too many to fit even on one line each: the rest wait for the next run, then stop."""
        padding = " —" + " padded" * 24  # long titles: about 1,100 characters per listed line
        world.build()
        world.seed()
        world.serve(*_long_script(90, title=padding, repeat=1, per_turn=15))
        first = world.review("--post")
        assert first.exit_code == 0, first.stderr
        assert first.report is not None
        left_out = [n for n in first.report["published"]["notes"] if "did not fit" in n]
        assert len(left_out) == 1, first.report["published"]["notes"]
        fingerprints = {n["fingerprint"] for n in first.report["nodes"]}
        for _ in range(2):
            world.api.add(*_long_script(90, title=padding, repeat=1, per_turn=15))
            again = world.review("--post")
            assert again.exit_code == 0, again.stderr
        reviews = world.posted_reviews()
        assert len(reviews) == 2  # the first run's, and the one posting what did not fit
        assert all(len(r["body"]) <= 65_536 for r in reviews)
        marked = [
            m["fingerprint"]
            for r in reviews
            for m in find_markers(r["body"], NODE_TAG)
            if isinstance(m, dict)
        ]
        assert sorted(marked) == sorted(fingerprints)  # every finding once, none twice
        shown = "\n".join(_visible(r["body"]) for r in reviews)
        for n in range(90):
            assert shown.count(f"Long finding number {n}{padding}**") == 1, n
