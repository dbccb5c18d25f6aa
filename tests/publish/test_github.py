"""The GitHub publisher against the loopback fake GitHub: the exact requests of a run."""

from __future__ import annotations

import functools
import json

import pytest

from reviewbot.config.file import PublishConfig
from reviewbot.config.learnings import Learning
from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.errors import AuthError, GitHubAPIError, ReviewbotError
from reviewbot.github import review_write as review_write_module
from reviewbot.github.rest import GitHubRefusal
from reviewbot.memory.markers import node_marker, seal_body
from reviewbot.memory.postings import apply_decisions
from reviewbot.nodes import Priority, ReviewNode, Status
from reviewbot.publish.body import MAX_BODY, SEAL_ROOM
from reviewbot.publish.conclusion import check_conclusion
from reviewbot.redact import MASK, Redactor
from reviewbot.results.learned import LearnedMatch, LearningsReport
from reviewbot.results.report import AgentReport, Report
from reviewbot.results.run import StopReason
from reviewbot.review import resolution as review_resolution
from tests.fakes.github_api import FakePush, unprocessable
from tests.fakes.server import LoopbackServer, Lost, Response
from tests.publish.conftest import (
    APP_PATCH,
    BOT,
    HEAD,
    NEW_HEAD,
    NUMBER,
    REPO,
    SEALER,
    bodies,
    every_kind,
    make_publisher,
    make_report,
    make_snapshot,
    node,
)

R = f"/repos/{REPO}"
THIRD = "d" * 40  # a push after NEW_HEAD
PRIOR_READS = [
    ("GET", f"{R}/pulls/{NUMBER}/comments"),
    ("GET", f"{R}/pulls/{NUMBER}/reviews"),
    ("GET", f"{R}/issues/{NUMBER}/comments"),
]


def not_accessible() -> Response:
    """GitHub's 403 for what the token's permissions do not cover."""
    return Response.json(403, {"message": "Resource not accessible by integration"})


@pytest.fixture
def publisher(served):
    """`publisher(config=None, redactor=None)`: a publisher talking to the served fake."""
    return functools.partial(make_publisher, served.url)


def too_long_to_edit(fake, nodes) -> dict:
    """A review body listing `nodes`, with a hidden line no edit may drop: nothing can give."""
    items = "\n".join(f"- item {n.id} {node_marker(n)}" for n in nodes)
    pad = MAX_BODY - len(items) - 12
    return fake.add_review(seal_body(f"<!-- {'x' * pad} -->\n\n{items}", SEALER), login=BOT)


def postings(fake, fingerprint: str) -> int:
    """How many reviews and inline comments carry a marker of `fingerprint`."""
    repo = fake.github.repo(REPO)
    texts = [r["body"] for r in repo.reviews.get(NUMBER, [])]
    texts += [c["body"] for c in repo.review_comments.get(NUMBER, [])]
    return sum(fingerprint in (text or "") for text in texts)


def calls(served: LoopbackServer, start=0):
    return [(r.method, r.path) for r in served.snapshot()[start:]]


class TestFirstRun:
    def test_exact_requests_one_review_with_every_new_comment(
        self, served, fake, publisher, checkout
    ):
        """Reads, ONE review POST, a read-back, the summary and the check run: nothing else."""
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        review_id = published.review_id
        assert calls(served) == [
            *PRIOR_READS,
            ("POST", f"{R}/pulls/{NUMBER}/reviews"),
            ("GET", f"{R}/pulls/{NUMBER}/reviews/{review_id}/comments"),
            ("POST", f"{R}/issues/{NUMBER}/comments"),
            ("POST", f"{R}/check-runs"),
        ]
        (review,) = bodies(served, "POST", "/reviews")
        assert (review["commit_id"], review["event"]) == (HEAD, "REQUEST_CHANGES")
        assert [
            (c["path"], c.get("start_line"), c["line"], c["side"]) for c in review["comments"]
        ] == [("src/app.py", 3, 4, "RIGHT"), ("src/app.py", 7, 8, "RIGHT")]
        assert published.event == "REQUEST_CHANGES"
        assert [(c.node_id, c.landed) for c in published.comments] == [
            ("review-1", True),
            ("review-2", True),
        ]

    def test_no_inline_comment_outside_the_diff_and_those_nodes_are_in_the_body(
        self, served, fake, publisher, checkout
    ):
        """The review is accepted in one POST; out-of-diff nodes are in its body with links."""
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        (review,) = bodies(served, "POST", "/reviews")  # one POST: the fake took every comment
        body = review["body"]
        link = f"https://github.com/{REPO}/blob/{HEAD}/src/app.py#L12-L14"
        assert f"]({link})" in body
        assert "_outside the diff_" in body
        for title in ("Unchanged helper", "Is the migration needed?", "Document the widgets"):
            assert title in body
        assert "Was fine after all" not in body  # dismissed: summary only
        assert published.in_body == ("review-3", "review-5", "review-4")

    def test_committable_suggestion_in_the_inline_comment(self, served, fake, publisher, checkout):
        """The exact-range suggestion that still parses is posted as a suggestion block."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        (review,) = bodies(served, "POST", "/reviews")
        assert "```suggestion\nx3 = 30\nx4 = 40\n```" in review["comments"][0]["body"]

    def test_one_review_post_whatever_the_number_of_findings(
        self, served, fake, publisher, checkout
    ):
        """45 findings cost one review POST: 30 inline by priority, the rest in its body."""
        nodes = tuple(
            node(
                id=f"n{i}",
                title=f"finding {i}",
                priority=Priority.P1 if i % 3 else Priority.P0,
                lines=(3 + i % 6, 3 + i % 6),
            )
            for i in range(45)
        )
        published = publisher().publish(make_report(nodes), make_snapshot(checkout))
        writes = [c for c in calls(served) if c[0] != "GET"]
        assert writes == [
            ("POST", f"{R}/pulls/{NUMBER}/reviews"),
            ("POST", f"{R}/issues/{NUMBER}/comments"),
            ("POST", f"{R}/check-runs"),
        ]
        (review,) = bodies(served, "POST", "/reviews")
        assert len(review["comments"]) == 30
        assert len(published.in_body) == 15
        inline_ids = {c.node_id for c in published.comments}
        assert {f"n{i}" for i in range(0, 45, 3)} <= inline_ids  # every P0 made it inline

    def test_bodies_pass_through_the_redactor(self, served, fake, publisher, checkout):
        """A secret in a finding never reaches GitHub."""
        secret = "s3cr3t-value-123"
        leaky = node(id="leak", title="Leaks the key", body=f"key is {secret}", lines=(3, 3))
        publisher(redactor=Redactor.of([secret])).publish(
            make_report((leaky,)), make_snapshot(checkout)
        )
        sent = " ".join(
            json.dumps(body) for body in bodies(served, "POST", "") + bodies(served, "PATCH", "")
        )
        assert secret not in sent
        assert MASK in sent


class TestRerun:
    def test_second_run_on_same_head_posts_nothing_new_and_edits_summary(
        self, served, fake, publisher, checkout
    ):
        """Same head, same findings: no review, the summary PATCHed in place, a check run."""
        report, snapshot = make_report(every_kind()), make_snapshot(checkout)
        first = publisher().publish(report, snapshot)
        start = len(served.snapshot())
        second = publisher().publish(report, snapshot)
        assert calls(served, start) == [
            *PRIOR_READS,
            ("PATCH", f"{R}/issues/comments/{first.summary_comment_id}"),
            ("POST", f"{R}/check-runs"),
        ]
        assert (second.review_id, second.comments, second.summary_comment_id) == (
            None,
            (),
            first.summary_comment_id,
        )
        assert set(second.already_posted) == {f"review-{i}" for i in range(1, 6)}
        assert len(fake.issue_comments) == 1

    def test_new_head_marks_vanished_findings_resolved(self, served, fake, publisher, checkout):
        """On a new head, findings no longer reported are marked resolved in their comments."""
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        inline_review_1 = fake.review_comments[0]["id"]
        review_id = fake.reviews[0]["id"]
        kept = tuple(n.model_copy(update={"commit_sha": NEW_HEAD}) for n in (nodes[1], nodes[3]))
        start = len(served.snapshot())
        published = publisher().publish(
            make_report(kept, head_sha=NEW_HEAD), make_snapshot(checkout, head_sha=NEW_HEAD)
        )
        assert calls(served, start) == [
            *PRIOR_READS,
            ("PATCH", f"{R}/pulls/comments/{inline_review_1}"),
            ("PUT", f"{R}/pulls/{NUMBER}/reviews/{review_id}"),
            # The inline finding's review thread: found, then resolved (github/threads.py).
            ("POST", "/graphql"),
            ("POST", "/graphql"),
            ("PATCH", f"{R}/issues/comments/{fake.issue_comments[0]['id']}"),
            ("POST", f"{R}/check-runs"),
        ]
        assert set(published.resolved) == {"review-1", "review-3", "review-5"}
        assert published.threads_resolved == (inline_review_1,)
        state = publisher().load_prior_state()
        statuses = {p.node.id: p.node.status for p in state.nodes}
        assert statuses == {
            "review-1": Status.RESOLVED,
            "review-2": Status.OPEN,
            "review-3": Status.RESOLVED,
            "review-4": Status.OPEN,
            "review-5": Status.RESOLVED,
        }
        assert fake.review_comments[0]["body"].startswith("✅ **Resolved**")
        summary = fake.issue_comments[0]["body"]
        assert "Resolved since the last review" in summary
        assert "~~x3 is off by one~~" in summary

    @pytest.mark.parametrize(
        "unseen",
        [
            UnseenFile(path="src/app.py", reason="r", remedy="m"),
            UnseenFile(path="src/app2.py", old_path="src/app.py", reason="r", remedy="m"),
        ],
        ids=["unseen-file", "unseen-after-a-rename"],
    )
    def test_findings_in_a_file_nobody_saw_stay_open(
        self, served, fake, publisher, checkout, unseen
    ):
        """Per file: findings in an unseen file (or its old name) stay open; the others resolve."""
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        kept = tuple(n.model_copy(update={"commit_sha": NEW_HEAD}) for n in (nodes[1], nodes[3]))
        report = make_report(kept, head_sha=NEW_HEAD)
        assert report.coverage is not None
        coverage = report.coverage.model_copy(update={"partial": True, "unseen": (unseen,)})
        report = report.model_copy(update={"coverage": coverage})
        published = publisher().publish(report, make_snapshot(checkout, head_sha=NEW_HEAD))
        assert published.resolved == ("review-5",)  # docs/format.md was seen
        statuses = {p.node.id: p.node.status for p in publisher().load_prior_state().nodes}
        assert statuses["review-1"] is Status.CONSENSUS_READY
        assert statuses["review-3"] is Status.OPEN
        assert statuses["review-5"] is Status.RESOLVED
        assert any("this run did not see, so they stay open" in n for n in published.notes)

    @pytest.mark.parametrize(
        ("stop", "coverage"),
        [
            (StopReason.NO_CREDENTIALS, "full"),
            (StopReason.CREDENTIALS_REFUSED, "full"),
            (StopReason.ERROR, "full"),
            (StopReason.MAX_COST, "full"),
            (StopReason.MAX_TURNS, "full"),
            (StopReason.FINALIZED, "partial"),
            (StopReason.FINALIZED, "none"),
            (None, "full"),
        ],
        ids=[
            "no-key",
            "rejected-key",
            "crash",
            "budget",
            "turns",
            "partial-coverage",
            "no-coverage",
            "no-reviewer",
        ],
    )
    def test_a_run_that_could_not_review_resolves_nothing(
        self, served, fake, publisher, checkout, stop, coverage
    ):
        """No findings from a run that could not review the whole PR prove nothing fixed."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        start = len(served.snapshot())
        report = _could_not_review(make_report((), head_sha=NEW_HEAD), stop, coverage)
        published = publisher().publish(report, make_snapshot(checkout, head_sha=NEW_HEAD))
        assert published.resolved == ()
        assert not [c for c in calls(served, start) if c[1].startswith(f"{R}/pulls/comments/")]
        assert not [c for c in calls(served, start) if c[0] == "PUT"]
        note = (
            "5 earlier finding(s) were not reported again, but this run did not review the "
            "whole PR to a normal end, so none is marked resolved."
        )
        if coverage == "partial":  # partial without a file list: no file is known to be seen
            note = (
                "5 earlier finding(s) were not reported again, but they are in files (or about "
                "parts of the PR) this run did not see, so they stay open."
            )
        assert note in published.notes
        state = publisher().load_prior_state()
        assert {p.node.status for p in state.nodes} == {Status.OPEN, Status.CONSENSUS_READY}

    def test_a_crashed_verifier_does_not_stop_resolving(self, served, fake, publisher, checkout):
        """Only the reviewers' ends matter: they would have repeated a finding that still stands."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        report = make_report((), head_sha=NEW_HEAD)
        verifier = AgentReport(
            name="verifier", role="verifier", model="m", stop_reason=StopReason.ERROR
        )
        report = report.model_copy(update={"agents": (*report.agents, verifier)})
        published = publisher().publish(report, make_snapshot(checkout, head_sha=NEW_HEAD))
        assert set(published.resolved) == {f"review-{i}" for i in range(1, 6)}

    def test_drive_by_commands_are_counted_in_the_notes(self, served, fake, publisher, checkout):
        """A /dismiss from an account without write access is ignored, and the summary says so."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        first_comment = fake.review_comments[0]["id"]
        for login in ("mallory", "trudy"):
            fake.add_review_comment(
                "/dismiss", login=login, association="CONTRIBUTOR", in_reply_to=first_comment
            )
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        note = (
            "Ignored 2 /confirm or /dismiss: 2 by an account that has no write access "
            "(`mallory`, `trudy`)."
        )
        assert note in published.notes
        assert note in fake.issue_comments[0]["body"]

    def test_same_head_never_resolves_a_finding_the_model_did_not_repeat(
        self, served, fake, publisher, checkout
    ):
        """Without a new commit nothing can have been fixed: no resolve edits."""
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        published = publisher().publish(make_report(nodes[1:]), make_snapshot(checkout))
        assert published.resolved == ()
        assert not any(m in ("PUT",) for m, _ in calls(served))

    def test_changed_verdict_posts_a_review_without_comments(
        self, served, fake, publisher, checkout
    ):
        """Nothing new but a different verdict: one review carries the new event."""
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        published = publisher().publish(make_report(nodes, verdict="hold"), make_snapshot(checkout))
        last = bodies(served, "POST", "/reviews")[-1]
        assert (last["event"], last["comments"], published.event) == ("COMMENT", [], "COMMENT")

    def test_forged_marker_by_another_user_is_ignored(self, served, fake, publisher, checkout):
        """A marker planted by someone else neither suppresses nor dismisses a finding."""
        nodes = every_kind()
        forged = nodes[0].model_copy(update={"status": Status.DISMISSED})
        fake.add_review_comment(node_marker(forged), login="mallory", line=3)
        published = publisher().publish(make_report(nodes), make_snapshot(checkout))
        assert "review-1" in {c.node_id for c in published.comments}
        assert "Ignored 1 reviewbot marker(s) in comments by other accounts." in published.notes

    def test_marker_by_another_workflow_as_the_same_account_is_ignored(
        self, served, fake, publisher, checkout
    ):
        """Posted as github-actions[bot] but without reviewbot's seal: no suppression, no dismissal."""
        nodes = every_kind()
        forged = nodes[0].model_copy(update={"status": Status.DISMISSED})
        fake.add_review_comment(node_marker(forged), login=BOT, line=3)
        published = publisher().publish(make_report(nodes), make_snapshot(checkout))
        assert "review-1" in {c.node_id for c in published.comments}
        assert any(
            n.startswith("Ignored 1 reviewbot marker(s) in comments without")
            for n in published.notes
        )

    def test_resolution_edits_are_sealed_to_their_comment(self, served, fake, publisher, checkout):
        """A finding marked resolved is re-sealed in place, so the next run believes the resolution."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        publisher().publish(
            make_report((), head_sha=NEW_HEAD), make_snapshot(checkout, head_sha=NEW_HEAD)
        )
        edited = fake.review_comments[0]
        assert f'"at":"inline:{edited["id"]}"' in edited["body"]
        prior = publisher().load_prior_state()
        assert prior.by_fingerprint()[every_kind()[0].fingerprint].node.status is Status.RESOLVED

    @pytest.mark.parametrize("room", [10, 200], ids=["at-the-limit", "room-for-some"])
    def test_a_resolution_near_the_limit_cuts_no_marker(
        self, served, fake, publisher, checkout, room
    ):
        """A review body `room` characters short of the limit: banners may not fit, markers must."""
        nodes = every_kind()
        items = "\n".join(f"- item {n.id} {node_marker(n)}" for n in nodes)
        pad = MAX_BODY - room - len(items) - 2
        fake.add_review(seal_body("x" * pad + "\n\n" + items, SEALER), login=BOT)
        publisher().publish(
            make_report((), head_sha=NEW_HEAD), make_snapshot(checkout, head_sha=NEW_HEAD)
        )
        (put,) = bodies(served, "PUT", f"/pulls/{NUMBER}/reviews/{fake.reviews[0]['id']}")
        body = put["body"]
        assert len(body) <= MAX_BODY + SEAL_ROOM
        assert body.count("<!-- reviewbot:seal") == 1
        assert body.count("<!--") == body.count("-->")
        prior = publisher().load_prior_state()
        statuses = {p.node.id: p.node.status for p in prior.nodes}
        assert statuses == {n.id: Status.RESOLVED for n in nodes}

    def test_a_comment_too_long_to_edit_is_resolved_in_the_summary(
        self, served, fake, publisher, checkout
    ):
        """Its findings are resolved in the report and the summary, and stay so on later runs."""
        nodes = every_kind()
        long = too_long_to_edit(fake, nodes)
        report = make_report((), head_sha=NEW_HEAD)
        published = publisher().publish(report, make_snapshot(checkout, head_sha=NEW_HEAD))
        assert bodies(served, "PUT", f"/pulls/{NUMBER}/reviews/{long['id']}") == []
        assert set(published.resolved) == {n.id for n in nodes}
        assert any(f"Comment {long['id']} is too long to edit" in n for n in published.notes)
        assert "Resolved since the last review" in fake.issue_comments[0]["body"]
        for _ in range(2):  # a re-fold of the head (its report holds them, resolved), twice
            prior = publisher().load_prior_state()
            refolded = prior.review_nodes(NEW_HEAD)
            assert {n.status for n in refolded} == {Status.RESOLVED}
            assert prior.posted() == frozenset()  # found again, a finding is posted again
            again = make_report(refolded, head_sha=NEW_HEAD)
            publisher().publish(again, make_snapshot(checkout, head_sha=NEW_HEAD))

    def test_summary_remembers_verdict_and_axes_for_the_next_run(
        self, served, fake, publisher, checkout
    ):
        """The next run (or a check_suite re-fold) reads the verdict and axes back."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        prior = publisher().load_prior_state()
        marker = prior.summary.marker
        assert (marker.head_sha, marker.verdict) == (HEAD, "block")
        assert [a.name for a in prior.axes(HEAD)] == ["review", "ci"]
        assert prior.axes(NEW_HEAD) == ()  # another head's review says nothing about this one

    def test_stale_pending_review_is_deleted_first(self, served, fake, publisher, checkout):
        """A crashed run's PENDING review would block every new review: it is removed."""
        stale = fake.add_review("", login=BOT, state="PENDING")
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert calls(served)[3] == ("DELETE", f"{R}/pulls/{NUMBER}/reviews/{stale['id']}")

    def test_human_dismiss_reply_is_a_decision(self, served, fake, publisher, checkout):
        """A collaborator's `/dismiss` reply comes back as a decision applied by fingerprint."""
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        first_comment = fake.review_comments[0]["id"]
        fake.add_review_comment(
            "/dismiss intended", login="carol", association="OWNER", in_reply_to=first_comment
        )
        prior = publisher().load_prior_state()
        (after,) = apply_decisions([nodes[0]], prior)
        assert (after.status, prior.decisions[0].transition.by) == (Status.DISMISSED, "human:carol")

    def test_prior_reads_follow_pagination(self, served, fake, publisher, checkout):
        """Every page of a listing is read (Link: rel="next")."""
        for i in range(201):  # three pages of GitHub's largest, 100
            fake.add_issue_comment(f"comment {i}", login="someone")
        publisher().load_prior_state()
        pages = [c for c in calls(served) if c[1].endswith(f"/issues/{NUMBER}/comments")]
        assert len(pages) == 3


# src/app.py's first hunk as GitHub has it: it ends at line 6, so lines 7–8 are outside.
GITHUB_PATCH = APP_PATCH.replace("@@ -1,5 +1,8 @@", "@@ -1,3 +1,6 @@").replace(
    " x7 = 7\n x8 = 8\n", ""
)


class TestFallbacks:
    def test_422_bisects_with_pending_reviews_and_loses_nothing(
        self, served, fake, publisher, checkout
    ):
        """A refused comment is found by pending-review probes, then listed in the body."""
        fake.pull.files[0].patch = GITHUB_PATCH  # GitHub's diff disagrees about review-2's lines
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        review_path = f"{R}/pulls/{NUMBER}/reviews"
        writes = [c for c in calls(served) if c[0] != "GET"]
        probe_id = writes[2][1].rsplit("/", 1)[1]
        assert writes == [
            ("POST", review_path),  # the review: 422
            ("POST", review_path),  # probe [review-1]: accepted…
            ("DELETE", f"{review_path}/{probe_id}"),  # …and deleted
            ("POST", review_path),  # probe [review-2]: 422
            ("POST", review_path),  # the review without it
            ("POST", f"{R}/issues/{NUMBER}/comments"),
            ("POST", f"{R}/check-runs"),
        ]
        posts = bodies(served, "POST", "/reviews")
        assert ["event" in p for p in posts] == [True, False, False, True]
        final = posts[-1]
        assert [c["line"] for c in final["comments"]] == [4]
        assert "Name the constant" in final["body"]
        assert "GitHub refused the inline comment" in final["body"]
        assert published.in_body[-1] == "review-2"
        assert [c.node_id for c in published.comments] == ["review-1"]
        assert not [r for r in fake.reviews if r["state"] == "PENDING"]

    def test_refused_approval_falls_back_to_comment_with_a_note(
        self, served, fake, publisher, checkout
    ):
        """GitHub Actions may not approve: the review is posted as COMMENT and says so."""
        fake.github.approve_allowed = False  # GITHUB_TOKEN's default
        published = publisher().publish(make_report((), verdict="ship"), make_snapshot(checkout))
        events = [p["event"] for p in bodies(served, "POST", "/reviews")]
        assert events == ["APPROVE", "COMMENT"]
        assert published.event == "COMMENT"
        assert any("not permitted to approve" in note for note in published.notes)
        assert "not permitted to approve" in bodies(served, "POST", "/reviews")[-1]["body"]

    def test_approve_disabled_in_config_comments(self, served, fake, publisher, checkout):
        """`publish.approve = false` turns Ship into a COMMENT review."""
        publisher(PublishConfig(approve=False)).publish(
            make_report((), verdict="ship"), make_snapshot(checkout)
        )
        assert [p["event"] for p in bodies(served, "POST", "/reviews")] == ["COMMENT"]

    def test_a_ship_with_partial_coverage_never_approves(self, served, fake, publisher, checkout):
        """An approval is a clean pass: a Ship that did not see every file is a COMMENT review."""
        report = make_report((), verdict="ship", partial=True)
        published = publisher().publish(report, make_snapshot(checkout))
        assert [p["event"] for p in bodies(served, "POST", "/reviews")] == ["COMMENT"]
        assert published.event == "COMMENT"

    def test_check_run_forbidden_falls_back_to_commit_status(
        self, served, fake, publisher, checkout
    ):
        """403 on check runs → a `reviewbot` commit status on the head SHA."""
        fake.github.checks_allowed = False
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert calls(served)[-2:] == [("POST", f"{R}/check-runs"), ("POST", f"{R}/statuses/{HEAD}")]
        assert (published.check_run_id, published.commit_status) == (None, True)
        assert fake.statuses[0]["context"] == "reviewbot"
        assert fake.statuses[0]["state"] == "failure"

    @pytest.mark.parametrize(
        ("verdict", "partial", "advisory", "state", "description"),
        [
            (
                "ship",
                False,
                False,
                "success",
                "Ship: no gated axis failed and no finding holds this PR",
            ),
            (
                "ship",
                True,
                True,
                "failure",
                "Ship, not a clean pass (coverage is partial): no gated axis failed and no "
                "finding holds this PR",
            ),
            ("hold", False, False, "failure", "Hold (blocks merge): P0 bug `x` (open P0 → hold)"),
            ("hold", False, True, "success", "Hold (advisory): P0 bug `x` (open P0 → hold)"),
            (
                "hold",
                True,
                True,
                "failure",
                "Hold (blocks merge: coverage is partial): P0 bug `x` (open P0 → hold)",
            ),
            ("block", False, True, "failure", "Block: gated axis `review` failed"),
        ],
        ids=["ship", "ship-partial", "hold", "hold-advisory", "hold-advisory-partial", "block"],
    )
    def test_commit_status_says_which_verdict_it_stands_for(
        self, served, fake, publisher, checkout, verdict, partial, advisory, state, description
    ):
        """Statuses have no neutral: they pass exactly when the check run would, and say why."""
        fake.github.checks_allowed = False
        report = make_report((), verdict=verdict, partial=partial)
        config = PublishConfig(advisory_hold=advisory)
        published = publisher(config=config).publish(report, make_snapshot(checkout))
        (status,) = fake.statuses
        assert (status["state"], status["description"]) == (state, description)
        assert published.commit_status is True
        assert published.check_conclusion == check_conclusion(report, advisory_hold=advisory)

    def test_commit_status_description_fits_and_is_redacted(
        self, served, fake, publisher, checkout
    ):
        """A long reason is cut to GitHub's 140 characters; a secret in it never reaches GitHub."""
        fake.github.checks_allowed = False
        secret = "s3cr3t-value-123"
        report = make_report((), verdict="hold")
        reason = report.reasons[0].model_copy(update={"text": f"{secret} " + "y" * 300})
        report = report.model_copy(update={"reasons": (reason,)})
        publisher(redactor=Redactor.of([secret])).publish(report, make_snapshot(checkout))
        description = fake.statuses[0]["description"]
        assert len(description) == 140
        assert description.startswith(f"Hold (blocks merge): {MASK} yyy")
        assert description.endswith("…")

    def test_auth_failure_is_a_one_line_auth_error(self, served, fake, publisher):
        """401 from GitHub becomes AuthError, not a PyGithub traceback."""
        fake.github.tokens = frozenset({"ghs_another"})  # GitHub answers "Bad credentials"
        with pytest.raises(AuthError, match=r"^GitHub rejected the token — check GITHUB_TOKEN$"):
            publisher().load_prior_state()

    def test_other_review_refusal_is_a_github_error(self, served, fake, publisher, checkout):
        """A 422 no fallback can cure (here: the comments are fine) ends the run with GitHubAPIError."""
        elsewhere = "d" * 40  # a commit the PR does not contain
        report, snapshot = (
            make_report((), verdict="hold"),
            make_snapshot(checkout, head_sha=elsewhere),
        )
        with pytest.raises(GitHubAPIError, match="The commitOID is not part of the pull request"):
            publisher().publish(report, snapshot)

    def test_a_check_run_refusal_other_than_403_is_not_hidden_by_a_status(
        self, served, fake, publisher, checkout
    ):
        """Only a 403 means "no checks permission": any other refusal is an error, no status."""
        served.fail_next("POST", r"/check-runs$", unprocessable("Invalid request."))
        with pytest.raises(GitHubAPIError):
            publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert fake.statuses == []
        assert calls(served)[-1] == ("POST", f"{R}/check-runs")

    def test_a_review_refusal_other_than_422_is_not_bisected(
        self, served, fake, publisher, checkout
    ):
        """Only a 422 can name a bad comment: a 403 on the review ends the run, no probes."""
        served.fail_next("POST", rf"/pulls/{NUMBER}/reviews$", not_accessible())
        with pytest.raises(AuthError, match="the token needs write access"):
            publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert [c for c in calls(served) if c[0] != "GET"] == [
            ("POST", f"{R}/pulls/{NUMBER}/reviews")
        ]
        assert fake.reviews == []

    def test_a_probe_refused_other_than_422_ends_the_run(self, served, fake, publisher, checkout):
        """A probe refused for another reason (403) says nothing about the comment: not listed."""
        fake.pull.files[0].patch = GITHUB_PATCH  # the review itself is refused with a 422
        served.fail_next(
            "POST",
            rf"/pulls/{NUMBER}/reviews$",
            not_accessible(),
            when=lambda request: "event" not in request.json(),  # the first probe
        )
        with pytest.raises(AuthError, match="the token needs write access"):
            publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        posts = bodies(served, "POST", "/reviews")
        assert ["event" in p for p in posts] == [True, False]
        assert fake.reviews == []


class TestResolvedInTheSummary:
    """A finding whose comment is too long to edit is resolved in the summary (`resolved_here`):
    that posting only, never a later one of the same finding."""

    def resolve_in_the_summary(self, fake, publisher, checkout) -> ReviewNode:
        """Every finding resolved in the summary; the one not anchored to a line returned."""
        nodes = every_kind()
        too_long_to_edit(fake, nodes)
        publisher().publish(
            make_report((), head_sha=NEW_HEAD), make_snapshot(checkout, head_sha=NEW_HEAD)
        )
        found = next(n for n in nodes if n.anchor is None)
        assert postings(fake, found.fingerprint) == 1  # the long body only
        return found

    def push(self, fake, head_sha: str) -> None:
        pull = fake.github.repo(REPO).pulls[NUMBER]
        pull.push(FakePush(head_sha=head_sha, files=pull.files))

    def test_a_rerun_after_the_summary_failed_posts_the_returning_finding_once(
        self, served, fake, publisher, checkout
    ):
        """It comes back on a later head and is posted in that run's review, then the summary's
        PATCH fails (exit 5): the re-run of that head finds the new posting standing."""
        back = self.resolve_in_the_summary(fake, publisher, checkout)
        back = back.model_copy(update={"commit_sha": THIRD})
        self.push(fake, THIRD)
        report = make_report((back,), head_sha=THIRD)
        [summary] = fake.issue_comments
        served.fail_next(
            "PATCH", rf"/issues/comments/{summary['id']}$", Response.json(500, {"message": "boom"})
        )
        with pytest.raises((ReviewbotError, GitHubRefusal)) as failed:
            publisher().publish(report, make_snapshot(checkout, head_sha=THIRD))
        assert "500" in str(failed.value) or "boom" in str(failed.value), failed.value
        assert postings(fake, back.fingerprint) == 2  # posted in the new review

        publisher().publish(report, make_snapshot(checkout, head_sha=THIRD))  # the re-run
        assert postings(fake, back.fingerprint) == 2, "the returning finding was posted twice"

    def test_a_suppressed_return_is_listed_once(self, served, fake, publisher, checkout):
        """It comes back and a learning dismisses it: placement lists it in the body once (not
        raised open, so the summary keeps its entry); later runs read that listing back as
        standing, not as resolved, and do not list it again."""
        found = self.resolve_in_the_summary(fake, publisher, checkout)
        learning = Learning.model_validate(
            {
                "fingerprint": found.fingerprint,
                "kind": found.kind.value,
                "title": found.title,
                "scope": "**",
                "by": "maintainer",
                "at": "2026-12-01T09:30:00Z",
            }
        )
        match = LearnedMatch(
            node_id=found.id,
            fingerprint=found.fingerprint,
            priority=found.priority,
            title=found.title,
            matched_by="fingerprint",
            learning=learning,
        )
        for head in (THIRD, "e" * 40):
            back = found.model_copy(update={"commit_sha": head, "status": Status.DISMISSED})
            report = make_report((back,), head_sha=head).model_copy(
                update={"learnings": LearningsReport(suppressed=(match,))}
            )
            self.push(fake, head)
            publisher().publish(report, make_snapshot(checkout, head_sha=head))
        assert postings(fake, found.fingerprint) == 2, "listed again on the second run"

    def test_the_record_names_each_comment_and_goes_with_it(
        self, served, fake, publisher, checkout
    ):
        """Each entry is the finding at its comment; once the comment is deleted the next
        summary drops it."""
        self.resolve_in_the_summary(fake, publisher, checkout)
        long = fake.reviews[0]  # the long body (the run posted a review of its verdict too)
        marker = publisher().load_prior_state().summary_marker()
        assert marker is not None
        assert {entry.partition("@")[2] for entry in marker.resolved_here} == {
            f"review:{long['id']}"
        }
        fake.github.repo(REPO).reviews[NUMBER].remove(long)
        self.push(fake, THIRD)
        publisher().publish(
            make_report((), head_sha=THIRD), make_snapshot(checkout, head_sha=THIRD)
        )
        marker = publisher().load_prior_state().summary_marker()
        assert marker is not None
        assert marker.resolved_here == ()


class TestResolveBudget:
    def test_edits_past_the_budget_wait_for_the_next_run_and_say_so(
        self, served, fake, publisher, checkout, monkeypatch
    ):
        """Resolutions are capped per run (comments); the rest are noted, then marked on the next run."""
        monkeypatch.setattr(review_resolution, "MAX_RESOLVE_EDITS", 1)
        nodes = every_kind()
        publisher().publish(make_report(nodes), make_snapshot(checkout))
        kept = tuple(n.model_copy(update={"commit_sha": NEW_HEAD}) for n in (nodes[1], nodes[3]))
        report, snapshot = (
            make_report(kept, head_sha=NEW_HEAD),
            make_snapshot(checkout, head_sha=NEW_HEAD),
        )
        start = len(served.snapshot())
        first = publisher().publish(report, snapshot)
        edits = [
            c for c in calls(served, start) if c[0] in {"PATCH", "PUT"} and "/issues/" not in c[1]
        ]
        assert len(edits) == 1
        assert "2 more earlier finding(s) were not reported again, past the 1 comments" in (
            " ".join(first.notes)
        )
        start = len(served.snapshot())
        second = publisher().publish(report, snapshot)
        edits = [
            c for c in calls(served, start) if c[0] in {"PATCH", "PUT"} and "/issues/" not in c[1]
        ]
        assert len(edits) == 1
        assert not any("more earlier finding(s)" in note for note in second.notes)
        statuses = {p.node.id: p.node.status for p in publisher().load_prior_state().nodes}
        assert {statuses[i] for i in ("review-1", "review-3", "review-5")} == {Status.RESOLVED}


class TestCheckConclusion:
    @pytest.mark.parametrize(
        ("verdict", "partial", "advisory", "expected"),
        [
            ("ship", False, False, "success"),
            ("ship", True, False, "failure"),
            ("ship", True, True, "failure"),
            ("hold", False, False, "failure"),
            ("hold", False, True, "neutral"),
            ("hold", True, True, "failure"),
            ("block", False, False, "failure"),
            ("block", False, True, "failure"),
            ("block", True, False, "failure"),
        ],
        ids=[
            "ship",
            "ship-partial",
            "ship-partial-advisory",
            "hold",
            "hold-advisory",
            "hold-partial-advisory",
            "block",
            "block-advisory",
            "block-partial",
        ],
    )
    def test_conclusion_for_verdict(self, verdict, partial, advisory, expected):
        """Only a fully covered Ship succeeds; an advisory Hold is neutral; all else fails."""
        report = make_report((), verdict=verdict, partial=partial)
        assert check_conclusion(report, advisory_hold=advisory) == expected

    def test_unreported_coverage_never_passes(self):
        """A Ship whose coverage was not reported is not a clean pass, advisory or not."""
        report = make_report((), verdict="ship").model_copy(update={"coverage": None})
        for advisory in (False, True):
            assert check_conclusion(report, advisory_hold=advisory) == "failure"

    @pytest.mark.parametrize(
        ("advisory", "conclusion", "title"),
        [
            (False, "failure", "🟡 Hold (blocks merge): P0 bug `x` (open P0 → hold)"),
            (True, "neutral", "🟡 Hold (advisory): P0 bug `x` (open P0 → hold)"),
        ],
        ids=["default", "advisory"],
    )
    def test_hold_check_run(self, served, fake, publisher, checkout, advisory, conclusion, title):
        """A Hold's check run says it is a Hold, whether it blocks, and the deciding reason."""
        config = PublishConfig(advisory_hold=advisory)
        report = make_report((), verdict="hold")
        published = publisher(config=config).publish(report, make_snapshot(checkout))
        (payload,) = bodies(served, "POST", "/check-runs")
        assert (payload["conclusion"], payload["output"]["title"]) == (conclusion, title)
        assert published.check_conclusion == conclusion

    def test_check_run_payload(self, served, fake, publisher, checkout):
        """The check run is named `reviewbot`, completed, on the head SHA, with title and summary."""
        publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        (payload,) = bodies(served, "POST", "/check-runs")
        assert {k: payload[k] for k in ("name", "head_sha", "status", "conclusion")} == {
            "name": "reviewbot",
            "head_sha": HEAD,
            "status": "completed",
            "conclusion": "failure",
        }
        assert payload["output"]["title"] == "⛔ Block: gated axis `review` failed"
        assert "### Axes" in payload["output"]["summary"]
        assert "reviewbot:summary" not in payload["output"]["summary"]


def _could_not_review(report: Report, stop: StopReason | None, coverage: str) -> Report:
    """`report` as a run ends that produced no findings because it could not review."""
    agents = () if stop is None else (report.agents[0].model_copy(update={"stop_reason": stop}),)
    covered: Coverage | None = report.coverage
    if coverage == "none":
        covered = None
    elif coverage == "partial":
        covered = report.coverage.model_copy(update={"partial": True})
    return report.model_copy(update={"agents": agents, "coverage": covered})


class TestReviewRefusedWhole:
    """GitHub answers 422 for a moment right after a push, with no comment at fault."""

    BRIEF_422 = unprocessable("Something went wrong while processing the pull request")

    @pytest.fixture(autouse=True)
    def no_wait(self, monkeypatch):
        waits: list[float] = []
        monkeypatch.setattr(review_write_module.time, "sleep", waits.append)
        return waits

    def test_a_422_no_comment_explains_is_retried_once(
        self, served, fake, publisher, checkout, no_wait
    ):
        """Bisection refuses nothing: one wait, a read-back, and the same review again."""
        served.fail_next("POST", rf"/pulls/{NUMBER}/reviews$", self.BRIEF_422)
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert published.review_id is not None
        assert len(fake.reviews) == 1
        assert no_wait == [review_write_module.RETRY_WAIT]
        posts = bodies(served, "POST", "/reviews")
        assert posts[0] == posts[-1]  # the whole review, unchanged
        reads = [c for c in calls(served) if c == ("GET", f"{R}/pulls/{NUMBER}/reviews")]
        assert len(reads) >= 2  # the prior state's read, and the read-back before the retry

    def test_a_review_stored_despite_the_422_is_not_posted_again(
        self, served, fake, publisher, checkout
    ):
        """The write-once rule: the retry reads back first, finds the review, posts nothing."""
        served.fail_next("POST", rf"/pulls/{NUMBER}/reviews$", Lost(self.BRIEF_422))
        published = publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert len(fake.reviews) == 1
        assert published.review_id == fake.reviews[0]["id"]
        assert [("event" in p) for p in bodies(served, "POST", "/reviews")] == [True, False, False]

    def test_a_second_422_ends_the_run(self, served, fake, publisher, checkout, no_wait):
        """Refused whole twice: the run ends with the refusal (exit 5), nothing half-posted."""
        served.fail_next(
            "POST",
            rf"/pulls/{NUMBER}/reviews$",
            self.BRIEF_422,
            times=2,
            when=lambda request: "event" in request.json(),
        )
        with pytest.raises(GitHubAPIError) as caught:
            publisher().publish(make_report(every_kind()), make_snapshot(checkout))
        assert caught.value.exit_code == 5
        assert fake.reviews == []
        assert no_wait == [review_write_module.RETRY_WAIT]
