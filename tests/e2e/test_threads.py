"""Review threads follow their findings, end to end through GitHub's GraphQL API (the fake's).

Each flow runs the real CLI on `pull_request` events against the loopback fakes:

- fixed: head A has a division by zero; reviewbot posts it inline. A push fixes it: the
  finding is resolved, its comment says so, and its review thread is resolved
  (`resolveReviewThread`). A later push brings the bug back on the same lines: the old
  comment is edited back to open and its thread unresolved (`unresolveReviewThread`); no new
  comment is posted, so the finding keeps one open thread.
- replied: the same finding, but the PR's author answered in its thread: when the fix is
  pushed the comment is marked resolved and the thread, a conversation, is left open.
- refused: the token may not resolve threads (GitHub's FORBIDDEN error): the review, the
  resolution and the check run are published as ever, with one note.
- clean: a review that resolves nothing makes no GraphQL request at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.e2e.harness import AUTHOR, REPO, Run, World, pull_request_event
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import clean
from tests.fakes.two_bugs import ZERO

ARGS = ["review", "--github-event", "--post"]

BASE = {"util.py": "def ratio(a, b):\n    return 0\n"}
HEAD = {"util.py": "def ratio(a, b):\n    return a / b\n"}
FIXED = {"util.py": "def ratio(a, b):\n    return a / b if b else 0.0\n"}


def found() -> list:
    return [reply(tool_use("add_review_node", ZERO)), reply(text("One bug."))]


def graphql(run: Run) -> list[str]:
    """The GraphQL operations of a run, by the field they select, in order."""
    out = []
    for request in run.github:
        if request.method == "POST" and request.path.endswith("/graphql"):
            query = request.json()["query"]
            out.append(next(f for f in ("unresolveReviewThread", "resolveReviewThread",
                                        "reviewThreads") if f"{f}(" in query))  # fmt: skip
    return out


def root_comment(world: World) -> dict:
    return next(
        c
        for c in world.github.repo(REPO).review_comments[world.pull.number]
        if c["in_reply_to_id"] is None and "reviewbot:node" in c["body"]
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Flows:
    fixed: World
    fixed_a: Run
    fixed_b: Run
    fixed_c: Run
    fixed_root: int
    replied: World
    replied_b: Run
    refused: World
    refused_b: Run


@pytest.fixture(scope="module")
def flows(worlds) -> Flows:
    fixed = worlds("fixed", base=BASE, head=HEAD, script=[*found(), *clean(), *found()])
    replied = worlds("replied", base=BASE, head=HEAD, script=[*found(), *clean()])
    refused = worlds("refused", base=BASE, head=HEAD, script=[*found(), *clean()])
    refused.github.graphql_allowed = False
    fixed_a, _, _ = [
        w.run(ARGS, event_name="pull_request", event=pull_request_event(w))
        for w in (fixed, replied, refused)
    ]
    fixed_root = root_comment(fixed)["id"]
    replied.github.add_reply(
        REPO,
        replied.pull.number,
        in_reply_to=root_comment(replied)["id"],
        body="Good catch, on it.",
        author=AUTHOR,
    )
    for world in (fixed, replied, refused):
        world.push(FIXED)
    fixed_b, replied_b, refused_b = (w.synchronize(ARGS) for w in (fixed, replied, refused))
    fixed.push(HEAD)  # the bug comes back
    fixed_c = fixed.synchronize(ARGS)
    return Flows(
        fixed=fixed,
        fixed_a=fixed_a,
        fixed_b=fixed_b,
        fixed_c=fixed_c,
        fixed_root=fixed_root,
        replied=replied,
        replied_b=replied_b,
        refused=refused,
        refused_b=refused_b,
    )


class TestFixed:
    def test_a_review_that_resolves_nothing_asks_no_graphql(self, flows):
        """The first review posts the finding: nothing to resolve, no GraphQL request."""
        assert flows.fixed_a.returncode == 0, flows.fixed_a.stderr
        assert graphql(flows.fixed_a) == []

    def test_the_fixed_findings_thread_is_resolved(self, flows):
        """The push fixes it: resolved in the report, its thread resolved on GitHub."""
        run = flows.fixed_b
        assert run.returncode == 0, run.stderr
        published = run.report()["published"]
        assert len(published["resolved"]) == 1
        assert published["threads_resolved"] == [flows.fixed_root]
        assert graphql(run) == ["reviewThreads", "resolveReviewThread"]
        assert flows.fixed.github.thread_changes[0] == ("resolveReviewThread", flows.fixed_root)

    def test_the_thread_is_unresolved_when_the_finding_returns(self, flows):
        """The bug is pushed again: its old comment is reopened, not posted again; one open thread."""
        run = flows.fixed_c
        assert run.returncode == 0, run.stderr
        published = run.report()["published"]
        assert published["threads_reopened"] == [flows.fixed_root]
        assert len(published["reopened"]) == 1
        assert published["comments"] == []
        roots = [
            c
            for c in flows.fixed.github.repo(REPO).review_comments[flows.fixed.pull.number]
            if c["in_reply_to_id"] is None and "reviewbot:node" in c["body"]
        ]
        assert [c["id"] for c in roots] == [flows.fixed_root]
        assert "**Resolved**" not in roots[0]["body"]
        assert flows.fixed.github.thread_changes == [
            ("resolveReviewThread", flows.fixed_root),
            ("unresolveReviewThread", flows.fixed_root),
        ]
        assert flows.fixed_root not in flows.fixed.github.repo(REPO).resolved_threads


class TestReplied:
    def test_a_thread_a_person_replied_in_is_left_open_with_the_note(self, flows):
        """Marked resolved in the comment, but the conversation stays open."""
        run = flows.replied_b
        assert run.returncode == 0, run.stderr
        published = run.report()["published"]
        root = root_comment(flows.replied)
        assert published["threads_resolved"] == []
        assert published["threads_left_open"] == [root["id"]]
        assert "**Resolved**" in root["body"]
        assert flows.replied.github.thread_changes == []


class TestRefused:
    def test_a_graphql_failure_never_loses_the_review(self, flows):
        """FORBIDDEN from GraphQL: the resolution, summary and check run are published; one note."""
        run = flows.refused_b
        assert run.returncode == 0, run.stderr
        published = run.report()["published"]
        assert len(published["resolved"]) == 1
        assert published["check_run_id"] is not None
        notes = [n for n in published["notes"] if "Review threads" in n]
        assert notes == [
            "Review threads were left as they are: GitHub's GraphQL API failed (GitHub refused "
            "the GraphQL request: Resource not accessible by integration (FORBIDDEN))."
        ]
        assert "**Resolved**" in root_comment(flows.refused)["body"]
