"""A resolved finding that comes back: reopened in its own comment, or posted once anew.

Three runs against the loopback fake GitHub: HEAD posts the finding inline, NEW_HEAD no longer
reports it (the comment says "Resolved", its thread is resolved), THIRD reports it again. Its
old comment still on the finding's lines is edited back to open and its thread unresolved; an
old comment GitHub shows as outdated (or on other lines) stays resolved, as history, and the
finding is posted once anew. Whatever happens, the PR has one open thread for it.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from reviewbot.github import edits as edits_module
from reviewbot.github.rest import GitHubUnreachable
from reviewbot.nodes import ReviewNode, Status
from reviewbot.publish import resolution as resolution_module
from reviewbot.results.report import Published
from tests.fakes.github_api import FakePush
from tests.fakes.server import LoopbackServer, Lost, Response
from tests.publish.conftest import (
    HEAD,
    NEW_HEAD,
    REPO,
    OnePull,
    app_text,
    make_publisher,
    make_report,
    make_snapshot,
    node,
)

THIRD = "d" * 40  # the push that brings the finding back
R = f"/repos/{REPO}"
LOST = Lost(Response.json(502, {"message": "Server Error"}))


@pytest.fixture
def publisher(served):
    return functools.partial(make_publisher, served.url)


def finding(i: int = 1, *, head: str = HEAD) -> ReviewNode:
    return node(id=f"review-{i}", title=f"x{i + 2} is off by one", lines=(i + 2, i + 2)).model_copy(
        update={"commit_sha": head}
    )


def resolve_then_return(
    fake: OnePull, publisher: Any, checkout: Any, nodes: tuple[ReviewNode, ...]
) -> None:
    """Runs one and two: `nodes` posted on HEAD, then resolved on NEW_HEAD; THIRD pushed."""
    publisher().publish(make_report(nodes), make_snapshot(checkout))
    second = publisher().publish(
        make_report((), head_sha=NEW_HEAD), make_snapshot(checkout, head_sha=NEW_HEAD)
    )
    assert len(second.resolved) == len(nodes)
    fake.pull.push(FakePush(head_sha=THIRD, files=fake.pull.files))


def come_back(publisher: Any, checkout: Any, nodes: tuple[ReviewNode, ...]) -> Published:
    back = tuple(n.model_copy(update={"commit_sha": THIRD}) for n in nodes)
    return publisher().publish(
        make_report(back, head_sha=THIRD), make_snapshot(checkout, head_sha=THIRD)
    )


def roots(fake: OnePull, fingerprint: str) -> list[dict[str, Any]]:
    """The inline comments (thread roots) that carry the finding's marker."""
    return [
        c for c in fake.review_comments if c["in_reply_to_id"] is None and fingerprint in c["body"]
    ]


def open_threads(fake: OnePull, fingerprint: str) -> list[int]:
    resolved = fake.github.repo(REPO).resolved_threads
    return [c["id"] for c in roots(fake, fingerprint) if c["id"] not in resolved]


def new_inline(served: LoopbackServer, start: int) -> int:
    posts = [r.json() for r in served.snapshot()[start:] if r.method == "POST"]
    return sum(len(p.get("comments") or ()) for p in posts if "event" in p)


def edits_of(served: LoopbackServer, start: int, comment_id: int) -> int:
    path = f"{R}/pulls/comments/{comment_id}"
    return sum(r.method == "PATCH" and r.path == path for r in served.snapshot()[start:])


def outdate_line_3(fake: OnePull) -> None:
    """THIRD changes line 3 (then restores its text elsewhere): HEAD's comment is outdated."""
    fake.github.set_content(REPO, HEAD, "src/app.py", app_text())
    fake.github.set_content(
        REPO, THIRD, "src/app.py", app_text().replace("x3 = 3\n", "x3 = 3  # \n")
    )


class TestReopenedInPlace:
    def test_the_old_comment_is_edited_back_to_open_and_its_thread_unresolved(
        self, served, fake, publisher, checkout
    ):
        """No new inline comment, one edit of the old one, its thread unresolved: one open thread."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (root,) = roots(fake, n.fingerprint)
        assert root["id"] in fake.github.repo(REPO).resolved_threads
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 0
        assert edits_of(served, start, root["id"]) == 1
        assert open_threads(fake, n.fingerprint) == [root["id"]]
        assert published.reopened == (n.id,)
        assert published.threads_reopened == (root["id"],)
        assert published.comments == ()
        assert not root["body"].startswith("✅ **Resolved**")
        statuses = {p.node.fingerprint: p.node.status for p in publisher().load_prior_state().nodes}
        assert statuses[n.fingerprint] is Status.OPEN

    def test_the_summary_and_the_check_run_say_reopened(self, served, fake, publisher, checkout):
        """The summary lists it once, as reopened; the check run's summary says the same."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        come_back(publisher, checkout, (n,))
        summary = fake.issue_comments[0]["body"]
        (row,) = [line for line in summary.splitlines() if n.title in line]
        assert row.endswith("| reopened |")
        check = fake.github.repo(REPO).check_runs[-1]["output"]["summary"]
        (row,) = [line for line in check.splitlines() if n.title in line]
        assert row.endswith("| reopened |")

    def test_a_fourth_run_on_the_same_head_posts_nothing_again(
        self, served, fake, publisher, checkout
    ):
        """The reopened comment stands: the next run finds it already posted."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        come_back(publisher, checkout, (n,))
        start = len(served.snapshot())
        again = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 0
        assert again.already_posted == (n.id,)
        assert len(open_threads(fake, n.fingerprint)) == 1

    def test_a_graphql_failure_still_reopens_the_comment(self, served, fake, publisher, checkout):
        """Threads are a courtesy: FORBIDDEN from GraphQL, the comment is reopened by its edit."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        fake.github.graphql_allowed = False
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        (root,) = roots(fake, n.fingerprint)
        assert new_inline(served, start) == 0
        assert edits_of(served, start, root["id"]) == 1
        assert published.reopened == (n.id,)
        assert published.threads_reopened == ()
        assert any("Review threads were left as they are" in note for note in published.notes)


class TestPostedAnew:
    def test_an_outdated_old_comment_stays_resolved_and_the_finding_is_posted_once(
        self, served, fake, publisher, checkout
    ):
        """GitHub shows the old comment as outdated (line null): one new comment, old thread resolved."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (old,) = roots(fake, n.fingerprint)
        outdate_line_3(fake)
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 1
        assert edits_of(served, start, old["id"]) == 0
        assert published.reopened == ()
        assert published.threads_reopened == ()
        assert old["id"] in fake.github.repo(REPO).resolved_threads
        assert old["body"].startswith("✅ **Resolved**")
        assert len(open_threads(fake, n.fingerprint)) == 1

    def test_a_deleted_old_comment_means_the_finding_is_posted_once(
        self, served, fake, publisher, checkout
    ):
        """The old comment is gone: posted anew, no thread touched."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        fake.review_comments.clear()
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 1
        assert published.threads_reopened == ()
        assert len(open_threads(fake, n.fingerprint)) == 1

    def test_past_the_edit_budget_a_returning_finding_is_posted_once(
        self, served, fake, publisher, checkout, monkeypatch
    ):
        """Two come back, one edit left in the run: one reopened, the other posted once anew."""
        monkeypatch.setattr(resolution_module, "MAX_RESOLVE_EDITS", 2)
        nodes = (finding(1), finding(2))
        resolve_then_return(fake, publisher, checkout, nodes)
        monkeypatch.setattr(resolution_module, "MAX_RESOLVE_EDITS", 1)
        start = len(served.snapshot())
        published = come_back(publisher, checkout, nodes)
        assert new_inline(served, start) == 1
        assert len(published.reopened) == 1
        assert len(published.threads_reopened) == 1
        for n in nodes:
            assert len(open_threads(fake, n.fingerprint)) == 1, n.id

    def test_an_old_comment_gone_before_its_edit_is_posted_anew(
        self, served, fake, publisher, checkout
    ):
        """The edit is answered 404 (deleted since it was read): the finding goes in the review,
        and the thread unresolved just before the edit is resolved again."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (old,) = roots(fake, n.fingerprint)
        gone = Response.json(404, {"message": "Not Found"})
        served.fail_next("PATCH", rf"/pulls/comments/{old['id']}$", gone)
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 1
        assert published.reopened == ()
        assert published.threads_reopened == ()
        assert old["id"] in fake.github.repo(REPO).resolved_threads
        assert len(open_threads(fake, n.fingerprint)) == 1


def replied(fake: OnePull, root: dict[str, Any]) -> None:
    """A person answers in the resolved thread: threads.py leaves such a thread open."""
    fake.add_review_comment(
        "Thanks, fixed in the next push.", login="alice", in_reply_to=root["id"]
    )


def thread_writes(fake: OnePull, field: str) -> list[int]:
    return [root for name, root in fake.github.thread_changes if name == field]


REFUSED = Response.json(422, {"message": "Validation Failed"})


class TestRefusedReopen:
    """The edit back to open cannot be made: the finding is posted anew and its old thread, a
    person's reply in it or not, ends as it was (resolved), or is reported left open."""

    def test_a_refused_edit_with_a_persons_reply_leaves_one_open_thread(
        self, served, fake, publisher, checkout
    ):
        """GitHub refuses the edit (422): the thread this run unresolved for it is resolved
        again, though a person replied in it since it was resolved."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (old,) = roots(fake, n.fingerprint)
        replied(fake, old)
        served.fail_next("PATCH", rf"/pulls/comments/{old['id']}$", REFUSED)
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 1
        assert published.reopened == ()
        assert old["id"] in fake.github.repo(REPO).resolved_threads
        assert len(open_threads(fake, n.fingerprint)) == 1
        assert (published.threads_reopened, published.threads_left_open) == ((), ())

    def test_a_body_that_cannot_fit_never_unresolves_the_thread(
        self, served, fake, publisher, checkout, monkeypatch
    ):
        """The reopened body cannot fit with every marker: known before any write, so the
        thread is never touched and the finding is posted anew."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (old,) = roots(fake, n.fingerprint)
        replied(fake, old)
        monkeypatch.setattr(edits_module, "reopened_body", lambda *_, **__: None)
        start = len(served.snapshot())
        published = come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 1
        assert edits_of(served, start, old["id"]) == 0
        assert thread_writes(fake, "unresolveReviewThread") == []
        assert len(open_threads(fake, n.fingerprint)) == 1
        assert (published.reopened, published.threads_left_open) == ((), ())

    def test_an_undo_graphql_refuses_is_reported_left_open(self, served, fake, publisher, checkout):
        """The edit is refused, then so is resolving its thread again: the thread is left
        open beside the new comment, and `threads_left_open` and a note say so."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (old,) = roots(fake, n.fingerprint)
        served.fail_next("PATCH", rf"/pulls/comments/{old['id']}$", REFUSED)
        forbidden = {"type": "FORBIDDEN", "message": "Resource not accessible by integration"}
        served.fail_next(
            "POST",
            r"/graphql$",
            Response.json(200, {"data": None, "errors": [forbidden]}),
            when=lambda r: "mutation" in r.body.decode() and "unresolve" not in r.body.decode(),
        )
        published = come_back(publisher, checkout, (n,))
        assert old["id"] not in fake.github.repo(REPO).resolved_threads
        assert published.threads_left_open == (old["id"],)
        assert published.threads_reopened == ()
        assert any("Review threads were left as they are" in note for note in published.notes)


class TestLostAnswer:
    def test_a_lost_answer_to_the_edit_is_made_again_never_posted(
        self, served, fake, publisher, checkout
    ):
        """The PATCH is stored but its answer lost: made again (idempotent), nothing posted."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (root,) = roots(fake, n.fingerprint)
        served.fail_next("PATCH", rf"/pulls/comments/{root['id']}$", LOST)
        retrying = make_publisher(served.url, retries=2)
        start = len(served.snapshot())
        back = (n.model_copy(update={"commit_sha": THIRD}),)
        published = retrying.publish(
            make_report(back, head_sha=THIRD), make_snapshot(checkout, head_sha=THIRD)
        )
        assert edits_of(served, start, root["id"]) == 2
        assert new_inline(served, start) == 0
        assert published.reopened == (n.id,)
        assert open_threads(fake, n.fingerprint) == [root["id"]]

    def test_an_edit_that_cannot_be_confirmed_ends_the_run_and_the_next_posts_nothing_twice(
        self, served, fake, publisher, checkout
    ):
        """Every answer lost: the run ends before its review; the next run reopens it once."""
        n = finding()
        resolve_then_return(fake, publisher, checkout, (n,))
        (root,) = roots(fake, n.fingerprint)
        served.fail_next("PATCH", rf"/pulls/comments/{root['id']}$", LOST)
        start = len(served.snapshot())
        with pytest.raises(GitHubUnreachable):
            come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 0
        come_back(publisher, checkout, (n,))
        assert new_inline(served, start) == 0
        assert open_threads(fake, n.fingerprint) == [root["id"]]
