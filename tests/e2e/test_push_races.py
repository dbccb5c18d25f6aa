"""A push during a run, in each phase, and GitHub's brief 422 after a push — end to end.

One rule for a head that moves during a run (`HeadMoved`): nothing more is posted for the
older head, one line says so, and the run exits 0 whatever `--fail-on` says — at the
checkout (the fetched `refs/pull/N/head` is not the head GitHub listed), after the model
phase (before posting) and while posting (after the review, before the summary and the
check run). And a review GitHub refuses whole (422) with no comment at fault is posted
again once, after a read-back, instead of ending the run.
"""

from __future__ import annotations

from tests.fakes.github_api import FakeFile, FakePush, sha_of, unprocessable
from tests.fakes.gitrepo import git
from tests.fakes.messages_api import reply, text
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]
BASE = {"app.py": "def run(command):\n    return command\n"}
HEAD = {"app.py": "def run(command):\n    return command.strip()\n"}
PUSHED = FakePush(
    head_sha=sha_of("pushed during the run"),
    files=[
        FakeFile(
            filename="app.py",
            patch="@@ -1,2 +1,2 @@\n def run(command):\n-    return command\n+    return command.strip()\n",
        ),
        FakeFile(filename="later.py", status="added", patch="@@ -0,0 +1 @@\n+LATER = 1\n"),
    ],
)
REVIEWS = r"/pulls/7/reviews$"


def _writes(world: World) -> dict[str, int]:
    repo = world.github.repo(REPO)
    return {
        "reviews": len(repo.reviews.get(7, [])),
        "summaries": len(repo.issue_comments.get(7, [])),
        "checks": len(repo.check_runs),
        "statuses": len(repo.statuses),
    }


def _run(world: World, *extra: str, anthropic: bool = True):
    event = pull_request_event(world)
    return world.run([*ARGS, *extra], event_name="pull_request", event=event, anthropic=anthropic)


class TestAHeadThatMovesExitsZeroInEveryPhase:
    def test_before_the_model_phase_the_fetch_sees_another_head(self, worlds):
        """refs/pull/7/head moved after GitHub listed the PR: no review, one line, exit 0
        (it was exit 6, "git could not produce the checkout")."""
        world = worlds("fetch", base=BASE, head=HEAD)
        git(world.repo, "commit", "-q", "--allow-empty", "-m", "pushed during the run")
        git(world.repo, "update-ref", "refs/pull/7/head", git(world.repo, "rev-parse", "HEAD"))
        run = _run(world, "--fail-on", "hold")
        assert run.returncode == 0, run.stderr
        [line] = [ln for ln in run.stderr.splitlines() if "moved to" in ln]
        assert line.startswith("reviewbot: nothing to review: not reviewing: PR #7 moved to")
        assert run.model == ()
        assert run.writes() == []

    def test_after_the_model_phase_nothing_is_posted_and_fail_on_does_not_apply(self, worlds):
        """A push seen before posting: nothing posted, exit 0 even with --fail-on hold and a
        Hold (it was exit 1: the superseded head's verdict was gated)."""
        world = worlds("before-posting", base=BASE, head=HEAD)
        world.pull.push_on_listing = PUSHED
        run = _run(world, "--fail-on", "hold", anthropic=False)  # no key: a Hold
        assert run.returncode == 0, run.stderr
        assert run.report()["verdict"] == "hold"
        assert run.writes() == []
        assert [ln for ln in run.stderr.splitlines() if "reviewbot: not posting:" in ln]

    def test_while_posting_the_rest_is_not_posted(self, worlds):
        """A push as the review is posted: the review stands (it names the older SHA), and the
        summary and the check run — which belong to the PR as it is now — are not written."""
        world = worlds("posting", base=BASE, head=HEAD, script=[reply(text("Nothing to flag."))])

        def push_once(_request) -> bool:
            if world.pull.head_sha != PUSHED.head_sha:
                world.pull.push(PUSHED)
            return False  # no fault: the review is stored and answered as usual

        world.github_server.fail_next("POST", REVIEWS, unprocessable(), when=push_once)
        run = _run(world, "--fail-on", "hold")
        assert run.returncode == 0, run.stderr
        assert _writes(world) == {"reviews": 1, "summaries": 0, "checks": 0, "statuses": 0}
        [line] = [ln for ln in run.stderr.splitlines() if "not posting the rest" in ln]
        assert f"moved to {PUSHED.head_sha[:12]}" in line

    def test_an_approval_posted_as_the_head_moves_stops_counting(self, worlds):
        """A Ship's APPROVE that lands as a push arrives approves a head that is no longer
        the PR's: reviewbot dismisses it, so it cannot count toward the newer head."""
        world = worlds("approve", base=BASE, head=HEAD, script=[reply(text("Nothing to flag."))])
        world.github.approve_allowed = True  # a Ship is an APPROVE

        def push_once(_request) -> bool:
            if world.pull.head_sha != PUSHED.head_sha:
                world.pull.push(PUSHED)
            return False

        world.github_server.fail_next("POST", REVIEWS, unprocessable(), when=push_once)
        run = _run(world)
        assert run.returncode == 0, run.stderr
        [review] = world.github.repo(REPO).reviews[7]
        assert review["state"] == "DISMISSED", run.stderr


class TestGitHubsBrief422AfterAPush:
    def test_a_review_refused_whole_is_posted_again_once(self, worlds):
        """The review POST is refused 422 once, no comment at fault (the probes pass): the
        review is posted on the retry, then the summary and the check run (it ended the run)."""
        world = worlds("brief-422", base=BASE, head=HEAD, script=[reply(text("Nothing to flag."))])
        world.github_server.fail_next(
            "POST",
            REVIEWS,
            unprocessable("Pull request is being processed, try again"),
            when=lambda request: "event" in (request.json() or {}),
        )
        run = _run(world)
        assert run.returncode == 0, run.stderr
        assert _writes(world) == {"reviews": 1, "summaries": 1, "checks": 1, "statuses": 0}
        submitted = [r for r in run.calls("POST", "/pulls/7/reviews") if "event" in r.json()]
        # the brief 422; the retry, an APPROVE this token may not make (422); the COMMENT
        assert [(r.status, r.json()["event"]) for r in submitted] == [
            (422, "APPROVE"),
            (422, "APPROVE"),
            (200, "COMMENT"),
        ]
