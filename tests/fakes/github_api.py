"""A stateful fake of the GitHub REST API, served on loopback for end-to-end tests and benches.

Owns: repositories, pull requests (the real PR object shape, built from the
webhook fixture's `pull_request`), paginated files (Link headers, per_page, the
3,000-file cap, files without `patch`), commits, contents at a ref, issue comments
(list/create/edit), review comments (list/edit, replies in a thread: `POST …/comments/{id}/replies`; people's comments and thread replies seeded
with `add_review_comment` and `add_reply`, filed under a review of their own as GitHub does),
reviews (create with comments, dismiss an approval or a change request with a message, validated against each file's diff the way GitHub does: one
bad comment → 422 for the whole review and nothing stored; one pending review per user;
pending reviews listed to their author only, deletable, a submitted one not; bodies at most
65,536 characters; body edits; earlier runs' reviews seeded with `add_review`), review
comments of a review, check runs (create, get, update, list for a ref; 403 without the
`checks` permission; conclusions validated as GitHub does; annotations: at most 50 a request,
appended by each update, counted in `output.annotations_count`, listed), commit statuses,
collaborator permission and `/user`, and GraphQL's review threads (tests/fakes/github_graphql.py) —
the routes reviewbot calls, no more — and what branch protection would say of a
required check (`required_check`). Plain handler: `FakeGitHub()(request) → response`; the
loopback server (tests/fakes/server.py) records requests and injects faults.

Must not: make any network call, or accept what GitHub would refuse.

    fake = FakeGitHub()
    pr = fake.add_pull("octo/app", files=[FakeFile(filename="a.py", patch=...)])
    with LoopbackServer(fake) as server:
        gh = Github(base_url=server.url, auth=Auth.Token("t"),
                    seconds_between_requests=0, seconds_between_writes=0, retry=None)
        server.fail_next("POST", r"/pulls/\\d+/reviews$", secondary_rate_limit(retry_after=1))
        ...
        assert server.writes == 1
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import itertools
import json
import re
import subprocess
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tests.fakes.github_app import FakeApp
from tests.fakes.github_graphql import serve_graphql
from tests.fakes.server import Request, Response

_TEMPLATE_PATH = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "github-webhooks"
    / "pull_request.opened.payload.json"
)
_TEMPLATE: dict[str, Any] = json.loads(_TEMPLATE_PATH.read_text(encoding="utf-8"))
_DOCS = "https://docs.github.com/rest"
_EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
_RESET_AT = 4_102_444_800  # a fixed x-ratelimit-reset (2100-01-01) keeps answers deterministic

FILES_CAP = 3_000
BODY_MAX = 65_536
CHECK_TEXT_MAX = 65_535
# What an integrator may set (GitHub alone sets `stale`), and what satisfies a required check.
SETTABLE_CONCLUSIONS = frozenset(
    {"action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"}
)
PASSING_CONCLUSIONS = frozenset({"success", "neutral", "skipped"})
RequiredCheck = Literal["passing", "failing", "pending"]
ANNOTATIONS_PER_REQUEST = 50
ANNOTATION_LEVELS = frozenset({"notice", "warning", "failure"})
ANNOTATION_TITLE_MAX = 255  # characters
ANNOTATION_TEXT_MAX = 64 * 1024  # bytes: "The maximum size is 64 KB" (message, raw_details)

REVIEW_STATES = {
    "APPROVE": "APPROVED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
    "COMMENT": "COMMENTED",
}


def sha_of(text: str) -> str:
    """A deterministic 40-hex SHA for a name (commits, blobs)."""
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


# --- fault responses (for LoopbackServer.fail_next) ------------------------------------


def _git_show(clone_url: str, ref: str, path: str) -> str | None:
    """A file of the real repository at `ref`, or None (no such commit or file)."""
    folder = urllib.parse.unquote(urllib.parse.urlsplit(clone_url).path)
    shown = subprocess.run(
        ["git", "-C", folder, "show", f"{ref}:{path}"], capture_output=True, check=False
    )
    return shown.stdout.decode("utf-8", "replace") if shown.returncode == 0 else None


def bad_gateway() -> Response:
    return Response.json(502, {"message": "Server Error"})


def secondary_rate_limit(retry_after: int = 60) -> Response:
    return Response.json(
        403,
        {
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
            "before you try again.",
            "documentation_url": f"{_DOCS}/overview/rate-limits-for-the-rest-api",
            "status": "403",
        },
        {"Retry-After": str(retry_after)},
    )


def unprocessable(*errors: Any) -> Response:
    return _unprocessable(list(errors))


def _unprocessable(errors: list[Any]) -> Response:
    return Response.json(
        422,
        {
            "message": "Unprocessable Entity",
            "errors": errors,
            "documentation_url": _DOCS,
            "status": "422",
        },
    )


def _invalid(text: str) -> Response:
    """GitHub's answer to a request its JSON schema refuses (check runs, annotations)."""
    return Response.json(
        422, {"message": f"Invalid request.\n\n{text}", "documentation_url": _DOCS, "status": "422"}
    )


def _not_accessible() -> Response:
    """GitHub's 403 for what the token's permissions do not cover (GITHUB_TOKEN, an app)."""
    return Response.json(
        403,
        {
            "message": "Resource not accessible by integration",
            "documentation_url": _DOCS,
            "status": "403",
        },
    )


def _not_found() -> Response:
    return Response.json(404, {"message": "Not Found", "documentation_url": _DOCS, "status": "404"})


# --- diffs -------------------------------------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True, slots=True)
class Hunk:
    left: frozenset[int]  # deleted and context lines (old numbering)
    right: frozenset[int]  # added and context lines (new numbering)


def parse_hunks(patch: str) -> tuple[tuple[Hunk, ...], int]:
    """The hunks of a file patch and its number of diff positions."""
    hunks: list[Hunk] = []
    left: set[int] = set()
    right: set[int] = set()
    old = new = positions = 0
    started = False
    for line in patch.splitlines():
        header = _HUNK.match(line)
        if header:
            if started:
                hunks.append(Hunk(left=frozenset(left), right=frozenset(right)))
                positions += 1  # a later hunk header is itself a position
            left, right = set(), set()
            old, new = int(header.group(1)), int(header.group(2))
            started = True
            continue
        if not started or line.startswith("\\"):
            continue
        positions += 1
        if line.startswith("+"):
            right.add(new)
            new += 1
        elif line.startswith("-"):
            left.add(old)
            old += 1
        else:
            left.add(old)
            right.add(new)
            old += 1
            new += 1
    if started:
        hunks.append(Hunk(left=frozenset(left), right=frozenset(right)))
    return tuple(hunks), positions


# --- state -------------------------------------------------------------------------------


@dataclass(kw_only=True)
class FakeFile:
    filename: str
    status: str = "modified"  # added | removed | modified | renamed | copied | changed
    patch: str | None = None  # None: GitHub omitted it (diff too large, binary)
    previous_filename: str | None = None

    def counts(self) -> tuple[int, int]:
        lines = (self.patch or "").splitlines()
        adds = sum(1 for ln in lines if ln.startswith("+"))
        dels = sum(1 for ln in lines if ln.startswith("-"))
        return adds, dels


@dataclass(kw_only=True)
class FakePull:
    number: int
    title: str = "Add a feature"
    body: str | None = "Please review."
    author: str = "octocat"
    head_ref: str = "feature"
    base_ref: str = "main"
    head_sha: str
    base_sha: str
    head_repo: str | None = None  # "owner/name" of a fork; None: the same repository
    draft: bool = False
    state: str = "open"
    files: list[FakeFile] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)  # SHAs, oldest first
    # Earlier heads (head SHA → its files and commits): still answered by SHA (compare,
    # a review's commit_id), never by the PR's own listings, which follow the head.
    earlier: dict[str, tuple[list[FakeFile], list[str]]] = field(default_factory=dict)
    push_on_listing: FakePush | None = None  # the author pushes as the files are listed

    def file(self, path: str, commit: str | None = None) -> FakeFile | None:
        return next((f for f in self.files_at(commit) or [] if f.filename == path), None)

    def files_at(self, commit: str | None) -> list[FakeFile] | None:
        """The files of the PR at `commit` (its head when None); None for a commit not in it."""
        if commit is None or commit == self.head_sha:
            return self.files
        return self.earlier[commit][0] if commit in self.earlier else None

    def commits_at(self, commit: str) -> list[str] | None:
        if commit == self.head_sha:
            return self.commits
        return self.earlier[commit][1] if commit in self.earlier else None

    def push(self, change: FakePush) -> None:
        """A push to the PR's branch: the head moves, and the old head stays known by SHA."""
        self.earlier[self.head_sha] = (self.files, self.commits)
        self.head_sha, self.files = change.head_sha, change.files
        self.commits = change.commits or [*self.commits, change.head_sha]


@dataclass(frozen=True, kw_only=True)
class FakePush:
    head_sha: str
    files: list[FakeFile]
    commits: list[str] | None = None  # default: the old commits plus the new head


@dataclass(kw_only=True)
class FakeRepo:
    full_name: str
    id: int
    default_branch: str = "main"
    private: bool = False
    branches: dict[str, str] = field(default_factory=dict)  # name → SHA
    pulls: dict[int, FakePull] = field(default_factory=dict)
    contents: dict[tuple[str, str], str] = field(default_factory=dict)  # (ref or SHA, path) → text
    issue_comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    review_comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    resolved_threads: set[int] = field(default_factory=set)  # root comment ids (github_graphql)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    annotations: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # check run id →
    statuses: list[dict[str, Any]] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)  # login → admin|write|read|none
    trees: dict[str, list[str]] = field(default_factory=dict)  # ref or SHA → file paths (git/trees)
    # Serve every file of `clone_url`'s real repository through the contents API, as GitHub
    # does (off by default: most tests seed exactly the files reviewbot may read).
    contents_from_git: bool = False
    clone_url: str | None = None  # e.g. file:///… of a real repository the test built

    def resolve(self, ref: str) -> str | None:
        if re.fullmatch(r"[0-9a-f]{40}", ref):
            return ref
        return self.branches.get(ref.removeprefix("refs/heads/"))


_Route = Callable[..., Response]


class FakeGitHub:
    """The GitHub REST API as far as reviewbot uses it, with state a test can seed and read."""

    def __init__(
        self,
        *,
        login: str = "github-actions[bot]",
        user_type: str = "Bot",
        tokens: frozenset[str] | None = None,
        approve_allowed: bool = True,
        user_endpoint: bool = True,
        checks_allowed: bool = True,
        dismiss_allowed: bool = True,
        app_slug: str = "github-actions",
        app: FakeApp | None = None,
        graphql_allowed: bool = True,
    ) -> None:
        self.login = login
        self.graphql_allowed = graphql_allowed  # False: thread mutations answer FORBIDDEN
        # Tokens that may only read, as a fork PR's GITHUB_TOKEN: every REST write answers
        # 403, every GraphQL mutation FORBIDDEN.
        self.read_only_tokens: frozenset[str] = frozenset()
        self.reading_only = False  # the request being served is made with such a token
        self.thread_changes: list[tuple[str, int]] = []  # (mutation, root comment id), in order
        self.user_type = user_type
        self.tokens = tokens  # None: any token is accepted
        self.approve_allowed = approve_allowed  # False: like GITHUB_TOKEN by default
        self.user_endpoint = user_endpoint  # False: /user answers 403, as for GITHUB_TOKEN
        self.checks_allowed = checks_allowed  # False: a token without `checks: write` (403)
        # False: branch protection restricts who may dismiss reviews, and not this token (403).
        self.dismiss_allowed = dismiss_allowed
        self.app_slug = app_slug
        self.app = app  # a GitHub App: its /app routes, and only its installation tokens
        self.repos: dict[str, FakeRepo] = {}
        self._ids = itertools.count(1_000)
        self._lock = threading.RLock()
        self._remaining = 5_000
        self._routes: list[tuple[str, re.Pattern[str], _Route]] = [
            (method, re.compile(f"^{pattern}$"), handler)
            for method, pattern, handler in self._table()
        ]

    # --- seeding -------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def add_repo(self, full_name: str, **fields: Any) -> FakeRepo:
        repo = FakeRepo(full_name=full_name, id=self.next_id(), **fields)
        repo.branches.setdefault(repo.default_branch, sha_of(f"{full_name}@{repo.default_branch}"))
        self.repos[full_name] = repo
        return repo

    def repo(self, full_name: str) -> FakeRepo:
        return self.repos.get(full_name) or self.add_repo(full_name)

    def add_pull(self, full_name: str, **fields: Any) -> FakePull:
        """A PR in `full_name` (created if needed); SHAs default to deterministic values."""
        repo = self.repo(full_name)
        number = fields.pop("number", None) or max([0, *repo.pulls]) + 1
        fields.setdefault("head_sha", sha_of(f"{full_name}#{number}:head"))
        fields.setdefault("base_sha", repo.branches[repo.default_branch])
        pull = FakePull(number=number, **fields)
        if not pull.commits:
            pull.commits = [pull.head_sha]
        repo.pulls[number] = pull
        repo.branches.setdefault(pull.base_ref, pull.base_sha)
        if pull.head_repo is None:
            repo.branches[pull.head_ref] = pull.head_sha
        return pull

    def set_content(self, full_name: str, ref: str, path: str, text: str) -> None:
        self.repo(full_name).contents[(ref, path)] = text

    def add_issue_comment(
        self, full_name: str, number: int, body: str, author: str, association: str = "NONE"
    ) -> dict[str, Any]:
        """A comment by someone else (a human, another workflow, an earlier run) on the PR."""
        with self._lock:
            comment = self._new_issue_comment(self.repo(full_name), number, body, author, "")
            comment["author_association"] = association
            self.repo(full_name).issue_comments.setdefault(number, []).append(comment)
            return comment

    def add_review(
        self,
        full_name: str,
        number: int,
        body: str,
        *,
        author: str,
        state: str = "COMMENTED",
        commit: str | None = None,
        association: str = "NONE",
    ) -> dict[str, Any]:
        """A review as an earlier run or a person left it (PENDING: not submitted)."""
        with self._lock:
            repo = self.repo(full_name)
            pull = repo.pulls[number]
            review = self._review_json(
                "", repo, pull, self.next_id(), body, state, commit or pull.head_sha
            )
            review.update(user=self._author(author), author_association=association)
            repo.reviews.setdefault(number, []).append(review)
            return review

    def add_review_comment(
        self,
        full_name: str,
        number: int,
        body: str,
        *,
        author: str,
        path: str,
        line: int,
        start_line: int | None = None,
        association: str = "NONE",
        in_reply_to: int | None = None,
        commit: str | None = None,
    ) -> dict[str, Any]:
        """An inline comment as GitHub stores one a person posted outside a review.

        GitHub files it under a new one-comment review of its author (state COMMENTED,
        empty body). `association` is what GitHub reports (MEMBER and COLLABORATOR
        include read-only accounts).
        """
        with self._lock:
            repo = self.repo(full_name)
            pull = repo.pulls[number]
            review = self.add_review(full_name, number, "", author=author, association=association)
            fields = {"path": path, "line": line, "start_line": start_line, "body": body}
            on = commit or review["commit_id"]
            comment = self._review_comment_json("", repo, pull, review["id"], on, fields)
            comment.update(
                user=self._author(author),
                author_association=association,
                in_reply_to_id=in_reply_to,
            )
            repo.review_comments.setdefault(number, []).append(comment)
            return comment

    def add_reply(
        self,
        full_name: str,
        number: int,
        *,
        in_reply_to: int,
        body: str,
        author: str,
        association: str = "NONE",
    ) -> dict[str, Any]:
        """A reply in an inline comment's thread, on the parent's path, lines and commit."""
        with self._lock:
            comments = self.repo(full_name).review_comments[number]
            parent = next(c for c in comments if c["id"] == in_reply_to)
            return self.add_review_comment(
                full_name,
                number,
                body,
                author=author,
                path=parent["path"],
                line=parent["line"],
                start_line=parent["start_line"],
                association=association,
                in_reply_to=in_reply_to,
                commit=parent["commit_id"],
            )

    def add_check_run(self, full_name: str, **fields: Any) -> dict[str, Any]:
        """Another app's check run (the CI axis reads these)."""
        app = fields.pop("app_slug", "ci")
        with self._lock:
            run = self._new_check_run(self.repo(full_name), fields, app, base_url="")
            self.repo(full_name).check_runs.append(run)
            return run

    # --- serving -------------------------------------------------------------------------

    def __call__(self, request: Request) -> Response:
        with self._lock:
            if self.app is not None and self.app.handles(request):
                response = self.app(request)
            else:
                token = request.headers.get("authorization", "").partition(" ")[2]
                self.reading_only = token in self.read_only_tokens
                response = (
                    self._authenticate(request) or self._refused(request) or self._route(request)
                )
            self._remaining = max(0, self._remaining - 1)
            headers = {
                **response.headers,
                "X-RateLimit-Limit": "5000",
                "X-RateLimit-Remaining": str(self._remaining),
                "X-RateLimit-Used": str(5_000 - self._remaining),
                "X-RateLimit-Reset": str(_RESET_AT),
                "X-RateLimit-Resource": "core",
                "X-GitHub-Request-Id": f"FAKE:{self.next_id()}",
            }
            return Response(status=response.status, headers=headers, body=response.body)

    def _authenticate(self, request: Request) -> Response | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if not token or scheme.lower() not in {"token", "bearer"}:
            return Response.json(401, {"message": "Requires authentication", "status": "401"})
        if self.tokens is not None and token not in self.tokens:
            return Response.json(401, {"message": "Bad credentials", "status": "401"})
        if self.app is not None and not self.app.accepts(token):
            return Response.json(401, {"message": "Bad credentials", "status": "401"})
        return None

    def _refused(self, request: Request) -> Response | None:
        graphql = request.path.endswith("/graphql")  # its mutations are refused by github_graphql
        if self.reading_only and request.method not in ("GET", "HEAD") and not graphql:
            return _not_accessible()
        return None

    def _route(self, request: Request) -> Response:
        for method, pattern, handler in self._routes:
            match = pattern.match(request.path)
            if method == request.method and match:
                params: dict[str, Any] = {
                    k: urllib.parse.unquote(v) for k, v in match.groupdict().items()
                }
                if "owner" in params:
                    repo = self.repos.get(f"{params.pop('owner')}/{params.pop('name')}")
                    if repo is None:
                        return _not_found()
                    params["repo"] = repo
                return handler(request, **params)
        return _not_found()

    def _table(self) -> list[tuple[str, str, _Route]]:
        r = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
        n = r"(?P<number>\d+)"
        return [
            ("GET", r"/user", self._get_user),
            ("POST", r"(?:/api)?/graphql", lambda request: serve_graphql(self, request)),
            ("GET", rf"{r}", self._get_repo),
            ("GET", rf"{r}/pulls", self._list_pulls),
            ("GET", rf"{r}/git/trees/(?P<ref>[^/]+)", self._get_tree),
            ("GET", rf"{r}/pulls/{n}", self._get_pull),
            ("GET", rf"{r}/pulls/{n}/files", self._list_files),
            ("GET", rf"{r}/pulls/{n}/commits", self._list_commits),
            ("GET", rf"{r}/pulls/{n}/comments", self._list_review_comments),
            ("GET", rf"{r}/pulls/{n}/reviews", self._list_reviews),
            ("POST", rf"{r}/pulls/{n}/reviews", self._create_review),
            ("GET", rf"{r}/pulls/{n}/reviews/(?P<review_id>\d+)", self._get_review),
            ("DELETE", rf"{r}/pulls/{n}/reviews/(?P<review_id>\d+)", self._delete_review),
            ("PUT", rf"{r}/pulls/{n}/reviews/(?P<review_id>\d+)", self._update_review),
            (
                "PUT",
                rf"{r}/pulls/{n}/reviews/(?P<review_id>\d+)/dismissals",
                self._dismiss_review,
            ),
            ("PATCH", rf"{r}/pulls/comments/(?P<comment_id>\d+)", self._edit_review_comment),
            (
                "POST",
                rf"{r}/pulls/{n}/comments/(?P<comment_id>\d+)/replies",
                self._create_reply,
            ),
            (
                "GET",
                rf"{r}/pulls/{n}/reviews/(?P<review_id>\d+)/comments",
                self._list_review_comments_of,
            ),
            ("GET", rf"{r}/issues/{n}/comments", self._list_issue_comments),
            ("POST", rf"{r}/issues/{n}/comments", self._create_issue_comment),
            ("PATCH", rf"{r}/issues/comments/(?P<comment_id>\d+)", self._edit_issue_comment),
            ("GET", rf"{r}/commits/(?P<ref>[^/]+)/check-runs", self._list_check_runs),
            ("GET", rf"{r}/commits/(?P<ref>[^/]+)/statuses", self._list_statuses),
            ("POST", rf"{r}/check-runs", self._create_check_run),
            ("GET", rf"{r}/check-runs/(?P<run_id>\d+)", self._get_check_run),
            ("PATCH", rf"{r}/check-runs/(?P<run_id>\d+)", self._update_check_run),
            ("GET", rf"{r}/check-runs/(?P<run_id>\d+)/annotations", self._list_annotations),
            ("POST", rf"{r}/statuses/(?P<sha>[0-9a-f]{{40}})", self._create_status),
            ("GET", rf"{r}/statuses/(?P<ref>[0-9a-f]{{40}})", self._list_statuses),
            ("GET", rf"{r}/contents/(?P<path>.+)", self._get_contents),
            (
                "GET",
                rf"{r}/compare/(?P<base>[0-9a-f]{{40}})\.\.\.(?P<head>[0-9a-f]{{40}})",
                self._compare,
            ),
            ("GET", rf"{r}/collaborators/(?P<user>[^/]+)/permission", self._get_permission),
        ]

    # --- shapes --------------------------------------------------------------------------

    def _time(self) -> str:
        return (_EPOCH + dt.timedelta(seconds=self.next_id())).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        text = json.dumps(_TEMPLATE["pull_request"]["user"]).replace("Codertocat", login)
        user: dict[str, Any] = json.loads(text)
        user.update(id=int(sha_of(login)[:8], 16), type=user_type)
        return user

    def _me(self) -> dict[str, Any]:
        return self._user(self.login, self.user_type)

    def _author(self, login: str) -> dict[str, Any]:
        """The token's own account (every workflow of the repository), or a person."""
        return self._me() if login == self.login else self._user(login)

    def _repo_json(self, base_url: str, full_name: str, repo_id: int) -> dict[str, Any]:
        owner, name = full_name.split("/")
        text = json.dumps(_TEMPLATE["repository"])
        text = text.replace("https://api.github.com", base_url)
        text = text.replace("Codertocat/Hello-World", full_name).replace("Hello-World", name)
        data: dict[str, Any] = json.loads(text)
        data.update(id=repo_id, name=name, full_name=full_name, owner=self._user(owner))
        repo = self.repos.get(full_name)
        if repo is not None:
            data.update(default_branch=repo.default_branch, private=repo.private)
            if repo.clone_url:
                data["clone_url"] = repo.clone_url
        data["fork"] = repo is None
        return data

    def _pull_json(self, base_url: str, repo: FakeRepo, pull: FakePull) -> dict[str, Any]:
        text = json.dumps(_TEMPLATE["pull_request"])
        text = text.replace("https://api.github.com", base_url)
        text = text.replace("Codertocat/Hello-World", repo.full_name)
        for kind in ("pulls", "issues", "pull"):
            text = text.replace(f"/{kind}/2", f"/{kind}/{pull.number}")
        text = text.replace(_TEMPLATE["pull_request"]["head"]["sha"], pull.head_sha)
        data: dict[str, Any] = json.loads(text)
        adds = dels = 0
        for f in pull.files:
            a, d = f.counts()
            adds, dels = adds + a, dels + d
        head_full = pull.head_repo or repo.full_name
        head_id = repo.id if pull.head_repo is None else int(sha_of(head_full)[:8], 16)
        data.update(
            id=pull.number + 100_000,
            number=pull.number,
            title=pull.title,
            body=pull.body,
            state=pull.state,
            draft=pull.draft,
            user=self._user(pull.author),
            additions=adds,
            deletions=dels,
            changed_files=len(pull.files),
            commits=len(pull.commits),
            comments=len(repo.issue_comments.get(pull.number, [])),
            review_comments=len(repo.review_comments.get(pull.number, [])),
            merged=False,
            merge_commit_sha=None,
            statuses_url=f"{base_url}/repos/{repo.full_name}/statuses/{pull.head_sha}",
        )
        data["head"] = {
            "label": f"{head_full.split('/')[0]}:{pull.head_ref}",
            "ref": pull.head_ref,
            "sha": pull.head_sha,
            "user": self._user(head_full.split("/")[0]),
            "repo": self._repo_json(base_url, head_full, head_id),
        }
        data["base"] = {
            "label": f"{repo.full_name.split('/')[0]}:{pull.base_ref}",
            "ref": pull.base_ref,
            "sha": pull.base_sha,
            "user": self._user(repo.full_name.split("/")[0]),
            "repo": self._repo_json(base_url, repo.full_name, repo.id),
        }
        return data

    def _page(
        self,
        request: Request,
        items: list[Any],
        *,
        wrap: str | None = None,
        cap: int | None = None,
        render: Callable[[Any], Any] | None = None,
    ) -> Response:
        """One page of `items` with GitHub's Link header (per_page ≤ 100, default 30)."""
        if cap is not None:
            items = items[:cap]
        per_page = max(1, min(int(request.query.get("per_page", 30)), 100))
        page = max(1, int(request.query.get("page", 1)))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        for rel, target in (("prev", page - 1), ("next", page + 1), ("last", last), ("first", 1)):
            if (rel in {"prev", "first"} and page > 1) or (rel in {"next", "last"} and page < last):
                query = {**request.query, "per_page": str(per_page), "page": str(target)}
                url = f"{request.base_url}{request.path}?{urllib.parse.urlencode(query)}"
                links.append(f'<{url}>; rel="{rel}"')
        headers = {"Link": ", ".join(links)} if links else {}
        if render is not None:
            chunk = [render(item) for item in chunk]
        body: Any = {"total_count": len(items), wrap: chunk} if wrap else chunk
        return Response.json(200, body, headers)

    # --- users and repositories ----------------------------------------------------------

    def _get_user(self, request: Request) -> Response:
        if not self.user_endpoint:
            return _not_accessible()
        return Response.json(200, self._me())

    def _get_permission(self, request: Request, repo: FakeRepo, user: str) -> Response:
        default = "none" if repo.private else "read"
        permission = repo.permissions.get(user, default)
        body = {"permission": permission, "role_name": permission, "user": self._user(user)}
        return Response.json(200, body)

    # --- pulls, files, commits, contents -------------------------------------------------

    def _pull(self, repo: FakeRepo, number: str) -> FakePull | None:
        return repo.pulls.get(int(number))

    def _get_repo(self, request: Request, repo: FakeRepo) -> Response:
        return Response.json(200, self._repo_json(request.base_url, repo.full_name, repo.id))

    def _list_pulls(self, request: Request, repo: FakeRepo) -> Response:
        """`state` (default open) filters; newest number first stands in for `sort=updated`."""
        state = request.query.get("state", "open")
        pulls = [p for _, p in sorted(repo.pulls.items(), reverse=True)]
        pulls = [p for p in pulls if state == "all" or p.state == state]
        items = []
        for pull in pulls:
            item = self._pull_json(request.base_url, repo, pull)
            threads = (repo.issue_comments, repo.review_comments, repo.reviews)
            stamps = [c.get("updated_at") for t in threads for c in t.get(pull.number, [])]
            item["updated_at"] = max([s for s in stamps if s] or [item["updated_at"]])
            items.append(item)
        return self._page(request, items)

    def _get_tree(self, request: Request, repo: FakeRepo, ref: str) -> Response:
        """`git/trees/{sha or branch}` with `recursive`: every file, as `blob` entries."""
        sha = repo.resolve(ref) or ref
        paths = repo.trees.get(ref, repo.trees.get(sha))
        if paths is None:
            return _not_found()
        tree = [
            {"path": path, "mode": "100644", "type": "blob", "sha": sha_of(f"{sha}:{path}")}
            for path in sorted(paths)
        ]
        return Response.json(200, {"sha": sha, "tree": tree, "truncated": False})

    def _get_pull(self, request: Request, repo: FakeRepo, number: str) -> Response:
        pull = self._pull(repo, number)
        if pull is None:
            return _not_found()
        return Response.json(200, self._pull_json(request.base_url, repo, pull))

    def _file_json(
        self, base_url: str, repo: FakeRepo, pull: FakePull, f: FakeFile, head: str | None = None
    ) -> dict[str, Any]:
        adds, dels = f.counts()
        html = f"https://github.com/{repo.full_name}"
        head = head or pull.head_sha  # the URLs name the commit the listing is of
        data: dict[str, Any] = {
            "sha": sha_of(f"{head}:{f.filename}"),
            "filename": f.filename,
            "status": f.status,
            "additions": adds,
            "deletions": dels,
            "changes": adds + dels,
            "blob_url": f"{html}/blob/{head}/{f.filename}",
            "raw_url": f"{html}/raw/{head}/{f.filename}",
            "contents_url": f"{base_url}/repos/{repo.full_name}/contents/{f.filename}?ref={head}",
        }
        if f.patch is not None:
            data["patch"] = f.patch
        if f.previous_filename is not None:
            data["previous_filename"] = f.previous_filename
        return data

    def _list_files(self, request: Request, repo: FakeRepo, number: str) -> Response:
        pull = self._pull(repo, number)
        if pull is None:
            return _not_found()
        if pull.push_on_listing is not None:  # GitHub lists the head of the moment
            change, pull.push_on_listing = pull.push_on_listing, None
            pull.push(change)
            repo.branches[pull.head_ref] = pull.head_sha
        return self._page(
            request,
            pull.files,
            cap=FILES_CAP,
            render=lambda f: self._file_json(request.base_url, repo, pull, f),
        )

    def _commit_json(
        self, base_url: str, repo: FakeRepo, sha: str, parent: str | None
    ) -> dict[str, Any]:
        author = {"name": "Octo Cat", "email": "octocat@example.com", "date": _EPOCH.isoformat()}
        return {
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": f"{base_url}/repos/{repo.full_name}/commits/{sha}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "commit": {"message": f"commit {sha[:7]}", "author": author, "committer": author},
            "author": self._user("octocat"),
            "committer": self._user("octocat"),
            "parents": [
                {"sha": parent, "url": f"{base_url}/repos/{repo.full_name}/commits/{parent}"}
            ]
            if parent
            else [],
        }

    def _list_commits(self, request: Request, repo: FakeRepo, number: str) -> Response:
        pull = self._pull(repo, number)
        if pull is None:
            return _not_found()
        parents = [pull.base_sha, *pull.commits[:-1]]
        items = [
            self._commit_json(request.base_url, repo, sha, parent)
            for sha, parent in zip(pull.commits, parents, strict=True)
        ]
        return self._page(request, items)

    def _compare(self, request: Request, repo: FakeRepo, base: str, head: str) -> Response:
        """GET /compare/BASE...HEAD of a PR's head (current or earlier): pinned to the SHAs."""
        pull = next(
            (p for p in repo.pulls.values() if p.base_sha == base and p.files_at(head) is not None),
            None,
        )
        if pull is None:
            return Response.json(404, {"message": f"No common ancestor between {base} and {head}."})
        files, commits = pull.files_at(head) or [], pull.commits_at(head) or []
        parents = [pull.base_sha, *commits[:-1]]
        items = [
            self._commit_json(request.base_url, repo, sha, parent)
            for sha, parent in zip(commits, parents, strict=True)
        ]
        url = f"{request.base_url}/repos/{repo.full_name}/compare/{base}...{head}"
        return Response.json(
            200,
            {
                "url": url,
                "html_url": f"https://github.com/{repo.full_name}/compare/{base}...{head}",
                "permalink_url": url,
                "diff_url": f"{url}.diff",
                "patch_url": f"{url}.patch",
                "base_commit": self._commit_json(request.base_url, repo, base, None),
                "merge_base_commit": self._commit_json(request.base_url, repo, base, None),
                "status": "ahead",
                "ahead_by": len(commits),
                "behind_by": 0,
                "total_commits": len(commits),
                "commits": items,
                # GitHub lists at most 300 files of a comparison.
                "files": [
                    self._file_json(request.base_url, repo, pull, f, head) for f in files[:300]
                ],
            },
        )

    def _listing(
        self, request: Request, repo: FakeRepo, folder: str, aliases: set[str]
    ) -> Response:
        """A folder's entries, as GitHub lists them (an array); 404 when no file is below it."""
        below: dict[str, str] = {}
        for at, path in repo.contents:
            if at in aliases and path.startswith(f"{folder}/"):
                name, _, deeper = path[len(folder) + 1 :].partition("/")
                below[name] = "dir" if deeper else "file"
        if not below:
            return _not_found()
        return Response.json(
            200,
            [
                {"type": kind, "name": name, "path": f"{folder}/{name}", "sha": sha_of(name)}
                for name, kind in sorted(below.items())
            ],
        )

    def _get_contents(self, request: Request, repo: FakeRepo, path: str) -> Response:
        ref = request.query.get("ref", repo.default_branch)
        sha = repo.resolve(ref)
        aliases = {ref, sha} | {name for name, at in repo.branches.items() if at == sha}
        text = next(
            (repo.contents[(a, path)] for a in aliases if a and (a, path) in repo.contents), None
        )
        if text is None and repo.contents_from_git and repo.clone_url:
            text = _git_show(repo.clone_url, sha or ref, path)
        if text is None:
            return self._listing(request, repo, path.rstrip("/"), aliases)
        raw = text.encode()
        url = f"{request.base_url}/repos/{repo.full_name}/contents/{path}?ref={ref}"
        return Response.json(
            200,
            {
                "type": "file",
                "encoding": "base64",
                "size": len(raw),
                "name": path.rsplit("/", 1)[-1],
                "path": path,
                "content": base64.b64encode(raw).decode(),
                "sha": sha_of(text),
                "url": url,
                "git_url": None,
                "html_url": f"https://github.com/{repo.full_name}/blob/{ref}/{path}",
                "download_url": None,
                "_links": {"self": url, "git": None, "html": None},
            },
        )

    # --- issue comments ------------------------------------------------------------------

    def _new_issue_comment(
        self, repo: FakeRepo, number: int, body: str, author: str, base_url: str
    ) -> dict[str, Any]:
        comment_id = self.next_id()
        now = self._time()
        user = self._author(author)
        return {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "url": f"{base_url}/repos/{repo.full_name}/issues/comments/{comment_id}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{number}#issuecomment-{comment_id}",
            "issue_url": f"{base_url}/repos/{repo.full_name}/issues/{number}",
            "body": body,
            "user": user,
            "created_at": now,
            "updated_at": now,
            "author_association": "NONE",
        }

    def _find_issue_comment(self, repo: FakeRepo, comment_id: str) -> dict[str, Any] | None:
        everything = itertools.chain.from_iterable(repo.issue_comments.values())
        return next((c for c in everything if c["id"] == int(comment_id)), None)

    def _create_reply(
        self, request: Request, repo: FakeRepo, number: str, comment_id: str
    ) -> Response:
        """`POST …/pulls/{n}/comments/{id}/replies`: a reply in the thread of a top-level
        review comment (GitHub answers 404 for a comment of another PR; a reply to a reply
        is not supported: 422)."""
        if self._pull(repo, number) is None:
            return _not_found()
        comments = repo.review_comments.get(int(number), [])
        parent = next((c for c in comments if c["id"] == int(comment_id)), None)
        if parent is None:
            return _not_found()
        if parent.get("in_reply_to_id") is not None:
            return _unprocessable(
                ["in_reply_to_id is a reply; reply to the thread's first comment"]
            )
        body = (request.json() or {}).get("body")
        refused = self._check_body(body, required=True)
        if refused:
            return refused
        reply = self.add_reply(
            repo.full_name, int(number), in_reply_to=parent["id"], body=str(body), author=self.login
        )
        return Response.json(201, reply)

    def _list_issue_comments(self, request: Request, repo: FakeRepo, number: str) -> Response:
        if self._pull(repo, number) is None:
            return _not_found()
        return self._page(request, repo.issue_comments.get(int(number), []))

    def _create_issue_comment(self, request: Request, repo: FakeRepo, number: str) -> Response:
        if self._pull(repo, number) is None:
            return _not_found()
        body = (request.json() or {}).get("body")
        refused = self._check_body(body, required=True)
        if refused:
            return refused
        comment = self._new_issue_comment(
            repo, int(number), str(body), self.login, request.base_url
        )
        repo.issue_comments.setdefault(int(number), []).append(comment)
        return Response.json(201, comment)

    def _edit_issue_comment(self, request: Request, repo: FakeRepo, comment_id: str) -> Response:
        comment = self._find_issue_comment(repo, comment_id)
        if comment is None:
            return _not_found()
        return self._edit_body(request, comment, stamp=True)

    def _edit_body(
        self, request: Request, item: dict[str, Any], *, stamp: bool = False
    ) -> Response:
        """Replace the body of a comment or review: only its author may, and not with nothing."""
        if item["user"]["login"] != self.login:
            return _not_accessible()
        body = (request.json() or {}).get("body")
        refused = self._check_body(body, required=True)
        if refused:
            return refused
        item["body"] = body
        if stamp:  # a review has no updated_at
            item["updated_at"] = self._time()
        return Response.json(200, item)

    @staticmethod
    def _check_body(body: Any, *, required: bool) -> Response | None:
        if body is None or body == "":
            return (
                _unprocessable(
                    [{"resource": "IssueComment", "code": "missing_field", "field": "body"}]
                )
                if required
                else None
            )
        if not isinstance(body, str):
            return _unprocessable(
                [f"Invalid request.\n\nFor 'properties/body', {body!r} is not a string."]
            )
        if len(body) > BODY_MAX:
            return _unprocessable([f"Body is too long (maximum is {BODY_MAX} characters)"])
        return None

    # --- reviews -------------------------------------------------------------------------

    def _comment_error(self, pull: FakePull, comment: Any, commit: str) -> str | None:
        """Why GitHub would refuse this review comment, or None if it would accept it.

        Lines are resolved in the diff of the review's `commit_id`, not of the PR's head.
        """
        if not isinstance(comment, dict) or not comment.get("path") or not comment.get("body"):
            return "Unprocessable Entity"
        f = pull.file(comment["path"], commit)
        if f is None:
            return "Path could not be resolved"
        hunks, positions = parse_hunks(f.patch or "")
        if "line" not in comment and "position" in comment:
            position = comment["position"]
            ok = isinstance(position, int) and 1 <= position <= positions
            return None if ok else "Line could not be resolved"
        line, side = comment.get("line"), str(comment.get("side", "RIGHT"))
        start, start_side = comment.get("start_line"), str(comment.get("start_side", side))
        if not isinstance(line, int) or side not in {"LEFT", "RIGHT"}:
            return "Line could not be resolved"
        if start is not None and (not isinstance(start, int) or start >= line):
            return "pull_request_review_thread.start_line must precede the end line"

        def lines(hunk: Hunk, which: str) -> frozenset[int]:
            return hunk.right if which == "RIGHT" else hunk.left

        for hunk in hunks:
            if line in lines(hunk, side) and (start is None or start in lines(hunk, start_side)):
                return None
        return "Line could not be resolved"

    def _review_comment_json(
        self,
        base_url: str,
        repo: FakeRepo,
        pull: FakePull,
        review_id: int,
        commit: str,
        c: dict[str, Any],
    ) -> dict[str, Any]:
        comment_id = self.next_id()
        now = self._time()
        side = c.get("side", "RIGHT") if "line" in c else "RIGHT"
        return {
            "id": comment_id,
            "node_id": f"PRRC_{comment_id}",
            "pull_request_review_id": review_id,
            "url": f"{base_url}/repos/{repo.full_name}/pulls/comments/{comment_id}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{pull.number}#discussion_r{comment_id}",
            "pull_request_url": f"{base_url}/repos/{repo.full_name}/pulls/{pull.number}",
            "path": c["path"],
            "body": c["body"],
            "line": c.get("line"),
            "original_line": c.get("line"),
            "side": side,
            "start_line": c.get("start_line"),
            "original_start_line": c.get("start_line"),
            "start_side": c.get("start_side", side) if c.get("start_line") else None,
            "position": c.get("position", 1),
            "original_position": c.get("position", 1),
            "diff_hunk": (pull.file(c["path"], commit) or FakeFile(filename="")).patch or "",
            "commit_id": commit,
            "original_commit_id": commit,
            "user": self._me(),
            "author_association": "NONE",
            "subject_type": "line",
            "created_at": now,
            "updated_at": now,
            "in_reply_to_id": c.get("in_reply_to"),
            "_links": {},
        }

    def _review_json(
        self,
        base_url: str,
        repo: FakeRepo,
        pull: FakePull,
        review_id: int,
        body: str,
        state: str,
        commit: str,
    ) -> dict[str, Any]:
        return {
            "id": review_id,
            "node_id": f"PRR_{review_id}",
            "user": self._me(),
            "body": body,
            "state": state,
            "commit_id": commit,
            "html_url": f"https://github.com/{repo.full_name}/pull/{pull.number}#pullrequestreview-{review_id}",
            "pull_request_url": f"{base_url}/repos/{repo.full_name}/pulls/{pull.number}",
            "author_association": "NONE",
            "submitted_at": None if state == "PENDING" else self._time(),
            "_links": {},
        }

    def _event_error(
        self, pull: FakePull, event: str | None, body: str, has_comments: bool
    ) -> Response | None:
        if event is not None and event not in REVIEW_STATES:
            return _unprocessable([f"Invalid event: {event}"])
        if event == "APPROVE" and pull.author == self.login:
            return _unprocessable(["Can not approve your own pull request"])
        if event == "APPROVE" and not self.approve_allowed:
            return _unprocessable(["GitHub Actions is not permitted to approve pull requests."])
        if event == "REQUEST_CHANGES" and not body:
            return _unprocessable(["You need to leave a comment indicating the requested changes."])
        if event == "COMMENT" and not body and not has_comments:
            return _unprocessable(["Review body is required for COMMENT events."])
        return None

    def _create_review(self, request: Request, repo: FakeRepo, number: str) -> Response:
        pull = self._pull(repo, number)
        if pull is None:
            return _not_found()
        payload = request.json() or {}
        body = payload.get("body") or ""
        event = payload.get("event")
        comments = payload.get("comments") or []
        refused = self._check_body(body, required=False) or self._event_error(
            pull, event, body, bool(comments)
        )
        if refused:
            return refused
        reviews = repo.reviews.setdefault(pull.number, [])
        # One pending review per user and PR; GitHub refuses a submitted review as well while
        # the user's pending one exists (it would have to become that review).
        if any(r["state"] == "PENDING" and r["user"]["login"] == self.login for r in reviews):
            return _unprocessable(["User can only have one pending review per pull request"])
        # All or nothing, like GitHub: one unresolvable comment fails the whole review and
        # the answer does not say which one.
        commit = payload.get("commit_id") or pull.head_sha
        if pull.files_at(commit) is None:
            return _unprocessable(
                ["The commitOID is not part of the pull request"]
            )  # reviewdog#434
        problems = list(
            dict.fromkeys(e for c in comments if (e := self._comment_error(pull, c, commit)))
        )
        if problems:
            return _unprocessable([" and ".join(problems)])
        review_id = self.next_id()
        state = REVIEW_STATES.get(event or "", "PENDING")
        review = self._review_json(request.base_url, repo, pull, review_id, body, state, commit)
        reviews.append(review)
        stored = repo.review_comments.setdefault(pull.number, [])
        for c in comments:
            stored.append(
                self._review_comment_json(request.base_url, repo, pull, review_id, commit, c)
            )
        return Response.json(200, review)

    def _find_review(self, repo: FakeRepo, number: str, review_id: str) -> dict[str, Any] | None:
        reviews = repo.reviews.get(int(number), [])
        return next((r for r in reviews if r["id"] == int(review_id)), None)

    def _visible(self, repo: FakeRepo, comment: dict[str, Any], number: int) -> bool:
        """Comments of a pending review are not listed until it is submitted."""
        review = self._find_review(repo, str(number), str(comment["pull_request_review_id"]))
        return review is None or review["state"] != "PENDING"

    def _list_reviews(self, request: Request, repo: FakeRepo, number: str) -> Response:
        """Every submitted review, and the token's own pending one: others' are private."""
        if self._pull(repo, number) is None:
            return _not_found()
        reviews = repo.reviews.get(int(number), [])
        return self._page(
            request,
            [r for r in reviews if r["state"] != "PENDING" or r["user"]["login"] == self.login],
        )

    def _visible_review(self, repo: FakeRepo, number: str, review_id: str) -> dict[str, Any] | None:
        """A review the token may see: submitted, or its own pending one."""
        review = self._find_review(repo, number, review_id)
        if review is None or (
            review["state"] == "PENDING" and review["user"]["login"] != self.login
        ):
            return None
        return review

    def _get_review(
        self, request: Request, repo: FakeRepo, number: str, review_id: str
    ) -> Response:
        review = self._visible_review(repo, number, review_id)
        if review is None:
            return _not_found()
        return Response.json(200, review)

    def _delete_review(
        self, request: Request, repo: FakeRepo, number: str, review_id: str
    ) -> Response:
        review = self._find_review(repo, number, review_id)
        if review is None:
            return _not_found()
        if review["state"] != "PENDING":
            return _unprocessable(["Can not delete a non-pending pull request review"])
        repo.reviews[int(number)].remove(review)
        comments = repo.review_comments.get(int(number), [])
        comments[:] = [c for c in comments if c["pull_request_review_id"] != review["id"]]
        return Response.json(200, review)

    def _update_review(
        self, request: Request, repo: FakeRepo, number: str, review_id: str
    ) -> Response:
        review = self._find_review(repo, number, review_id)
        if review is None:
            return _not_found()
        return self._edit_body(request, review)

    def _dismiss_review(
        self, request: Request, repo: FakeRepo, number: str, review_id: str
    ) -> Response:
        """PUT …/dismissals: an approval or a change request becomes DISMISSED, with a message.

        GitHub answers the review (state DISMISSED); a review in another state is a 422
        ("Can not dismiss a commented pull request review"), a missing message too, and a
        token branch protection does not let dismiss reviews a 403.
        """
        review = self._visible_review(repo, number, review_id)
        if review is None:
            return _not_found()
        payload = request.json() or {}
        if not isinstance(payload.get("message"), str) or not payload["message"]:
            return _invalid("message wasn't supplied.")
        if review["state"] not in {"APPROVED", "CHANGES_REQUESTED"}:
            state = review["state"].lower()
            return _unprocessable([f"Can not dismiss a {state} pull request review"])
        if not self.dismiss_allowed:
            return Response.json(
                403,
                {
                    "message": "Branch protections do not permit dismissing this review",
                    "documentation_url": f"{_DOCS}/pulls/reviews#dismiss-a-review-for-a-pull-request",
                    "status": "403",
                },
            )
        review["state"] = "DISMISSED"
        return Response.json(200, review)

    def _edit_review_comment(self, request: Request, repo: FakeRepo, comment_id: str) -> Response:
        every = (c for comments in repo.review_comments.values() for c in comments)
        comment = next((c for c in every if c["id"] == int(comment_id)), None)
        if comment is None:
            return _not_found()
        return self._edit_body(request, comment, stamp=True)

    def _list_review_comments(self, request: Request, repo: FakeRepo, number: str) -> Response:
        if self._pull(repo, number) is None:
            return _not_found()
        from tests.fakes.github_outdated import as_listed  # it reads this module's shapes

        pull, comments = repo.pulls[int(number)], repo.review_comments.get(int(number), [])
        listed = [as_listed(repo, pull, c) for c in comments if self._visible(repo, c, int(number))]
        return self._page(request, listed)

    def _list_review_comments_of(
        self, request: Request, repo: FakeRepo, number: str, review_id: str
    ) -> Response:
        if self._find_review(repo, number, review_id) is None:
            return _not_found()
        comments = repo.review_comments.get(int(number), [])
        return self._page(
            request, [c for c in comments if c["pull_request_review_id"] == int(review_id)]
        )

    # --- check runs and statuses ---------------------------------------------------------

    def _check_output_error(self, output: Any) -> Response | None:
        if output is None:
            return None
        if not isinstance(output, dict):
            return _unprocessable(["output must be an object"])
        for key in ("summary", "text"):
            if len(output.get(key) or "") > CHECK_TEXT_MAX:
                return _unprocessable(
                    [
                        f"Invalid request.\n\nOnly {CHECK_TEXT_MAX} characters are allowed; {len(output[key])} were supplied."
                    ]
                )
        return self._annotations_error(output.get("annotations"))

    @staticmethod
    def _annotations_error(annotations: Any) -> Response | None:
        """GitHub's schema validation of `output.annotations` (the 50 limit is per request)."""
        if annotations is None:
            return None
        if not isinstance(annotations, list):
            return _invalid("For 'properties/annotations', it is not an array.")
        if len(annotations) > ANNOTATIONS_PER_REQUEST:
            return _invalid(
                f"No more than {ANNOTATIONS_PER_REQUEST} items are allowed; "
                f"{len(annotations)} were supplied."
            )
        for item in annotations:
            if not isinstance(item, dict):
                return _invalid("For 'items', it is not an object.")
            for key in ("path", "start_line", "end_line", "annotation_level", "message"):
                if item.get(key) is None:
                    return _invalid(f'"{key}" wasn\'t supplied.')
            if item["annotation_level"] not in ANNOTATION_LEVELS:
                return _invalid(
                    f"For 'properties/annotation_level', {json.dumps(item['annotation_level'])} "
                    f"is not one of {sorted(ANNOTATION_LEVELS)}."
                )
            columns = item.get("start_column") is not None or item.get("end_column") is not None
            if columns and item["start_line"] != item["end_line"]:
                return _invalid("start_column and end_column are only allowed on a single line.")
            if len(item.get("title") or "") > ANNOTATION_TITLE_MAX:
                return _invalid(f"Only {ANNOTATION_TITLE_MAX} characters are allowed in a title.")
            for key in ("message", "raw_details"):
                if len(str(item.get(key) or "").encode()) > ANNOTATION_TEXT_MAX:
                    return _invalid(f"The {key} of an annotation is limited to 64 KB.")
        return None

    @staticmethod
    def _store_annotations(repo: FakeRepo, run: dict[str, Any], output: dict[str, Any]) -> None:
        """Append the request's annotations to the run (GitHub appends, never replaces)."""
        stored = repo.annotations.setdefault(run["id"], [])
        for item in output.get("annotations") or ():
            blob = f"https://github.com/{repo.full_name}/blob/{run['head_sha']}/{item['path']}"
            stored.append(
                {
                    "path": item["path"],
                    "blob_href": blob,
                    "start_line": item["start_line"],
                    "end_line": item["end_line"],
                    "start_column": item.get("start_column"),
                    "end_column": item.get("end_column"),
                    "annotation_level": item["annotation_level"],
                    "title": item.get("title") or "",
                    "message": item["message"],
                    "raw_details": item.get("raw_details") or "",
                }
            )
        run["output"]["annotations_count"] = len(stored)

    def _new_check_run(
        self, repo: FakeRepo, fields: dict[str, Any], app: str, base_url: str
    ) -> dict[str, Any]:
        run_id = self.next_id()
        output = fields.get("output") or {}
        conclusion = fields.get("conclusion")
        status = "completed" if conclusion else fields.get("status", "queued")
        return {
            "id": run_id,
            "node_id": f"CR_{run_id}",
            "name": fields["name"],
            "head_sha": fields["head_sha"],
            "external_id": fields.get("external_id", ""),
            "url": f"{base_url}/repos/{repo.full_name}/check-runs/{run_id}",
            "html_url": fields.get("html_url")
            or f"https://github.com/{repo.full_name}/runs/{run_id}",
            "details_url": fields.get("details_url"),
            "status": status,
            "conclusion": conclusion,
            "started_at": fields.get("started_at") or self._time(),
            "completed_at": fields.get("completed_at") or (self._time() if conclusion else None),
            "output": {
                "title": output.get("title"),
                "summary": output.get("summary"),
                "text": output.get("text"),
                "annotations_count": len(output.get("annotations") or []),
                "annotations_url": f"{base_url}/repos/{repo.full_name}/check-runs/{run_id}/annotations",
            },
            "check_suite": {"id": self.next_id()},
            "app": {
                "id": int(sha_of(app)[:6], 16),
                "slug": app,
                "name": app,
                "owner": self._user(app),
            },
            "pull_requests": [],
        }

    def _create_check_run(self, request: Request, repo: FakeRepo) -> Response:
        if not self.checks_allowed:
            return _not_accessible()
        payload = request.json() or {}
        if not payload.get("name") or not payload.get("head_sha"):
            return _unprocessable([{"resource": "CheckRun", "code": "missing_field"}])
        if payload.get("status") == "completed" and not payload.get("conclusion"):
            return _unprocessable(["Conclusion is required when status is completed."])
        conclusion = payload.get("conclusion")
        if conclusion is not None and conclusion not in SETTABLE_CONCLUSIONS:
            # GitHub's schema validation; `stale` is GitHub's own, never an integrator's.
            return _unprocessable(
                [
                    f"Invalid request.\n\nFor 'properties/conclusion', {json.dumps(conclusion)} "
                    f"is not one of {sorted(SETTABLE_CONCLUSIONS)}."
                ]
            )
        refused = self._check_output_error(payload.get("output"))
        if refused:
            return refused
        run = self._new_check_run(repo, payload, self.app_slug, request.base_url)
        self._store_annotations(repo, run, payload.get("output") or {})
        repo.check_runs.append(run)
        return Response.json(201, run)

    def _check_run(self, repo: FakeRepo, run_id: str) -> dict[str, Any] | None:
        return next((r for r in repo.check_runs if r["id"] == int(run_id)), None)

    def _get_check_run(self, request: Request, repo: FakeRepo, run_id: str) -> Response:
        run = self._check_run(repo, run_id)
        return Response.json(200, run) if run is not None else _not_found()

    def _update_check_run(self, request: Request, repo: FakeRepo, run_id: str) -> Response:
        """PATCH: fields replaced, except the annotations, which are appended to the run's."""
        run = self._check_run(repo, run_id)
        if run is None:
            return _not_found()
        if not self.checks_allowed:
            return _not_accessible()
        if run["app"]["slug"] != self.app_slug:  # only the app that created it may update it
            return Response.json(403, {"message": "Invalid app_id", "status": "403"})
        payload = request.json() or {}
        output = payload.get("output")
        if output is not None:
            if not isinstance(output, dict):
                return _unprocessable(["output must be an object"])
            for key in ("title", "summary"):  # "Required" once `output` is sent
                if not output.get(key):
                    return _invalid(f'"{key}" wasn\'t supplied.')
        conclusion = payload.get("conclusion")
        if conclusion is not None and conclusion not in SETTABLE_CONCLUSIONS:
            return _invalid(f"For 'properties/conclusion', {json.dumps(conclusion)} is not valid.")
        refused = self._check_output_error(output)
        if refused:
            return refused
        for key in ("name", "details_url", "external_id", "status", "conclusion"):
            if key in payload:
                run[key] = payload[key]
        if conclusion is not None:
            run["status"] = "completed"
            run["completed_at"] = payload.get("completed_at") or self._time()
        if output is not None:
            run["output"].update({k: output.get(k) for k in ("title", "summary", "text")})
            self._store_annotations(repo, run, output)
        return Response.json(200, run)

    def _list_annotations(self, request: Request, repo: FakeRepo, run_id: str) -> Response:
        if self._check_run(repo, run_id) is None:
            return _not_found()
        return self._page(request, repo.annotations.get(int(run_id), []))

    def required_check(self, full_name: str, sha: str, name: str) -> RequiredCheck:
        """What branch protection says of `name` as a required check of `sha`.

        GitHub's rule: the latest check run of that name must be completed with `success`,
        `neutral` or `skipped`, and the latest commit status of that context must be `success`;
        when both exist both must pass; when neither exists the check is expected (`pending`).
        `action_required`, `failure`, `cancelled`, `timed_out` and `stale` keep it failing.
        """
        with self._lock:
            repo = self.repo(full_name)
            runs = [r for r in repo.check_runs if r["head_sha"] == sha and r["name"] == name]
            statuses = [s for s in repo.statuses if s["sha"] == sha and s["context"] == name]
            states: list[RequiredCheck] = []
            if runs:
                run = max(runs, key=lambda r: int(r["id"]))
                if run["status"] != "completed":
                    states.append("pending")
                else:
                    passed = run["conclusion"] in PASSING_CONCLUSIONS
                    states.append("passing" if passed else "failing")
            if statuses:  # listed newest first
                state = statuses[0]["state"]
                states.append(
                    "passing"
                    if state == "success"
                    else "pending"
                    if state == "pending"
                    else "failing"
                )
            if "failing" in states:
                return "failing"
            if "pending" in states or not states:
                return "pending"
            return "passing"

    def _list_check_runs(self, request: Request, repo: FakeRepo, ref: str) -> Response:
        sha = repo.resolve(ref)
        if sha is None:
            return _unprocessable([f"No commit found for SHA: {ref}"])
        runs = [r for r in repo.check_runs if r["head_sha"] == sha]
        if "check_name" in request.query:
            runs = [r for r in runs if r["name"] == request.query["check_name"]]
        return self._page(request, runs, wrap="check_runs")

    def _create_status(self, request: Request, repo: FakeRepo, sha: str) -> Response:
        payload = request.json() or {}
        if payload.get("state") not in {"error", "failure", "pending", "success"}:
            return _unprocessable([{"resource": "Status", "code": "custom", "field": "state"}])
        status_id = self.next_id()
        now = self._time()
        status = {
            "id": status_id,
            "node_id": f"SC_{status_id}",
            "url": f"{request.base_url}/repos/{repo.full_name}/statuses/{sha}",
            "state": payload["state"],
            "description": payload.get("description"),
            "target_url": payload.get("target_url"),
            "context": payload.get("context", "default"),
            "created_at": now,
            "updated_at": now,
            "creator": self._me(),
            "sha": sha,
        }
        repo.statuses.insert(0, status)  # newest first, as GitHub lists them
        return Response.json(201, {k: v for k, v in status.items() if k != "sha"})

    def _statuses_for(self, repo: FakeRepo, ref: str) -> list[dict[str, Any]] | None:
        sha = repo.resolve(ref)
        if sha is None:
            return None
        return [
            {k: v for k, v in s.items() if k != "sha"} for s in repo.statuses if s["sha"] == sha
        ]

    def _list_statuses(self, request: Request, repo: FakeRepo, ref: str) -> Response:
        statuses = self._statuses_for(repo, ref)
        if statuses is None:
            return _unprocessable([f"No commit found for SHA: {ref}"])
        return self._page(request, statuses)
