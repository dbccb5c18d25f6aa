"""Findings as annotations of the `reviewbot` check run, end to end against the loopback fake.

Each case runs the whole `reviewbot review URL --post` (real CLI, PyGithub, fakes on
loopback) on a PR whose reviewer reports more than 50 findings, and asserts what the
check run holds afterwards: every annotatable finding once, in requests of at most 50
(GitHub's limit), at the level its priority gives, and nothing twice when GitHub
stores a batch and its answer is lost.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest

from tests.fakes.github_api import bad_gateway
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import BASE_APP, HEAD_APP, finding
from tests.fakes.server import Fault, Hangup, Lost, Response
from tests.fakes.world import REPO, World

CHECK_RUNS = r"/check-runs$"
CHECK_RUN = r"/check-runs/\d+$"
LINES = 130
BIG = "".join(f"v{i} = {i}\n" for i in range(1, LINES + 1))
PRIORITY = {0: "P0", 1: "P1", 2: "P3"}  # the rest P2
# The lines of 120 findings in the order they are annotated: by priority (line 3 is the P3).
ORDER = [1, 2, *range(4, 121), 3]
LOST_ANSWERS = {
    "502-after-the-write": Lost(bad_gateway()),
    "reset-after-the-write": Lost(Hangup()),
}


def _findings(count: int) -> list[dict[str, Any]]:
    """`count` findings on added lines of big.py, one a line, a P0, a P1 and a P3 first."""
    return [
        finding(
            "big.py",
            i + 1,
            f"v{i + 1} = {i + 1}",
            priority=PRIORITY.get(i, "P2"),
            title=f"Finding {i + 1}",
        )
        for i in range(count)
    ]


def _script(count: int) -> list[Any]:
    """Reviewer: `count` findings on big.py, one on a deleted line, one about the PR; verifier."""
    deleted = finding("app.py", 2, "    return value", priority="P2", title="Deleted check")
    deleted["anchor"]["side"] = "LEFT"
    whole = {**finding(priority="P3", title="No changelog entry"), "anchor": None}
    found = [*_findings(count), deleted, whole]
    turns = [
        reply(*(tool_use("add_review_node", f) for f in found[i : i + 40]))
        for i in range(0, len(found), 40)
    ]
    return [
        *turns,
        reply(tool_use("finalize_review", {"summary": "Many.", "verdict": "hold"})),
        reply(text("Checked.")),  # the verifier looks at the P0 and the P1 and ends
    ]


def _world(world: World, count: int) -> None:
    world.build(base={"app.py": BASE_APP}, head={"app.py": HEAD_APP, "big.py": BIG})
    world.seed()
    world.serve(*_script(count))


def _annotations(world: World) -> list[dict[str, Any]]:
    (run,) = world.check_runs()
    return world.github.repo(REPO).annotations.get(run["id"], [])


def _sent_batches(world: World) -> list[int]:
    """How many annotations each check-run request carried, in order."""
    sizes = []
    for request in world.github_server.snapshot():
        if request.method in ("POST", "PATCH") and "/check-runs" in request.path:
            sizes.append(len((request.json().get("output") or {}).get("annotations") or []))
    return sizes


class TestBatches:
    def test_more_than_fifty_findings_are_all_annotated_in_batches(self, world: World) -> None:
        """120 findings on big.py: one POST with 50 and two PATCHes (50, 20), each stored once."""
        _world(world, 120)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert _sent_batches(world) == [50, 50, 20]
        stored = _annotations(world)
        assert [a["start_line"] for a in stored] == ORDER
        assert {a["path"] for a in stored} == {"big.py"}
        (check,) = world.check_runs()
        assert check["output"]["annotations_count"] == 120
        assert run.report is not None
        assert len(run.report["published"]["annotated"]) == 120

    def test_levels_follow_the_priority(self, world: World) -> None:
        """P0 and P1 are failures, P2 warnings, P3 notices; the message carries the body."""
        _world(world, 60)
        assert world.review("--post").exit_code == 0
        stored = {a["start_line"]: a for a in _annotations(world)}
        assert [stored[n]["annotation_level"] for n in (1, 2, 3, 4)] == [
            "failure",
            "failure",
            "notice",
            "warning",
        ]
        assert stored[1]["title"] == "P0 bug: Finding 1"
        assert stored[1]["message"].startswith("Remote code execution")
        counts = collections.Counter(a["annotation_level"] for a in stored.values())
        assert counts == {"failure": 2, "warning": 57, "notice": 1}

    def test_a_deleted_line_or_the_whole_pr_is_not_annotated_and_said_so(
        self, world: World
    ) -> None:
        """The LEFT anchor and the unanchored finding get no annotation; the check summary says so."""
        _world(world, 3)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert sorted((a["path"], a["start_line"]) for a in _annotations(world)) == [
            ("big.py", 1),
            ("big.py", 2),
            ("big.py", 3),
        ]
        assert _sent_batches(world) == [3]  # no PATCH at all for a small PR
        summary = world.check_runs()[0]["output"]["summary"]
        assert "3 finding(s) are annotated" in summary
        assert "1 about the whole PR" in summary
        assert "1 on deleted lines" in summary
        assert run.report is not None
        review = run.report["published"]
        titles = {n["id"]: n["title"] for n in run.report["nodes"]}
        assert sorted(titles[i] for i in review["annotated"]) == [
            "Finding 1",
            "Finding 2",
            "Finding 3",
        ]
        # Not annotated, but not lost: an inline comment on the deleted line, the other in the body.
        (left,) = [c for c in world.inline_comments() if c["side"] == "LEFT"]
        assert (left["path"], left["line"], "Deleted check" in left["body"]) == ("app.py", 2, True)
        assert "No changelog entry" in world.posted_reviews()[0]["body"]


class TestExactlyOnce:
    @pytest.mark.parametrize("lost", list(LOST_ANSWERS.values()), ids=list(LOST_ANSWERS))
    def test_a_lost_patch_answer_does_not_duplicate(self, world: World, lost: Fault) -> None:
        """GitHub stores the first PATCH, its answer is lost: read back, never sent again."""
        _world(world, 120)
        world.github_server.fail_next("PATCH", CHECK_RUN, lost)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.pending_faults == 0
        assert [a["start_line"] for a in _annotations(world)] == ORDER
        assert world.check_runs()[0]["output"]["annotations_count"] == 120
        assert world.github_server.count("PATCH", CHECK_RUN) == 2
        assert world.github_server.count("GET", CHECK_RUN) == 1  # the count, read back

    def test_a_patch_github_did_not_store_is_sent_again(self, world: World) -> None:
        """A 502 before the write: the count shows it absent, so that batch is sent again, once."""
        _world(world, 120)
        world.github_server.fail_next("PATCH", CHECK_RUN, bad_gateway())
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.count("PATCH", CHECK_RUN) == 3
        assert [a["start_line"] for a in _annotations(world)] == ORDER

    def test_a_lost_check_run_answer_still_annotates_once(self, world: World) -> None:
        """The POST with the first 50 is stored and its answer lost: found, then the rest appended."""
        _world(world, 120)
        world.github_server.fail_next("POST", CHECK_RUNS, Lost(bad_gateway()))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.github_server.count("POST", CHECK_RUNS) == 1
        assert [a["start_line"] for a in _annotations(world)] == ORDER

    def test_answers_lost_every_time_end_the_run_without_duplicates(self, world: World) -> None:
        """Every PATCH refused with a 502 before storing: three tries, then exit 5, nothing twice."""
        _world(world, 120)
        for _ in range(3):
            world.github_server.fail_next("PATCH", CHECK_RUN, bad_gateway())
        run = world.review("--post")
        assert run.exit_code == 5, run.stderr
        assert len(run.error_lines) == 1
        assert [a["start_line"] for a in _annotations(world)] == ORDER[:50]


class TestCommitStatusFallback:
    def test_a_commit_status_carries_no_annotations_and_the_report_says_so(
        self, world: World
    ) -> None:
        """Without `checks: write` the verdict is a commit status: no annotation, a note why."""
        _world(world, 3)
        forbidden = Response.json(403, {"message": "Resource not accessible by integration"})
        world.github_server.fail_next("POST", CHECK_RUNS, forbidden)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert world.check_runs() == []
        assert run.report is not None
        published = run.report["published"]
        assert published["commit_status"] is True
        assert published["annotated"] == []
        assert any("carries no annotations" in note for note in published["notes"])
