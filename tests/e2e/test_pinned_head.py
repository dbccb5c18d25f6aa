"""One head per run: what the model sees and what is published belong to the reviewed SHA.

GitHub's `GET /pulls/N/files` (and `/commits`) answer for the PR's head of the moment, not
for the SHA the run checked out. Three pushes at the wrong moment, end to end:

- during the files listing: the listing names the new head in every file's URLs; the run
  lists the reviewed SHA's files by SHA (the compare API) and the model sees only those;
- during the review: the PR has moved on when publishing, so nothing is posted (one line
  says so): the older head's summary would overwrite the newer one's and resolve its findings;
- after a review, a `check_suite` refold of the new head: the remembered axes judged the
  old head, so the new head gets no passing verdict from them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.github_api import FakeFile, FakePush, sha_of
from tests.fakes.messages_api import JSON, Reply, reply, text
from tests.fakes.runs import Run
from tests.fakes.webhooks import check_suite_event, pull_request_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]
BASE = {"app.py": "def run(command):\n    return command\n"}
HEAD = {"app.py": "def run(command):\n    return command.strip()\n"}
# What the author pushes next: another file, with a patch the reviewed head does not have.
PUSHED = FakePush(
    head_sha=sha_of("pushed later"),
    files=[
        FakeFile(
            filename="app.py",
            patch="@@ -1,2 +1,2 @@\n def run(command):\n-    return command\n+    return command.strip()\n",
        ),
        FakeFile(
            filename="later.py", status="added", patch="@@ -0,0 +1 @@\n+PUSHED_LATER = True\n"
        ),
    ],
)


def _first_prompt(run: Run) -> str:
    return json.dumps(run.model[0]["messages"][0])


def _writes_to(world: World) -> dict[str, Any]:
    repo = world.github.repo(REPO)
    return {
        "reviews": repo.reviews.get(world.pull.number, []),
        "summaries": repo.issue_comments.get(world.pull.number, []),
        "checks": repo.check_runs,
        "statuses": repo.statuses,
    }


@pytest.fixture(scope="module")
def listing_push(worlds) -> tuple[World, Run, str]:
    """The author pushes exactly when the run lists the PR's files."""
    world = worlds("listing", base=BASE, head=HEAD, script=[reply(text("Nothing to flag."))])
    reviewed = world.pull.head_sha
    world.pull.push_on_listing = PUSHED
    run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    return world, run, reviewed


class TestPushDuringTheListing:
    def test_the_listing_did_answer_for_the_newer_head(self, listing_push):
        """The fake moved the head as the files were listed, as GitHub does."""
        world, _, reviewed = listing_push
        assert world.pull.head_sha == PUSHED.head_sha != reviewed

    def test_the_files_are_listed_again_pinned_to_the_reviewed_sha(self, listing_push):
        """One compare request names the reviewed head by SHA."""
        world, run, reviewed = listing_push
        compare = [r for r in run.github if "/compare/" in r.path]
        assert [r.path for r in compare] == [
            f"/repos/{REPO}/compare/{world.pull.base_sha}...{reviewed}"
        ]

    def test_the_model_sees_only_the_reviewed_heads_files(self, listing_push):
        """The packed PR has the reviewed head's patch and nothing the later push added."""
        _, run, reviewed = listing_push
        prompt = _first_prompt(run)
        assert "return command.strip()" in prompt
        assert "later.py" not in prompt
        assert "PUSHED_LATER" not in prompt
        assert reviewed in prompt

    def test_nothing_is_posted_and_one_line_says_why(self, listing_push):
        """At publish time the PR is elsewhere: no review, summary or check; exit 0, one line."""
        world, run, reviewed = listing_push
        assert run.returncode == 0, run.stderr
        assert run.writes() == []
        assert all(not v for v in _writes_to(world).values())
        [line] = [ln for ln in run.stderr.splitlines() if "not posting" in ln]
        assert line == (
            f"reviewbot: not posting: {REPO}#7 moved to {PUSHED.head_sha[:12]} while "
            f"{reviewed[:12]} was reviewed; the review of the older head is in the report, and "
            "the newer head gets its own review"
        )
        assert run.report()["pr"]["head_sha"] == reviewed


@pytest.fixture(scope="module")
def review_push(worlds) -> tuple[World, Run, str]:
    """The author pushes while the model is reviewing (a variant the listing check cannot see)."""
    holder: dict[str, World] = {}

    def push_then_answer(_: JSON) -> Reply:
        holder["world"].pull.push(PUSHED)
        return reply(text("Nothing to flag."))

    world = worlds("during", base=BASE, head=HEAD, script=[push_then_answer])
    holder["world"] = world
    reviewed = world.pull.head_sha
    run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    return world, run, reviewed


class TestPushDuringTheReview:
    def test_the_listing_was_the_reviewed_heads(self, review_push):
        """No compare was needed: the listing named the reviewed head."""
        _, run, _ = review_push
        assert not [r for r in run.github if "/compare/" in r.path]

    def test_nothing_is_posted_on_either_head(self, review_push):
        """The PR moved during the review: nothing is written, and stderr says so in one line."""
        world, run, reviewed = review_push
        assert run.returncode == 0, run.stderr
        assert run.writes() == []
        assert all(not v for v in _writes_to(world).values())
        assert f"moved to {PUSHED.head_sha[:12]} while {reviewed[:12]} was reviewed" in run.stderr


@pytest.fixture(scope="module")
def refold_after_push(worlds) -> tuple[World, Run, Run, str]:
    """A clean review of A is posted, the author pushes B, and CI finishing on B asks a refold."""
    world = worlds("refold", base=BASE, head=HEAD, script=[reply(text("Nothing to flag."))])
    reviewed = world.pull.head_sha
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    world.pull.push(PUSHED)
    refold = world.run(ARGS, event_name="check_suite", event=check_suite_event(world))
    return world, first, refold, reviewed


class TestRefoldOfAnUnreviewedHead:
    def test_the_first_review_passed_on_its_own_head(self, refold_after_push):
        """The clean review of A set a passing check run on A, and only on A."""
        world, first, _, reviewed = refold_after_push
        assert first.returncode == 0, first.stderr
        assert [r.json()["head_sha"] for r in first.calls("POST", "/check-runs")] == [reviewed]
        assert world.github.required_check(REPO, reviewed, "reviewbot") == "passing"

    def test_the_new_head_gets_no_passing_verdict_from_the_old_review(self, refold_after_push):
        """B's files were never reviewed: the refold's check on B does not pass, A's still does."""
        world, _, refold, reviewed = refold_after_push
        assert refold.returncode == 0, refold.stderr
        assert refold.outputs["verdict"] != "ship"
        assert world.github.required_check(REPO, PUSHED.head_sha, "reviewbot") == "failing"
        assert world.github.required_check(REPO, reviewed, "reviewbot") == "passing"
        assert all(
            r.json().get("head_sha") == PUSHED.head_sha for r in refold.calls("POST", "/check-runs")
        )
