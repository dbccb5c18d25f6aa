"""A small stateful GitHub at the transport (`responses` callbacks) for the publisher tests.

It answers with the real object shapes of tests/data/github-webhooks/ (octokit/webhooks
fixtures) and enforces the rules that matter here: a review is all-or-nothing and
refuses a comment on a line outside its diff with 422; one PENDING review per user;
approvals can be refused; check runs can be forbidden.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import responses

from tests.fakes.github_api import SETTABLE_CONCLUSIONS

API = "https://api.github.com"
WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"
DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
# Real object shapes, taken unchanged from the octokit/webhooks payloads (MIT, see the LICENSE
# beside them); scenarios override only the fields they need (id, body, user, line).
_SOURCES = {
    "review_comment": ("pull_request_review_comment.created", "comment"),
    "review": ("pull_request_review.submitted", "review"),
    "issue_comment": ("issue_comment.created", "comment"),
    "check_run": ("check_run.completed", "check_run"),
}
_SHAPES = {
    name: json.loads((WEBHOOKS / f"{event}.payload.json").read_text(encoding="utf-8"))[key]
    for name, (event, key) in _SOURCES.items()
}


def user(login: str) -> dict[str, Any]:
    shape = copy.deepcopy(_SHAPES["review_comment"]["user"])
    shape["login"] = login
    shape["type"] = "Bot" if login.endswith("[bot]") else "User"
    return shape


@dataclass
class FakeGitHub:
    repo: str
    number: int
    bot: str
    commentable: dict[str, set[int]]  # path → RIGHT lines GitHub accepts
    refuse_lines: set[tuple[str, int]] = field(default_factory=set)  # GitHub's diff disagrees
    approval_refusal: str | None = None
    checks_forbidden: bool = False
    review_refusal: str | None = None  # a 422 for the review that no comment explains
    page_size: int = 100
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))

    # ---- seeding state, as earlier runs or people left it -----------------------------------

    def add_review_comment(
        self,
        body: str,
        *,
        login: str,
        path: str = "src/app.py",
        line: int = 3,
        start_line: int | None = None,
        in_reply_to: int | None = None,
        association: str = "NONE",
        review_id: int | None = None,
    ) -> dict[str, Any]:
        comment = copy.deepcopy(_SHAPES["review_comment"])
        comment_id = next(self._ids)
        base = f"{API}/repos/{self.repo}"
        comment.update(
            id=comment_id,
            url=f"{base}/pulls/comments/{comment_id}",
            html_url=f"https://github.com/{self.repo}/pull/{self.number}#discussion_r{comment_id}",
            body=body,
            user=user(login),
            path=path,
            line=line,
            original_line=line,
            start_line=start_line,
            original_start_line=start_line,
            start_side="RIGHT" if start_line else None,
            side="RIGHT",
            author_association=association,
            pull_request_review_id=review_id,
        )
        if in_reply_to is not None:
            comment["in_reply_to_id"] = in_reply_to
        self.review_comments.append(comment)
        return comment

    def add_review(
        self, body: str, *, login: str, state: str = "COMMENTED", commit: str = ""
    ) -> dict[str, Any]:
        review = copy.deepcopy(_SHAPES["review"])
        review_id = next(self._ids)
        review.update(
            id=review_id,
            body=body,
            user=user(login),
            state=state,
            commit_id=commit or review["commit_id"],
            html_url=f"https://github.com/{self.repo}/pull/{self.number}#pullrequestreview-{review_id}",
            pull_request_url=f"{API}/repos/{self.repo}/pulls/{self.number}",
        )
        self.reviews.append(review)
        return review

    def add_issue_comment(self, body: str, *, login: str) -> dict[str, Any]:
        comment = copy.deepcopy(_SHAPES["issue_comment"])
        comment_id = next(self._ids)
        comment.update(
            id=comment_id,
            body=body,
            user=user(login),
            url=f"{API}/repos/{self.repo}/issues/comments/{comment_id}",
            html_url=f"https://github.com/{self.repo}/pull/{self.number}#issuecomment-{comment_id}",
        )
        self.issue_comments.append(comment)
        return comment

    # ---- the HTTP side ---------------------------------------------------------------------

    def install(self, rsps: responses.RequestsMock) -> None:
        # PyGithub spells the port out (https://api.github.com:443/…).
        base = re.escape("https://api.github.com") + "(?::443)?" + re.escape(f"/repos/{self.repo}")
        n = self.number
        route = [
            (
                "GET",
                rf"{base}/pulls/{n}/comments(\?.*)?$",
                self._list(lambda: self.review_comments),
            ),
            (
                "GET",
                rf"{base}/pulls/{n}/reviews(\?.*)?$",
                self._list(
                    lambda: [
                        r
                        for r in self.reviews
                        if r["state"] != "PENDING" or r["user"]["login"] == self.bot
                    ]
                ),
            ),
            (
                "GET",
                rf"{base}/issues/{n}/comments(\?.*)?$",
                self._list(lambda: self.issue_comments),
            ),
            ("GET", rf"{base}/pulls/{n}/reviews/(\d+)/comments(\?.*)?$", self._review_comments),
            ("POST", rf"{base}/pulls/{n}/reviews$", self._create_review),
            ("DELETE", rf"{base}/pulls/{n}/reviews/(\d+)$", self._delete_review),
            ("PUT", rf"{base}/pulls/{n}/reviews/(\d+)$", self._update_review),
            ("PATCH", rf"{base}/pulls/comments/(\d+)$", self._edit_review_comment),
            ("POST", rf"{base}/issues/{n}/comments$", self._create_issue_comment),
            ("PATCH", rf"{base}/issues/comments/(\d+)$", self._edit_issue_comment),
            ("POST", rf"{base}/check-runs$", self._create_check_run),
            ("POST", rf"{base}/statuses/([0-9a-f]+)$", self._create_status),
        ]
        for method, pattern, callback in route:
            rsps.add_callback(
                method, re.compile(pattern), callback=callback, content_type="application/json"
            )

    def _list(self, items: Any) -> Any:
        def callback(request: Any) -> tuple[int, dict[str, str], str]:
            everything = items()
            query = parse_qs(urlsplit(request.url).query)
            page = int(query.get("page", ["1"])[0])
            size = min(self.page_size, int(query.get("per_page", ["30"])[0]))
            chunk = everything[(page - 1) * size : page * size]
            headers = {}
            if page * size < len(everything):
                path = urlsplit(request.url).path
                headers["Link"] = f'<{API}{path}?per_page={size}&page={page + 1}>; rel="next"'
            return 200, headers, json.dumps(chunk)

        return callback

    @staticmethod
    def _id(request: Any) -> int:
        return int(re.findall(r"/(\d+)(?:/comments)?(?:\?.*)?$", request.url)[0])

    @staticmethod
    def _error(
        status: int, message: str, errors: list[str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        body: dict[str, Any] = {"message": message, "documentation_url": DOCS}
        if errors is not None:
            body["errors"] = errors
        return status, {}, json.dumps(body)

    def _create_review(self, request: Any) -> tuple[int, dict[str, str], str]:
        payload = json.loads(request.body)
        event = payload.get("event")
        if event is None and any(
            r["state"] == "PENDING" and r["user"]["login"] == self.bot for r in self.reviews
        ):
            return self._error(
                422,
                "Unprocessable Entity",
                ["User can only have one pending review per pull request"],
            )
        if self.review_refusal:
            return self._error(422, "Validation Failed", [self.review_refusal])
        if event == "APPROVE" and self.approval_refusal:
            return self._error(422, "Unprocessable Entity", [self.approval_refusal])
        bad = [c for c in payload.get("comments", []) if not self._accepts(c)]
        if bad:
            return self._error(422, "Unprocessable Entity", ["Line could not be resolved"])
        if event == "REQUEST_CHANGES" and not payload.get("body"):
            return self._error(
                422,
                "Unprocessable Entity",
                ["You need to leave a comment indicating the requested changes."],
            )
        state = {
            "APPROVE": "APPROVED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            "COMMENT": "COMMENTED",
        }
        review = self.add_review(
            payload.get("body", ""),
            login=self.bot,
            state=state.get(event, "PENDING"),
            commit=payload["commit_id"],
        )
        for comment in payload.get("comments", []):
            self.add_review_comment(
                comment["body"],
                login=self.bot,
                path=comment["path"],
                line=comment["line"],
                start_line=comment.get("start_line"),
                review_id=review["id"],
            )
        return 200, {}, json.dumps(review)

    def _accepts(self, comment: dict[str, Any]) -> bool:
        lines = self.commentable.get(comment["path"], set())
        first = comment.get("start_line", comment["line"])
        wanted = range(first, comment["line"] + 1)
        refused = any((comment["path"], n) in self.refuse_lines for n in wanted)
        return all(n in lines for n in wanted) and not refused

    def _delete_review(self, request: Any) -> tuple[int, dict[str, str], str]:
        review_id = self._id(request)
        review = next(r for r in self.reviews if r["id"] == review_id)
        if review["state"] != "PENDING":
            return self._error(
                422, "Unprocessable Entity", ["Can not delete a non-pending pull request review"]
            )
        self.reviews.remove(review)
        self.review_comments = [
            c for c in self.review_comments if c["pull_request_review_id"] != review_id
        ]
        return 200, {}, json.dumps(review)

    def _update_review(self, request: Any) -> tuple[int, dict[str, str], str]:
        review = next(r for r in self.reviews if r["id"] == self._id(request))
        review["body"] = json.loads(request.body)["body"]
        return 200, {}, json.dumps(review)

    def _review_comments(self, request: Any) -> tuple[int, dict[str, str], str]:
        review_id = int(re.findall(r"/reviews/(\d+)/comments", request.url)[0])
        mine = [c for c in self.review_comments if c["pull_request_review_id"] == review_id]
        return 200, {}, json.dumps(mine)

    def _edit_review_comment(self, request: Any) -> tuple[int, dict[str, str], str]:
        comment = next(c for c in self.review_comments if c["id"] == self._id(request))
        comment["body"] = json.loads(request.body)["body"]
        return 200, {}, json.dumps(comment)

    def _create_issue_comment(self, request: Any) -> tuple[int, dict[str, str], str]:
        comment = self.add_issue_comment(json.loads(request.body)["body"], login=self.bot)
        return 201, {}, json.dumps(comment)

    def _edit_issue_comment(self, request: Any) -> tuple[int, dict[str, str], str]:
        comment = next(c for c in self.issue_comments if c["id"] == self._id(request))
        comment["body"] = json.loads(request.body)["body"]
        return 200, {}, json.dumps(comment)

    def _create_check_run(self, request: Any) -> tuple[int, dict[str, str], str]:
        if self.checks_forbidden:
            return self._error(403, "Resource not accessible by integration")
        payload = json.loads(request.body)
        if payload.get("conclusion") not in SETTABLE_CONCLUSIONS:  # as tests/fakes/github_api.py
            return self._error(422, f"Invalid request: conclusion {payload.get('conclusion')!r}")
        run = copy.deepcopy(_SHAPES["check_run"])
        run.update(id=next(self._ids), **{k: v for k, v in payload.items() if k != "output"})
        run["output"].update(payload.get("output", {}))
        self.check_runs.append(run)
        return 201, {}, json.dumps(run)

    def _create_status(self, request: Any) -> tuple[int, dict[str, str], str]:
        payload = json.loads(request.body)
        status = {
            "id": next(self._ids),
            "context": payload["context"],
            "state": payload["state"],
            "description": payload.get("description"),
        }
        self.statuses.append(status)
        return 201, {}, json.dumps(status)
