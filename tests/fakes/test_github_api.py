"""The fake GitHub, driven by PyGithub over loopback: shapes, state, GitHub's refusals, faults."""

from __future__ import annotations

import pytest
from github import Auth, BadCredentialsException, Github, GithubException, UnknownObjectException

from tests.fakes.github_api import (
    FakeFile,
    FakeGitHub,
    FakePush,
    bad_gateway,
    parse_hunks,
    secondary_rate_limit,
    unprocessable,
)
from tests.fakes.server import LoopbackServer

REPO = "octo/app"
# Hunk 1: RIGHT 1-5, LEFT 1-4 (old line 2 deleted); hunk 2: RIGHT 11-13, LEFT 10-11.
PATCH = "\n".join(
    [
        "@@ -1,4 +1,5 @@",
        " import os",
        "-import sys",
        "+import json",
        "+import re",
        " ",
        " def main():",
        "@@ -10,2 +11,3 @@ def main():",
        "     x = 1",
        "+    y = 2",
        "     return x",
    ]
)


def client(served, **kwargs) -> Github:
    """PyGithub against the fake, with its write throttling and retries off (tests never wait)."""
    # lazy: `get_repo` makes no request (reviewbot never fetches the repository object).
    options = {"seconds_between_requests": 0, "seconds_between_writes": 0, "retry": None}
    options["lazy"] = True
    return Github(base_url=served.url, auth=Auth.Token("t"), **{**options, **kwargs})


@pytest.fixture
def fake():
    """The fake with one PR (#1) of two files, one of them without a patch."""
    github = FakeGitHub()
    github.add_pull(
        REPO,
        title="Add parsing",
        body="Adds the parser.",
        author="alice",
        files=[
            FakeFile(filename="src/app.py", patch=PATCH),
            FakeFile(filename="big.json", status="added", patch=None),
        ],
        commits=["a" * 40, "b" * 40],
        head_sha="b" * 40,
    )
    return github


@pytest.fixture
def served(fake):
    """The fake on loopback."""
    with LoopbackServer(fake) as server:
        yield server


@pytest.fixture
def pull(served):
    return client(served).get_repo(REPO).get_pull(1)


class TestHunks:
    def test_commentable_lines_per_side(self):
        """RIGHT: added and context lines; LEFT: deleted and context lines; per hunk."""
        hunks, positions = parse_hunks(PATCH)
        assert [(sorted(h.left), sorted(h.right)) for h in hunks] == [
            ([1, 2, 3, 4], [1, 2, 3, 4, 5]),
            ([10, 11], [11, 12, 13]),
        ]
        assert positions == 10


class TestPullRequests:
    def test_pull_has_the_real_shape(self, served, pull, fake):
        """PyGithub reads title, body, author, SHAs, refs and counts from the fake PR."""
        assert (pull.number, pull.title, pull.body, pull.user.login) == (
            1,
            "Add parsing",
            "Adds the parser.",
            "alice",
        )
        assert (pull.head.sha, pull.base.ref, pull.head.ref) == ("b" * 40, "main", "feature")
        assert (pull.changed_files, pull.additions, pull.deletions, pull.commits) == (2, 3, 1, 2)
        assert pull.base.repo.full_name == REPO
        assert pull.head.repo.full_name == REPO
        assert pull.draft is False

    def test_fork_pr_has_the_fork_as_head_repository(self, served, fake):
        """A PR from a fork names the fork as head repository."""
        fake.add_pull(REPO, number=5, head_repo="mallory/app")
        pull = client(served).get_repo(REPO).get_pull(5)
        assert (pull.head.repo.full_name, pull.base.repo.full_name) == ("mallory/app", REPO)

    def test_unknown_pr_is_404(self, served):
        """A PR that does not exist is UnknownObjectException in PyGithub."""
        with pytest.raises(UnknownObjectException):
            _ = client(served).get_repo(REPO).get_pull(99).title

    def test_files_without_patch_come_back_without_patch(self, pull):
        """A file whose diff GitHub omitted has no `patch`."""
        files = {f.filename: f.patch for f in pull.get_files()}
        assert files == {"src/app.py": PATCH, "big.json": None}

    def test_commits(self, pull):
        """The PR's commits are listed oldest first."""
        assert [c.sha for c in pull.get_commits()] == ["a" * 40, "b" * 40]


class TestPagination:
    @pytest.mark.parametrize(
        ("files", "per_page", "pages"),
        [(250, 100, 3), (30, 30, 1), (31, 30, 2)],
        ids=["250-by-100", "one-page", "one-over"],
    )
    def test_files_are_paginated_with_link_headers(self, served, files, per_page, pages, fake):
        """PyGithub follows Link headers; the number of page requests is the ceiling."""
        fake.add_pull(
            REPO,
            number=7,
            files=[
                FakeFile(filename=f"f{i}.py", patch="@@ -1 +1 @@\n-a\n+b") for i in range(files)
            ],
        )
        names = [
            f.filename
            for f in client(served, per_page=per_page).get_repo(REPO).get_pull(7).get_files()
        ]
        assert names == [f"f{i}.py" for i in range(files)]
        assert served.count("GET", r"/pulls/7/files$") == pages

    def test_listing_stops_at_3000_files(self, served, fake):
        """GitHub lists at most 3,000 files of a PR; the rest are silently absent."""
        fake.add_pull(REPO, number=8, files=[FakeFile(filename=f"f{i}") for i in range(3_005)])
        files = client(served, per_page=100).get_repo(REPO).get_pull(8).get_files()
        assert files.totalCount == 3_000
        assert len(list(files)) == 3_000


class TestContents:
    def test_config_at_a_ref(self, served, fake):
        """The .reviewbot.toml of the base branch is read at that ref (by branch or SHA)."""
        fake.set_content(REPO, "main", ".reviewbot.toml", 'model = "m"\n')
        repo = client(served).get_repo(REPO)
        base_sha = repo.get_pull(1).base.sha
        assert repo.get_contents(".reviewbot.toml", ref="main").decoded_content == b'model = "m"\n'
        assert (
            repo.get_contents(".reviewbot.toml", ref=base_sha).decoded_content == b'model = "m"\n'
        )

    def test_missing_file_is_404(self, served):
        """A file absent at the ref is UnknownObjectException (no config: use defaults)."""
        with pytest.raises(UnknownObjectException):
            client(served).get_repo(REPO).get_contents(".reviewbot.toml", ref="main")

    def test_head_only_file_is_not_seen_at_base(self, served, fake):
        """A file the PR head adds is not visible at the base ref."""
        fake.set_content(REPO, "b" * 40, ".reviewbot.toml", "x = 1\n")
        with pytest.raises(UnknownObjectException):
            client(served).get_repo(REPO).get_contents(".reviewbot.toml", ref="main")


class TestIssueComments:
    def test_create_list_edit(self, served, pull):
        """A summary comment is created once and edited in place."""
        comment = pull.create_issue_comment("summary v1")
        comment.edit("summary v2")
        assert [(c.body, c.user.login) for c in pull.get_issue_comments()] == [
            ("summary v2", "github-actions[bot]")
        ]
        assert served.writes == 2

    def test_someone_elses_comment_cannot_be_edited(self, served, pull, fake):
        """Editing a human's comment is refused with 403."""
        theirs = fake.add_issue_comment(REPO, 1, "/review", author="alice")
        with pytest.raises(GithubException) as caught:
            pull.get_issue_comment(theirs["id"]).edit("hijacked")
        assert caught.value.status == 403

    def test_body_over_the_limit_is_refused(self, pull):
        """A body over 65,536 characters is a 422 with GitHub's message."""
        with pytest.raises(GithubException) as caught:
            pull.create_issue_comment("x" * 65_537)
        assert caught.value.status == 422
        assert caught.value.data["errors"] == ["Body is too long (maximum is 65536 characters)"]


def comment(path="src/app.py", line=12, **extra):
    return {"path": path, "body": "finding", "line": line, **extra}


class TestReviews:
    @pytest.mark.parametrize(
        "comments",
        [
            [comment(line=12)],
            [comment(line=5), comment(line=13)],
            [comment(line=2, side="LEFT")],
            [comment(line=3, start_line=1)],
            [comment(line=13, start_line=11, side="RIGHT", start_side="RIGHT")],
            [{"path": "src/app.py", "body": "old style", "position": 3}],
        ],
        ids=["added", "context", "deleted-left", "range", "range-hunk-2", "position"],
    )
    def test_valid_review_is_stored_with_its_comments(self, served, pull, comments):
        """A review whose comments all sit on diff lines is stored; its comments are listed."""
        review = pull.create_review(body="summary", event="COMMENT", comments=comments)
        assert review.state == "COMMENTED"
        listed = list(pull.get_review_comments())
        assert [(c.path, c.body) for c in listed] == [(c["path"], c["body"]) for c in comments]
        assert [c.id for c in pull.get_single_review_comments(review.id)] == [c.id for c in listed]

    @pytest.mark.parametrize(
        ("bad", "error"),
        [
            (comment(line=8), "Line could not be resolved"),
            (comment(line=2, side="RIGHT", start_line=1, start_side="LEFT"), None),
            (comment(line=12, start_line=3), "Line could not be resolved"),
            (comment(line=5, side="LEFT"), "Line could not be resolved"),
            (comment(path="nope.py"), "Path could not be resolved"),
            (
                comment(line=3, start_line=3),
                "pull_request_review_thread.start_line must precede the end line",
            ),
            ({"path": "src/app.py", "body": "x", "position": 11}, "Line could not be resolved"),
        ],
        ids=[
            "outside-hunks",
            "mixed-sides-ok",
            "range-across-hunks",
            "left-not-deleted",
            "unknown-path",
            "empty-range",
            "position-past-end",
        ],
    )
    def test_one_bad_comment_fails_the_whole_review(self, served, pull, bad, error):
        """GitHub's all-or-nothing rule: one unresolvable comment → 422 and nothing stored."""
        comments = [comment(line=12), bad]
        if error is None:
            pull.create_review(body="s", event="COMMENT", comments=comments)
            assert len(list(pull.get_review_comments())) == 2
            return
        with pytest.raises(GithubException) as caught:
            pull.create_review(body="s", event="COMMENT", comments=comments)
        assert caught.value.status == 422
        assert caught.value.data["message"] == "Unprocessable Entity"
        assert caught.value.data["errors"] == [error]
        assert pull.get_reviews().totalCount == 0
        assert list(pull.get_review_comments()) == []

    def test_several_errors_make_one_sentence(self, pull):
        """Different problems in one review come back joined in one sentence, naming no comment."""
        with pytest.raises(GithubException) as caught:
            pull.create_review(
                body="s",
                event="COMMENT",
                comments=[comment(path="x.py"), comment(line=99), comment(line=98)],
            )
        assert caught.value.data["errors"] == [
            "Path could not be resolved and Line could not be resolved"
        ]

    def test_pending_review_is_hidden_then_deleted(self, served, pull):
        """A review without event is PENDING, its comments unlisted; deleting it removes them."""
        review = pull.create_review(body="draft", comments=[comment()])
        assert review.state == "PENDING"
        assert list(pull.get_review_comments()) == []
        with pytest.raises(GithubException) as caught:
            pull.create_review(body="second draft")
        assert caught.value.data["errors"] == [
            "User can only have one pending review per pull request"
        ]
        review.delete()
        assert pull.get_reviews().totalCount == 0
        assert served.count("DELETE", r"/reviews/\d+$") == 1

    def test_someone_elses_pending_review_is_not_listed(self, served, pull, fake):
        """A pending review is its author's alone: listed to them, invisible to the token."""
        fake.add_review(REPO, 1, "their draft", author="carol", state="PENDING")
        fake.add_review(REPO, 1, "", author="github-actions[bot]", state="PENDING")
        fake.add_review(REPO, 1, "looks fine", author="carol", state="APPROVED")
        listed = [(r.user.login, r.state) for r in pull.get_reviews()]
        assert listed == [("github-actions[bot]", "PENDING"), ("carol", "APPROVED")]

    def test_a_persons_inline_comment_is_filed_under_a_review_of_theirs(self, pull, fake):
        """GitHub stores a lone inline comment in a one-comment COMMENTED review of its author."""
        seeded = fake.add_review_comment(REPO, 1, "why?", author="carol", path="src/app.py", line=3)
        (review,) = pull.get_reviews()
        assert (review.user.login, review.state, review.body) == ("carol", "COMMENTED", "")
        (listed,) = pull.get_review_comments()
        assert (listed.id, listed.user.login, listed.line) == (seeded["id"], "carol", 3)
        assert listed.pull_request_review_id == review.id

    def test_submitted_review_cannot_be_deleted(self, pull):
        """Only a pending review can be deleted."""
        review = pull.create_review(body="done", event="COMMENT")
        with pytest.raises(GithubException) as caught:
            review.delete()
        assert caught.value.status == 422

    @pytest.mark.parametrize(
        ("event", "state"),
        [
            ("APPROVE", "APPROVED"),
            ("REQUEST_CHANGES", "CHANGES_REQUESTED"),
            ("COMMENT", "COMMENTED"),
        ],
        ids=["approve", "request-changes", "comment"],
    )
    def test_review_events(self, pull, event, state):
        """Each review event lands in its state."""
        assert pull.create_review(body="b", event=event).state == state

    @pytest.mark.parametrize(
        ("setup", "event", "body", "error"),
        [
            (
                {"approve_allowed": False},
                "APPROVE",
                "ok",
                "GitHub Actions is not permitted to approve pull requests.",
            ),
            ({"login": "alice"}, "APPROVE", "ok", "Can not approve your own pull request"),
            (
                {},
                "REQUEST_CHANGES",
                "",
                "You need to leave a comment indicating the requested changes.",
            ),
        ],
        ids=["actions-may-not-approve", "own-pr", "request-changes-without-body"],
    )
    def test_refused_review_events(self, served, pull, setup, event, body, error, fake):
        """GitHub's refusals for approving and for REQUEST_CHANGES without a body."""
        for key, value in setup.items():
            setattr(fake, key, value)
        with pytest.raises(GithubException) as caught:
            pull.create_review(body=body, event=event)
        assert (caught.value.status, caught.value.data["errors"]) == (422, [error])


class TestEdits:
    """The publisher's resolve edits: an inline comment (PATCH) and a review body (PUT)."""

    def test_review_body_and_inline_comment_are_edited(self, served, pull, fake):
        """The author's edits replace the stored bodies, one request each."""
        review = pull.create_review(body="summary", event="COMMENT", comments=[comment()])
        (inline,) = pull.get_review_comments()
        review.edit("summary, resolved")
        inline.edit("finding, resolved")
        stored = fake.repo(REPO)
        assert [r["body"] for r in stored.reviews[1]] == ["summary, resolved"]
        assert [c["body"] for c in stored.review_comments[1]] == ["finding, resolved"]
        assert (review.body, inline.body) == ("summary, resolved", "finding, resolved")
        assert served.count("PUT", rf"^/repos/{REPO}/pulls/1/reviews/{review.id}$") == 1
        assert served.count("PATCH", rf"^/repos/{REPO}/pulls/comments/{inline.id}$") == 1

    @pytest.mark.parametrize(
        ("who", "body", "status"),
        [("someone-else", "resolved", 403), ("github-actions[bot]", "", 422)],
        ids=["not-the-author", "empty-body"],
    )
    def test_refused_edits_change_nothing(self, pull, fake, who, body, status):
        """Only the author may edit, and never to an empty body; a refusal stores nothing."""
        review = pull.create_review(body="summary", event="COMMENT", comments=[comment()])
        (inline,) = pull.get_review_comments()
        fake.login = who
        codes = []
        for item in (review, inline):
            with pytest.raises(GithubException) as caught:
                item.edit(body)
            codes.append(caught.value.status)
        stored = fake.repo(REPO)
        assert codes == [status, status]
        assert [r["body"] for r in stored.reviews[1]] == ["summary"]
        assert [c["body"] for c in stored.review_comments[1]] == ["finding"]

    def test_unknown_ids_are_404(self, served, pull):
        """Editing a review or comment that does not exist is 404."""
        requester = client(served).requester
        codes = []
        for verb, path in (("PUT", "/pulls/1/reviews/9"), ("PATCH", "/pulls/comments/9")):
            with pytest.raises(GithubException) as caught:
                requester.requestJsonAndCheck(
                    verb, f"{served.url}/repos/{REPO}{path}", input={"body": "x"}
                )
            codes.append(caught.value.status)
        assert codes == [404, 404]


class TestChecksAndStatuses:
    def test_check_run_create_and_list(self, served, fake):
        """reviewbot's completed check run is created and listed with the other apps' runs."""
        fake.add_check_run(
            REPO, name="tests", head_sha="b" * 40, conclusion="failure", app_slug="ci"
        )
        repo = client(served).get_repo(REPO)
        run = repo.create_check_run(
            name="reviewbot",
            head_sha="b" * 40,
            conclusion="neutral",
            output={"title": "Hold", "summary": "2 findings"},
        )
        runs = {
            r.name: (r.status, r.conclusion, r.app.slug, r.output.summary)
            for r in repo.get_commit("b" * 40).get_check_runs()
        }
        assert runs == {
            "tests": ("completed", "failure", "ci", None),
            "reviewbot": ("completed", "neutral", "github-actions", "2 findings"),
        }
        assert run.status == "completed"

    def test_check_runs_are_forbidden_without_the_checks_permission(self, served, fake):
        """A token without `checks: write` gets 403 on creating and updating a check run."""
        repo = client(served).get_repo(REPO)
        run = repo.create_check_run(name="reviewbot", head_sha="b" * 40, status="in_progress")
        fake.checks_allowed = False
        for write in (
            lambda: repo.create_check_run(name="reviewbot", head_sha="b" * 40),
            lambda: run.edit(conclusion="success"),
        ):
            with pytest.raises(GithubException) as caught:
                write()
            assert caught.value.status == 403
            assert caught.value.data["message"] == "Resource not accessible by integration"
        assert [r.status for r in repo.get_commit("b" * 40).get_check_runs()] == ["in_progress"]

    def test_check_output_limits(self, served):
        """A summary over 65,535 characters or more than 50 annotations is a 422."""
        repo = client(served).get_repo(REPO)
        with pytest.raises(GithubException) as too_long:
            repo.create_check_run(
                name="reviewbot", head_sha="b" * 40, output={"title": "t", "summary": "x" * 65_536}
            )
        annotations = [
            {
                "path": "a",
                "start_line": 1,
                "end_line": 1,
                "annotation_level": "notice",
                "message": "m",
            }
        ] * 51
        with pytest.raises(GithubException) as too_many:
            repo.create_check_run(
                name="reviewbot",
                head_sha="b" * 40,
                output={"title": "t", "summary": "s", "annotations": annotations},
            )
        assert (too_long.value.status, too_many.value.status) == (422, 422)

    def test_annotations_are_appended_by_each_update_and_counted(self, served):
        """Create with 50, update with 30 more: GitHub holds 80, in order, and counts them."""
        repo = client(served).get_repo(REPO)
        run = repo.create_check_run(
            name="reviewbot",
            head_sha="b" * 40,
            conclusion="failure",
            output={"title": "t", "summary": "s", "annotations": _annotations(50)},
        )
        assert run.output.annotations_count == 50
        run.edit(output={"title": "t", "summary": "s", "annotations": _annotations(30, 50)})
        assert run.output.annotations_count == 80
        listed = list(repo.get_check_run(run.id).get_annotations())
        assert [a.message for a in listed] == [f"m{i}" for i in range(80)]
        assert {a.annotation_level for a in listed} == {"warning"}
        assert repo.get_check_run(run.id).output.annotations_count == 80

    def test_an_update_of_more_than_50_is_refused_and_stores_nothing(self, served):
        """51 annotations in one update: 422 with GitHub's words; the run keeps what it had."""
        repo = client(served).get_repo(REPO)
        run = repo.create_check_run(
            name="reviewbot", head_sha="b" * 40, output={"title": "t", "summary": "s"}
        )
        with pytest.raises(GithubException) as refused:
            run.edit(output={"title": "t", "summary": "s", "annotations": _annotations(51)})
        assert refused.value.status == 422
        assert "No more than 50 items are allowed; 51 were supplied." in str(refused.value.data)
        assert repo.get_check_run(run.id).output.annotations_count == 0

    @pytest.mark.parametrize(
        ("change", "output"),
        [
            ({"annotation_level": "error"}, None),
            ({"start_column": 1, "end_column": 4, "end_line": 5}, None),
            ({"title": "x" * 256}, None),
            ({"message": None}, None),
            ({}, {"summary": "s"}),
        ],
        ids=["level", "columns-on-two-lines", "long-title", "no-message", "no-title"],
    )
    def test_annotations_github_refuses(self, served, change, output):
        """A bad level, columns over several lines, a long title, a missing field: 422."""
        repo = client(served).get_repo(REPO)
        run = repo.create_check_run(
            name="reviewbot", head_sha="b" * 40, output={"title": "t", "summary": "s"}
        )
        annotation = {**_annotations(1)[0], **change}
        sent = {"title": "t", "summary": "s", **(output or {}), "annotations": [annotation]}
        if output is not None:
            sent.pop("title")
        with pytest.raises(GithubException) as refused:
            run.edit(output=sent)
        assert refused.value.status == 422
        assert list(repo.get_check_run(run.id).get_annotations()) == []

    def test_statuses(self, served):
        """Commit statuses are created and listed newest first."""
        commit = client(served).get_repo(REPO).get_commit("b" * 40)
        commit.create_status("pending", context="ci/build")
        commit.create_status("success", context="ci/build")
        commit.create_status("failure", context="ci/lint", description="2 errors")
        assert [(s.context, s.state) for s in commit.get_statuses()] == [
            ("ci/lint", "failure"),
            ("ci/build", "success"),
            ("ci/build", "pending"),
        ]

    @pytest.mark.parametrize("conclusion", ["stale", "passed", "Neutral"], ids=str)
    def test_conclusions_github_refuses(self, served, conclusion):
        """`stale` is GitHub's own and anything outside the enum is a 422; nothing is stored."""
        repo = client(served).get_repo(REPO)
        with pytest.raises(GithubException) as refused:
            repo.create_check_run(name="reviewbot", head_sha="b" * 40, conclusion=conclusion)
        assert refused.value.status == 422
        assert "is not one of" in str(refused.value.data)
        assert list(repo.get_commit("b" * 40).get_check_runs()) == []

    def test_action_required_without_details_url_is_accepted(self, served, fake):
        """GitHub only asks that details be at `details_url` ("should"): no 422 without one."""
        repo = client(served).get_repo(REPO)
        repo.create_check_run(name="reviewbot", head_sha="c" * 40, conclusion="action_required")
        assert fake.required_check(REPO, "c" * 40, "reviewbot") == "failing"

    @pytest.mark.parametrize(
        ("conclusions", "statuses", "expected"),
        [
            ((), (), "pending"),
            (("success",), (), "passing"),
            (("neutral",), (), "passing"),
            (("skipped",), (), "passing"),
            (("failure",), (), "failing"),
            (("action_required",), (), "failing"),
            (("cancelled",), (), "failing"),
            (("timed_out",), (), "failing"),
            (("failure", "success"), (), "passing"),
            (("success", "failure"), (), "failing"),
            ((), ("success",), "passing"),
            ((), ("failure",), "failing"),
            ((), ("pending",), "pending"),
            ((), ("success", "failure"), "failing"),
            (("neutral",), ("failure",), "failing"),
            (("success",), ("success",), "passing"),
        ],
        ids=lambda v: "-".join(v) if isinstance(v, tuple) else v,
    )
    def test_required_check(self, served, fake, conclusions, statuses, expected):
        """Branch protection: the latest run of the name and the latest status of the context both pass."""
        repo = client(served).get_repo(REPO)
        sha = "d" * 40
        for conclusion in conclusions:
            repo.create_check_run(name="reviewbot", head_sha=sha, conclusion=conclusion)
        for state in statuses:
            repo.get_commit(sha).create_status(state, context="reviewbot")
        repo.create_check_run(name="other", head_sha=sha, conclusion="failure")
        assert fake.required_check(REPO, sha, "reviewbot") == expected


class TestUsersAndPermissions:
    def test_collaborator_permission(self, served, fake):
        """The permission a test seeds is what the API answers; strangers read a public repo."""
        fake.repo(REPO).permissions["carol"] = "write"
        repo = client(served).get_repo(REPO)
        assert repo.get_collaborator_permission("carol") == "write"
        assert repo.get_collaborator_permission("mallory") == "read"

    def test_user(self, served):
        """/user answers the token's account."""
        assert client(served).get_user().login == "github-actions[bot]"

    def test_user_is_forbidden_for_an_actions_token(self, served, fake):
        """Like GITHUB_TOKEN, a fake without /user answers 403 there."""
        fake.user_endpoint = False
        with pytest.raises(GithubException) as caught:
            _ = client(served).get_user().login
        assert caught.value.status == 403

    def test_bad_token(self, served, fake):
        """A token outside the accepted set is 401 Bad credentials."""
        fake.tokens = frozenset({"good"})
        with pytest.raises(BadCredentialsException):
            _ = client(served).get_repo(REPO).get_pull(1).title


class TestFaultsThroughPyGithub:
    def test_one_shot_502(self, served):
        """A scripted 502 fails one request; the retry that follows succeeds."""
        served.fail_next("GET", r"/pulls/1$", bad_gateway())
        repo = client(served).get_repo(REPO)
        with pytest.raises(GithubException) as caught:
            _ = repo.get_pull(1).title
        assert caught.value.status == 502
        assert repo.get_pull(1).title == "Add parsing"
        assert served.count("GET", r"/pulls/1$") == 2

    def test_secondary_rate_limit_carries_retry_after(self, served, pull):
        """A secondary rate limit is a 403 with Retry-After and GitHub's message."""
        served.fail_next("POST", r"/pulls/1/reviews$", secondary_rate_limit(retry_after=3))
        with pytest.raises(GithubException) as caught:
            pull.create_review(body="s", event="COMMENT")
        assert caught.value.status == 403
        assert caught.value.headers["retry-after"] == "3"
        assert "secondary rate limit" in caught.value.data["message"]
        assert pull.get_reviews().totalCount == 0

    def test_scripted_422(self, served, pull):
        """A scripted 422 is returned as given, whatever the request."""
        served.fail_next("POST", r"/reviews$", unprocessable("Line could not be resolved"))
        with pytest.raises(GithubException) as caught:
            pull.create_review(body="s", event="COMMENT", comments=[comment()])
        assert caught.value.data["errors"] == ["Line could not be resolved"]

    def test_rate_limit_headers(self, served):
        """Every answer carries x-ratelimit headers that count down."""
        gh = client(served)
        _ = gh.get_repo(REPO).get_pull(1).title
        assert gh.rate_limiting[0] == 4_999


def _annotations(count: int, start: int = 0) -> list[dict[str, object]]:
    return [
        {
            "path": "src/app.py",
            "start_line": 2,
            "end_line": 3,
            "annotation_level": "warning",
            "title": f"t{i}",
            "message": f"m{i}",
        }
        for i in range(start, start + count)
    ]


class TestOutdatedComments:
    """After a push, a review comment is listed on its re-mapped line, or outdated (nulls)."""

    OLD = "import os\nimport json\nimport re\n\ndef main():\n"

    def _pushed(self, fake, new_text: str, line: int) -> dict:
        comment = fake.add_review_comment(
            REPO, 1, "finding", author="alice", path="src/app.py", line=line
        )
        pull = fake.repo(REPO).pulls[1]
        fake.set_content(REPO, pull.head_sha, "src/app.py", self.OLD)
        pull.push(FakePush(head_sha="c" * 40, files=pull.files))
        fake.set_content(REPO, "c" * 40, "src/app.py", new_text)
        return comment

    def test_an_unchanged_line_is_followed_to_its_new_number(self, served, pull, fake):
        """A line inserted above: the comment is listed one line lower, its original kept."""
        new = self.OLD.replace("import re", "# parsing\nimport re")
        self._pushed(fake, new, line=3)
        (listed,) = pull.get_review_comments()
        assert (listed.line, listed.original_line, listed.position) == (4, 3, 1)

    def test_a_changed_line_makes_the_comment_outdated(self, served, pull, fake):
        """The commented line changed: `line` and `position` are null, `original_line` stays."""
        self._pushed(fake, self.OLD.replace("import json", "import json5"), line=2)
        (listed,) = pull.get_review_comments()
        assert (listed.line, listed.original_line, listed.position) == (None, 2, None)
        assert fake.repo(REPO).review_comments[1][0]["line"] == 2  # the stored comment is as posted
