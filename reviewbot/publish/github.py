"""The write side of GitHub: one review, one summary comment, one check run per run.

The only publishing module that imports `github` (PyGithub). It talks to the REST
API through the client's `Requester` — the client's auth, base URL (GitHub
Enterprise included) and retry policy (`GithubRetry`: secondary rate limits,
`Retry-After`; configured by the composition root) — with exact, explicit
requests, so the calls a run makes are the ones listed here:

    reads  GET  /pulls/{n}/comments, /pulls/{n}/reviews, /issues/{n}/comments  (paginated)
    1      POST /pulls/{n}/reviews                 the review: body, event, every NEW inline comment
           (skipped when nothing is new and the verdict equals the prior summary's)
    2      PATCH /pulls/comments/{id}, PUT /pulls/{n}/reviews/{id}
                                                   vanished findings marked resolved (≤ 10 edits a run)
    3      PATCH /issues/comments/{id} or POST /issues/{n}/comments    the summary, edited in place
    4      POST /check-runs  (403 → POST /statuses/{sha})             the verdict for branch protection,
                                                   with the first 50 findings as annotations
    5      PATCH /check-runs/{id}                  the next annotations, 50 a request (≤ 2 PATCHes:
                                                   ≤ 150 a run, see publish/annotations.py)

The verdict as branch protection sees it (GitHub counts `success`, `neutral` and
`skipped` as passing a required check, a commit status only `success`):

    verdict                      check run   commit status (fallback)   title / description
    Ship, full coverage          success     success                    "Ship: …"
    Ship, coverage partial/none  failure     failure                    "Ship, not a clean pass (coverage is partial): …"
    Hold (default)               failure     failure                    "Hold (blocks merge): …"
    Hold, `advisory_hold = true` neutral     success                    "Hold (advisory): …"
    Hold, coverage partial/none  failure     failure                    "Hold (blocks merge: coverage is partial): …"
    Block                        failure     failure                    "Block: …"

`failure` rather than `action_required`: both keep a required check failing, but
`action_required` promises a fix on the integrator's `details_url`, and a check run
made with an Actions GITHUB_TOKEN gets its Details link set to the workflow run
whatever `details_url` says. `advisory_hold` comes from the base branch's config.
Commit statuses have no neutral state; the fallback passes exactly when the check
run would (an advisory Hold is `success`), and its description says which verdict
it stands for.

Earlier findings missing from this run are marked resolved only when the run
could have found them: a new head, every reviewer agent ran to a normal end, the
coverage was reported, and it covers the finding's file (`Coverage.covers`: a file
no reviewer saw keeps its findings open; past GitHub's file-listing limit, nothing
resolves). A run without a key, with a rejected key, a crash or an exhausted
budget resolves nothing. A Ship with partial coverage is posted as COMMENT, never
APPROVE.

Every write happens once. The client never retries a POST blindly (`WriteOnceRetry`
in sources/github.py); when a write's answer is lost (a 5xx, a reset connection, a
timeout: GitHub may or may not have stored it), `_Api.write_once` reads back what
carries this write's identity — the review's `reviewbot:review` marker (head and a
key of its content), the summary's marker, the check run's `external_id`, the
status's context and text, the bot's PENDING probe — and posts again only when it is
absent (at most `WRITE_ATTEMPTS` times). A write that cannot be confirmed ends the
run with one line (exit 5). PUT, PATCH and DELETE are idempotent and retried as
they are; a DELETE answered 404 was already done. The exception is the PATCH that
appends annotations (GitHub adds what each one carries): it is never repeated by the
client (`_Api.append`); after a lost answer the check run's `output.annotations_count`
is read back and only the annotations GitHub does not hold are sent again. A commit
status (the fallback) carries no annotations: the publisher's notes say so.

Failure paths add calls that do not grow with the findings either: an approval
GitHub refuses is re-posted as COMMENT; a 422 for the review (GitHub does not say
which comment) bisects the inline comments with PENDING reviews that are deleted
again, then posts the rest and moves the refused ones into the body.

Must not: decide placement (`plan.py`), write markdown (`body.py`), or let a
PyGithub exception escape (they become `reviewbot.errors`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from github import Github, GithubException
from github.Requester import Requester
from pydantic import BaseModel, ConfigDict, ValidationError

from reviewbot.config import PublishConfig
from reviewbot.errors import (
    AuthError,
    GitHubAPIError,
    NetworkError,
    NotFoundError,
    ReviewbotError,
)
from reviewbot.modes.profile import Role
from reviewbot.nodes.boundary import read_boundary
from reviewbot.nodes.lifecycle import Action
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.publish.annotations import (
    PER_REQUEST,
    Annotation,
    Annotations,
    plan_annotations,
    remaining,
)
from reviewbot.publish.body import (
    MAX_CHECK_TEXT,
    TRUNCATED_CHECK,
    VERDICT_LABEL,
    HeadReader,
    checkout_reader,
    deciding,
    finish,
    inert_for,
    inline_body,
    review_text,
    summary_body,
)
from reviewbot.publish.inert import plain
from reviewbot.publish.markers import (
    NODE_TAG,
    CommentRecord,
    PriorNode,
    PriorState,
    SummaryMarker,
    Trust,
    Where,
    find_markers,
    location,
    read_prior,
    seal_body,
    summary_marker,
)
from reviewbot.publish.plan import LinkBuilder, Plan, Target, plan_review
from reviewbot.publish.resolution import resolved_body
from reviewbot.publish.seal import Sealer
from reviewbot.redact import Redactor
from reviewbot.report import Published, PublishedComment, Report
from reviewbot.sources.ci import CHECK_NAME
from reviewbot.sources.github import WriteOnceRetry
from reviewbot.sources.snapshot import PRComment, PRSnapshot
from reviewbot.verdict.lattice import Verdict

MAX_STATUS_DESCRIPTION = 140  # GitHub: a commit status description
MAX_RESOLVE_EDITS = 10  # per run; the rest are marked on the next run (writes stay O(1))
MAX_PAGES = 30  # × 100 items per listing: a bound on reads for pathological PRs
WRITE_ATTEMPTS = 3  # posts of one write, each after a read-back found the previous one absent
REVIEW_TAG = "reviewbot:review"  # the identity of one review write, read back after a lost answer
_OPEN = (Status.OPEN, Status.CONSENSUS_READY)

Event = Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]
_EVENTS: dict[Verdict, Event] = {
    Verdict.SHIP: "APPROVE",
    Verdict.HOLD: "COMMENT",
    Verdict.BLOCK: "REQUEST_CHANGES",
}
_APPROVAL_REFUSALS = (
    "not permitted to approve",
    "can not approve your own",
    "cannot approve your own",
)


# ---- GitHub's response shapes: only the fields read here ---------------------------------------


class _Shape(BaseModel):
    # GitHub adds response fields over time; a new field must not break publishing.
    model_config = ConfigDict(frozen=True, extra="ignore")


class _User(_Shape):
    login: str


class _ReviewComment(_Shape):
    id: int
    body: str | None = None
    user: _User | None = None
    in_reply_to_id: int | None = None
    path: str | None = None
    line: int | None = None
    start_line: int | None = None
    side: str | None = None  # RIGHT or LEFT; None for an outdated or file-level comment


class _IssueComment(_Shape):
    id: int
    body: str | None = None
    user: _User | None = None
    html_url: str | None = None


class _Review(_Shape):
    id: int
    body: str | None = None
    user: _User | None = None
    state: str | None = None
    html_url: str | None = None


class _Status(_Shape):
    context: str | None = None
    state: str | None = None
    description: str | None = None
    creator: _User | None = None


class _Created(_Shape):
    id: int
    html_url: str | None = None


class _CheckOutput(_Shape):
    annotations_count: int | None = None


class _CheckRun(_Shape):
    id: int
    output: _CheckOutput | None = None

    @property
    def annotations(self) -> int | None:
        return self.output.annotations_count if self.output else None


class _Failure(Exception):
    """A request that failed, kept inside this module until it is mapped at the boundary."""

    def mapped(self) -> ReviewbotError:
        raise NotImplementedError


class _HTTPError(_Failure):
    """A GitHub error answer, kept inside this module for the fallbacks that inspect it."""

    def __init__(self, *, status: int, message: str, verb: str, path: str) -> None:
        super().__init__(f"{verb} {path}: {status} {message}")
        self.status = status
        self.message = message
        self.verb = verb
        self.path = path

    def mapped(self) -> ReviewbotError:
        what = f"GitHub refused {self.verb} {self.path} ({self.status}): {self.message}"
        if self.status == 401:
            return AuthError(f"{what}; check GITHUB_TOKEN")
        if self.status == 404:
            return NotFoundError(what)
        return GitHubAPIError(what)


class _Lost(_Failure):
    """No answer, or a 5xx to a write: GitHub may or may not have done it."""

    def __init__(self, *, reason: str, verb: str, path: str) -> None:
        super().__init__(f"{verb} {path}: {reason}")
        self.reason = reason
        self.verb = verb
        self.path = path

    def mapped(self) -> ReviewbotError:
        if self.verb == "POST":
            return NetworkError(
                f"GitHub did not answer POST {self.path} ({self.reason}) and reading back "
                "found no trace of it; nothing was posted twice — run the review again"
            )
        return NetworkError(f"GitHub could not be reached or kept failing: {self}")


class _Api:
    """Exact REST calls through the client's Requester, with errors mapped and pages followed."""

    def __init__(self, client: Github, repo: str) -> None:
        self._requester = client.requester
        self._appender: Requester | None = None
        self.base = f"/repos/{repo}"

    def call(self, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._send(verb, self.base + path, body=body)[1]

    def get(self, path: str, params: dict[str, Any]) -> Any:
        return self._send("GET", self.base + path, params=params)[1]

    def write_once(self, path: str, body: dict[str, Any], *, find: Callable[[], Any | None]) -> Any:
        """POST `body`; after a lost answer, `find` it on GitHub and post again only if absent."""
        lost: _Lost | None = None
        for _ in range(WRITE_ATTEMPTS):
            try:
                return self.call("POST", path, body)
            except _Lost as exc:
                lost = exc
            found = find()
            if found is not None:
                return found
        assert lost is not None
        raise lost

    def append(self, path: str, body: dict[str, Any]) -> Any:
        """PATCH a write GitHub appends: never repeated by the client; a lost answer is `_Lost`."""
        if self._appender is None:
            kwargs = self._requester.kwargs
            retry = kwargs["retry"]
            kwargs["retry"] = retry.appending() if isinstance(retry, WriteOnceRetry) else 0
            self._appender = Requester(**kwargs)
        return self._send("PATCH", self.base + path, body=body, requester=self._appender)[1]

    def delete(self, path: str) -> None:
        """DELETE, where a 404 means done: a retry after a lost answer finds it gone."""
        try:
            self.call("DELETE", path)
        except _HTTPError as exc:
            if exc.status != 404:
                raise

    def pages(self, path: str) -> list[Any]:
        items: list[Any] = []
        url: str | None = self.base + path
        params: dict[str, Any] | None = {"per_page": 100}
        for _ in range(MAX_PAGES):
            if url is None:
                break
            headers, data = self._send("GET", url, params=params)
            items.extend(data if isinstance(data, list) else [])
            url, params = _next_link(headers), None
        return items

    def _send(
        self,
        verb: str,
        url: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        requester: Requester | None = None,
    ) -> tuple[dict[str, Any], Any]:
        appends = requester is not None
        try:
            return (requester or self._requester).requestJsonAndCheck(
                verb, url, parameters=params, input=body
            )
        except GithubException as exc:
            if exc.status >= 500 and (verb == "POST" or appends):  # the client does not retry these
                raise _Lost(reason=f"HTTP {exc.status}", verb=verb, path=url) from exc
            raise _HTTPError(
                status=exc.status, message=_message(exc.data), verb=verb, path=url
            ) from exc
        except OSError as exc:  # requests' ConnectionError, Timeout, RetryError, ChunkedEncoding
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__
            raise _Lost(reason=reason, verb=verb, path=url) from exc


def _next_link(headers: dict[str, Any]) -> str | None:
    link = next((str(v) for k, v in headers.items() if k.lower() == "link"), "")
    for part in link.split(","):
        target, _, rel = part.partition(";")
        if 'rel="next"' in rel:
            return target.strip().strip("<>")
    return None


def _message(data: object) -> str:
    """GitHub's error text: `message` plus the `errors` it lists, on one line."""
    if not isinstance(data, dict):
        return str(data)[:500]
    parts = [str(data.get("message", ""))]
    for error in data.get("errors") or ():
        parts.append(str(error.get("message", error)) if isinstance(error, dict) else str(error))
    return "; ".join(p for p in parts if p)[:1000]


# ---- the publisher -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Posted:
    review: _Created | None
    plan: Plan
    event: Event | None
    notes: tuple[str, ...]


class GitHubPublisher:
    """Publishes one finished review to one PR. Constructing it makes no request."""

    def __init__(
        self,
        client: Github,
        repo: str,
        number: int,
        *,
        bot_login: str,
        config: PublishConfig,
        redactor: Redactor,
        sealer: Sealer | None = None,
        pr_author: str | None = None,
        is_writer: Callable[[str], bool] = lambda login: False,
    ) -> None:
        self._api = _Api(client, repo)
        self.repo = repo
        self.number = number
        self.bot_login = bot_login
        self.config = config
        self.redact = redactor
        # Who may /confirm and /dismiss, and how reviewbot recognises its own comments.
        self.trust = Trust(
            bot_login=bot_login, sealer=sealer, pr_author=pr_author, is_writer=is_writer
        )
        self._prior: PriorState | None = None
        self._read: list[CommentRecord] = []

    # -- reading -------------------------------------------------------------------------------

    def load_prior_state(self) -> PriorState:
        """What earlier runs and people left on the PR (read once, then cached)."""
        if self._prior is None:
            try:
                records = self._records()
            except _Failure as exc:
                raise exc.mapped() from exc
            self._prior = read_prior(records, self.trust)
            self._read = records
        return self._prior

    def discussion(self) -> tuple[PRComment, ...]:
        """The PR's comments for the model's context, from the reads of `load_prior_state`.

        Reading them once for both purposes saves the snapshot two listings per run.
        """
        self.load_prior_state()
        issue = [r for r in self._read if r.where is Where.ISSUE]
        inline = [r for r in self._read if r.where is Where.INLINE]
        return tuple(
            PRComment(
                id=r.id,
                author=r.author or "ghost",
                body=r.body,
                path=r.path,
                line=r.line,
                in_reply_to=r.in_reply_to,
            )
            for r in (*issue, *inline)
        )

    def _records(self) -> list[CommentRecord]:
        n = self.number
        records = [
            _record_of_review_comment(c)
            for c in _shapes(self._api.pages(f"/pulls/{n}/comments"), _ReviewComment)
        ]
        records += [
            _record_of_review(r) for r in _shapes(self._api.pages(f"/pulls/{n}/reviews"), _Review)
        ]
        records += [
            _record_of_issue_comment(c)
            for c in _shapes(self._api.pages(f"/issues/{n}/comments"), _IssueComment)
        ]
        return records

    # -- writing -------------------------------------------------------------------------------

    def publish(self, report: Report, snapshot: PRSnapshot) -> Published:
        """Post the review, mark vanished findings resolved, update the summary, set the check."""
        try:
            return self._publish(report, snapshot)
        except _Failure as exc:
            raise exc.mapped() from exc

    def _publish(self, report: Report, snapshot: PRSnapshot) -> Published:
        prior = self.load_prior_state()
        for review_id in prior.pending_reviews:  # a crashed run's PENDING review blocks new ones
            self._api.delete(f"/pulls/{self.number}/reviews/{review_id}")
        link_of = LinkBuilder(
            web_url=_web_url(snapshot), repo=self.repo, head_sha=snapshot.head_sha
        )
        plan = plan_review(
            report.nodes,
            snapshot.diff,
            max_inline=self.config.max_inline_comments,
            posted=prior.posted(),
        )
        notes = _prior_notes(prior)
        posted = _Posted(review=None, plan=plan, event=None, notes=())
        if self._review_needed(report, plan, prior):
            posted = self._post_review(report, plan, snapshot, link_of)
        comments = self._read_back(posted)
        notes.extend(posted.notes)
        vanished, kept = _resolvable(report, _vanished(report, prior, snapshot.head_sha))
        notes.extend(kept)
        notes.extend(self._mark_resolved(vanished, snapshot.head_sha))
        marker = SummaryMarker.of(report, head_sha=snapshot.head_sha, redactor=self.redact)
        summary_id = self._upsert_summary(
            report, posted.plan, [p.node for p in vanished], marker, link_of, notes, prior
        )
        annotations = plan_annotations(
            report.nodes,
            snapshot.diff,
            head_sha=snapshot.head_sha,
            inert=inert_for(self.redact, link_of),
        )
        check_id, status, conclusion, annotated = self._set_check(
            report, snapshot.head_sha, posted.plan, link_of, annotations
        )
        if status and annotations.items:
            notes.append(
                f"Check runs are not permitted for this token: the verdict is a commit status, "
                f"which carries no annotations ({len(annotations.items)} finding(s) were not "
                "annotated; they are in the review and the summary)."
            )
        return Published(
            review_id=posted.review.id if posted.review else None,
            review_url=posted.review.html_url if posted.review else None,
            event=posted.event,
            summary_comment_id=summary_id,
            check_run_id=check_id,
            commit_status=status,
            check_conclusion=conclusion,
            comments=comments,
            in_body=tuple(item.node.id for item in posted.plan.body) if posted.review else (),
            already_posted=tuple(node.id for node in posted.plan.already_posted),
            resolved=tuple(p.node.id for p in vanished),
            annotated=annotated,
            notes=tuple(notes),
        )

    def _review_needed(self, report: Report, plan: Plan, prior: PriorState) -> bool:
        """Skip the review when it would say nothing new: no new finding, same verdict as before."""
        if plan.new_count:
            return True
        marker = prior.summary.marker if prior.summary else None
        return marker is None or marker.verdict != report.verdict.label

    def _post_review(
        self, report: Report, plan: Plan, snapshot: PRSnapshot, link_of: LinkBuilder
    ) -> _Posted:
        verdict = report.verdict
        event: Event = _EVENTS[verdict]
        partial = report.coverage is None or report.coverage.partial
        if event == "APPROVE" and (not self.config.approve or partial):
            event = "COMMENT"  # an approval is a clean pass: never for a partial review
        head = checkout_reader(snapshot.checkout)
        notes: list[str] = []
        for _ in range(3):  # approval refused, comments refused, then the final post
            comments = [
                (item.node.id, self._comment(item.node, item.target, head, link_of))
                for item in plan.inline
            ]
            identity = [snapshot.head_sha, event, [c for _, c in comments], notes]
            identity.append([item.node.fingerprint for item in plan.body])
            marker = f"<!-- {REVIEW_TAG} {snapshot.head_sha}:{_key(identity)} -->"
            fitted = review_text(
                report,
                plan,
                link_of=link_of,
                head=head,
                notes=notes,
                redactor=self.redact,
                tail="\n" + marker,
            )
            try:
                created = self._create_review(
                    snapshot.head_sha, fitted.text, [c for _, c in comments], event, marker=marker
                )
                return _Posted(
                    review=created,
                    plan=_without(plan, fitted.left_out),
                    event=event,
                    notes=(*notes, *_left_out_note(fitted.left_out)),
                )
            except _HTTPError as exc:
                if exc.status != 422:
                    raise
                if event == "APPROVE" and _approval_refused(exc.message):
                    event = "COMMENT"
                    notes.append(
                        f"GitHub refused the approval ({exc.message}); posted as a comment."
                    )
                    continue
                refused = self._bisect(snapshot.head_sha, comments) if comments else []
                if not refused:
                    raise
                plan = plan.reject(refused)
                notes.append(
                    f"GitHub refused {len(refused)} inline comment(s); they are listed in the review body."
                )
        raise GitHubAPIError("GitHub kept refusing the review after the fallbacks")

    def _comment(
        self, node: ReviewNode, target: Target, head: HeadReader, link_of: LinkBuilder
    ) -> dict[str, Any]:
        body = inline_body(node, target, head=head, redactor=self.redact, link_of=link_of)
        payload: dict[str, Any] = {
            "path": target.path,
            "body": seal_body(body, self.trust.sealer),
            "line": target.line,
            "side": target.side,
        }
        if target.start_line is not None:
            payload |= {"start_line": target.start_line, "start_side": target.side}
        return payload

    def _create_review(
        self,
        sha: str,
        body: str | None,
        comments: list[dict[str, Any]],
        event: Event | None,
        *,
        marker: str | None = None,
    ) -> _Created:
        """A submitted review carrying `marker`, or (no event) this run's PENDING probe."""
        payload: dict[str, Any] = {"commit_id": sha, "comments": comments}
        if body is not None:
            payload["body"] = seal_body(body, self.trust.sealer)
        if event is not None:
            payload["event"] = event

        def find() -> Any | None:
            # At most one PENDING review per user: after a lost probe, the bot's is the probe.
            # Otherwise only the bot's LATEST review counts (listed oldest first): an identical
            # review of an earlier run on this head does not stand for this one when a looser
            # review came in between (Block, then Ship, then this Block).
            latest: _Review | None = None
            for review in _shapes(self._api.pages(f"/pulls/{self.number}/reviews"), _Review):
                if not self._mine(review.user):
                    continue
                if review.state == "PENDING":
                    if marker is None:
                        return review.model_dump()
                    continue
                latest = review
            if marker is not None and latest is not None and marker in (latest.body or ""):
                return latest.model_dump()
            return None

        data = self._api.write_once(f"/pulls/{self.number}/reviews", payload, find=find)
        return _Created.model_validate(data)

    def _mine(self, user: _User | None) -> bool:
        return user is not None and user.login.casefold() == self.bot_login.casefold()

    def _bisect(self, sha: str, comments: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
        """The ids of the comments GitHub refuses, found with PENDING reviews deleted again.

        Called on a set known to fail. One pending review per user and PR is allowed,
        so each probe is created and deleted before the next.
        """
        if len(comments) == 1:
            return [comments[0][0]]
        half = len(comments) // 2
        refused: list[str] = []
        for part in (comments[:half], comments[half:]):
            if not self._probe(sha, [c for _, c in part]):
                refused += self._bisect(sha, part)
        return refused

    def _probe(self, sha: str, comments: list[dict[str, Any]]) -> bool:
        try:
            pending = self._create_review(sha, None, comments, None)
        except _HTTPError as exc:
            if exc.status == 422:
                return False
            raise
        self._api.delete(f"/pulls/{self.number}/reviews/{pending.id}")
        return True

    def _read_back(self, posted: _Posted) -> tuple[PublishedComment, ...]:
        """Each inline comment as GitHub stored it: `landed` when found on its planned line."""
        if posted.review is None or not posted.plan.inline:
            return ()
        path = f"/pulls/{self.number}/reviews/{posted.review.id}/comments"
        stored: dict[str, _ReviewComment] = {}
        for comment in _shapes(self._api.pages(path), _ReviewComment):
            origin = f"read-back of review comment {comment.id}"
            found = read_boundary(
                find_markers(comment.body or "", NODE_TAG), ReviewNode, origin=origin
            )
            stored.update({node.fingerprint: comment for node in found.valid})
        out = []
        for item in posted.plan.inline:
            target, got = item.target, stored.get(item.node.fingerprint)
            landed = (
                got is not None
                and got.path == target.path
                and got.line == target.line
                and got.start_line == target.start_line
                and (got.side or "RIGHT") == target.side
            )
            out.append(
                PublishedComment(
                    node_id=item.node.id,
                    path=target.path,
                    line=target.line,
                    start_line=target.start_line,
                    comment_id=got.id if got else None,
                    landed=landed,
                )
            )
        return tuple(out)

    def _mark_resolved(self, vanished: Sequence[PriorNode], head_sha: str) -> list[str]:
        """Edit the comments that carry vanished findings: one edit per comment, at most 10 a run."""
        by_comment: dict[tuple[Where, int], list[PriorNode]] = {}
        for prior in vanished:
            by_comment.setdefault((prior.where, prior.comment_id), []).append(prior)
        edits = list(by_comment.items())
        skipped: list[int] = []
        for (where, comment_id), priors in edits[:MAX_RESOLVE_EDITS]:
            fingerprints = {p.node.fingerprint for p in priors}
            banner = f"✅ **Resolved** — no longer reported on `{head_sha[:12]}`."
            on_top = where is Where.INLINE  # the whole comment is the finding
            body = resolved_body(
                priors[0].body, fingerprints, banner, on_top=on_top, redactor=self.redact
            )
            if body is None:  # it cannot fit with every marker: left as it is, said so
                skipped.append(comment_id)
                continue
            body = seal_body(body, self.trust.sealer, at=location(where, comment_id))
            if on_top:
                self._api.call("PATCH", f"/pulls/comments/{comment_id}", {"body": body})
            else:
                self._api.call("PUT", f"/pulls/{self.number}/reviews/{comment_id}", {"body": body})
        notes = [
            f"Comment {comment_id} was not marked resolved: it is too long to edit without "
            "cutting a finding's marker."
            for comment_id in skipped
        ]
        left = len(edits) - MAX_RESOLVE_EDITS
        if left > 0:
            notes.append(
                f"{left} more comment(s) with resolved findings will be marked on the next run."
            )
        return notes

    def _upsert_summary(
        self,
        report: Report,
        plan: Plan,
        resolved: Sequence[ReviewNode],
        marker: SummaryMarker,
        link_of: LinkBuilder,
        notes: Sequence[str],
        prior: PriorState,
    ) -> int:
        body = summary_body(
            report,
            plan=plan,
            resolved=resolved,
            marker=marker,
            link_of=link_of,
            notes=notes,
            redactor=self.redact,
        )
        sealer = self.trust.sealer
        if prior.summary is not None:
            summary_id = prior.summary.comment_id
            body = seal_body(body, sealer, at=location(Where.ISSUE, summary_id))
            self._api.call("PATCH", f"/issues/comments/{summary_id}", {"body": body})
            return summary_id
        body = seal_body(body, sealer)
        # The marker names the head, the verdict and the axes: this run's summary, no other.
        mark = summary_marker(marker, redactor=self.redact)

        def find() -> Any | None:
            listing = _shapes(self._api.pages(f"/issues/{self.number}/comments"), _IssueComment)
            found = (c for c in listing if self._mine(c.user) and mark in (c.body or ""))
            return next((c.model_dump() for c in found), None)

        data = self._api.write_once(f"/issues/{self.number}/comments", {"body": body}, find=find)
        return _Created.model_validate(data).id

    def _set_check(
        self,
        report: Report,
        head_sha: str,
        plan: Plan,
        link_of: LinkBuilder,
        annotations: Annotations,
    ) -> tuple[int | None, bool, Conclusion, tuple[str, ...]]:
        """A check run carrying the verdict and the annotations; a commit status when check runs
        are not permitted. Also returns the ids of the nodes annotated."""
        conclusion, qualifier = _gate(report, advisory_hold=self.config.advisory_hold)
        # GitHub shows the title as plain text: untrusted reasons only lose invisibles and newlines.
        title = finish(plain(_check_title(report, qualifier)), self.redact, limit=1_000)
        summary = summary_body(
            report,
            plan=plan,
            link_of=link_of,
            redactor=self.redact,
            limit=MAX_CHECK_TEXT,
            pointer=TRUNCATED_CHECK,
            notes=annotations.notes(),
        )
        output = {"title": title, "summary": summary}
        first = annotations.items[:PER_REQUEST]
        payload: dict[str, Any] = {
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": {**output, **({"annotations": _payloads(first)} if first else {})},
        }
        payload["external_id"] = f"{CHECK_NAME}:{head_sha[:12]}:{_key(payload)}"

        def find() -> Any | None:
            params = {"check_name": CHECK_NAME, "filter": "all", "per_page": 100}
            data = self._api.get(f"/commits/{head_sha}/check-runs", params)
            runs = data.get("check_runs") if isinstance(data, dict) else None
            found = [r for r in runs or () if isinstance(r, dict) and isinstance(r.get("id"), int)]
            # Only the newest `reviewbot` run counts: it is the one a required check reads.
            newest = max(found, key=lambda r: int(r["id"]), default=None)
            same = newest is not None and newest.get("external_id") == payload["external_id"]
            return newest if same else None

        try:
            data = self._api.write_once("/check-runs", payload, find=find)
        except _HTTPError as exc:
            if exc.status != 403:
                raise
            # No neutral for statuses: the status passes exactly when the check run would
            # (an advisory Hold → success, every other Hold → failure); see the docstring.
            state = "failure" if conclusion == "failure" else "success"
            status = {
                "state": state,
                "context": CHECK_NAME,
                "description": _status_description(report, qualifier, self.redact),
            }
            self._api.write_once(
                f"/statuses/{head_sha}", status, find=lambda: self._find_status(head_sha, status)
            )
            return None, True, conclusion, ()
        run = _CheckRun.model_validate(data)
        stored = self._annotate(run, output, annotations.items, sent=len(first))
        return run.id, False, conclusion, tuple(a.node_id for a in annotations.items[:stored])

    def _annotate(
        self, run: _CheckRun, output: dict[str, Any], items: Sequence[Annotation], *, sent: int
    ) -> int:
        """Append the annotations `run` does not hold yet, 50 a PATCH; how many it holds.

        GitHub appends what each PATCH carries, so after a lost answer the count GitHub
        reports is read back and only the annotations it lacks are sent again.
        """
        path = f"/check-runs/{run.id}"
        # The created (or read-back) run is the one whose external_id covers the first batch.
        stored = max(run.annotations or 0, sent)
        misses = 0  # lost answers in a row whose batch the read-back did not find
        for _ in range(len(remaining(items, stored)) * WRITE_ATTEMPTS):
            batches = remaining(items, stored)
            if not batches:
                break
            body = {"output": {**output, "annotations": _payloads(batches[0])}}
            try:
                answer = _CheckRun.model_validate(self._api.append(path, body))
            except _Lost as exc:
                found = _CheckRun.model_validate(self._api.get(path, {})).annotations or 0
                misses = misses + 1 if found <= stored else 0
                if misses >= WRITE_ATTEMPTS:
                    raise exc
                stored = max(found, stored)
                continue
            misses = 0
            stored = max(answer.annotations or 0, stored + len(batches[0]))
        return min(stored, len(items))

    def _find_status(self, head_sha: str, status: dict[str, Any]) -> Any | None:
        """The bot's newest status of `head_sha` with this context, if it says what we post.

        GitHub lists statuses newest first, and the newest of a context is the one a required
        check reads: an identical earlier status does not stand for this one.
        """
        listing = self._api.get(f"/commits/{head_sha}/statuses", {"per_page": 100})
        for item in _shapes(listing if isinstance(listing, list) else [], _Status):
            if item.context == status["context"] and self._mine(item.creator):
                same = (item.state, item.description) == (status["state"], status["description"])
                return item.model_dump() if same else None
        return None


def _payloads(batch: Sequence[Annotation]) -> list[dict[str, Any]]:
    return [annotation.payload() for annotation in batch]


def _without(plan: Plan, left_out: Sequence[str]) -> Plan:
    """`plan` minus the listed findings the review body had no room for (not posted at all)."""
    if not left_out:
        return plan
    body = tuple(item for item in plan.body if item.node.id not in set(left_out))
    return Plan(inline=plan.inline, body=body, already_posted=plan.already_posted, quiet=plan.quiet)


def _left_out_note(left_out: Sequence[str]) -> tuple[str, ...]:
    if not left_out:
        return ()
    return (
        f"{len(left_out)} finding(s) did not fit in the review body (GitHub's size limit); "
        "the next review posts them.",
    )


def _key(identity: object) -> str:
    """A short hash of what one write says: equal writes, equal keys; any difference, another."""
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


Conclusion = Literal["success", "neutral", "failure"]


def check_conclusion(report: Report, *, advisory_hold: bool = False) -> Conclusion:
    """The `reviewbot` check's conclusion: only a fully covered Ship (or an advisory Hold) passes."""
    return _gate(report, advisory_hold=advisory_hold)[0]


def _gate(report: Report, *, advisory_hold: bool) -> tuple[Conclusion, str]:
    """The conclusion and what it means next to the verdict's name (see the module docstring).

    GitHub counts `success`, `neutral` and `skipped` as passing a required check, so
    everything that must keep a PR unmergeable is `failure`. Partial or unreported
    coverage is never a pass, whatever the verdict and `advisory_hold`.
    """
    verdict, gap = report.verdict, _coverage_gap(report)
    if verdict is Verdict.BLOCK:
        return "failure", ""
    if verdict is Verdict.SHIP:
        return ("success", "") if gap is None else ("failure", f", not a clean pass ({gap})")
    if gap is not None:
        return "failure", f" (blocks merge: {gap})"
    if advisory_hold:
        return "neutral", " (advisory)"
    return "failure", " (blocks merge)"


def _coverage_gap(report: Report) -> str | None:
    if report.coverage is None:
        return "coverage was not reported"
    return "coverage is partial" if report.coverage.partial else None


def _check_title(report: Report, qualifier: str) -> str:
    label = VERDICT_LABEL[report.verdict]
    return f"{label}{qualifier}: {deciding(report)[0]}"


def _status_description(report: Report, qualifier: str, redactor: Redactor) -> str:
    """`Hold (blocks merge): …`: what the status stands for, in GitHub's 140 characters."""
    label = report.verdict.name.capitalize()
    text = plain(redactor(f"{label}{qualifier}: {deciding(report)[0]}"))  # plain text on GitHub
    if len(text) <= MAX_STATUS_DESCRIPTION:
        return text
    return text[: MAX_STATUS_DESCRIPTION - 1].rstrip() + "…"


def _approval_refused(message: str) -> bool:
    text = message.casefold()
    return any(refusal in text for refusal in _APPROVAL_REFUSALS)


def _prior_notes(prior: PriorState) -> list[str]:
    """What reading the PR's earlier comments applied and ignored, for the notes of the summary."""
    notes: list[str] = []
    if not prior.sealed:
        notes.append(
            "No key to seal reviewbot's comments with (REVIEWBOT_MARKER_KEY or ANTHROPIC_API_KEY): "
            "earlier findings were not recognised, and the next run will not recognise these."
        )
    if prior.untrusted_markers:
        notes.append(
            f"Ignored {prior.untrusted_markers} reviewbot marker(s) in comments by other accounts."
        )
    if prior.unsealed_markers:
        notes.append(
            f"Ignored {prior.unsealed_markers} reviewbot marker(s) in comments without reviewbot's "
            "seal (posted by another workflow as the same account, or by a run without the key)."
        )
    if prior.discarded:
        notes.append(f"Discarded {len(prior.discarded)} malformed reviewbot marker(s).")
    notes.extend(_decision_notes(prior))
    return notes


def _decision_notes(prior: PriorState) -> list[str]:
    """Who confirmed or dismissed what, and which commands were ignored and why."""
    titles = {fp: p.node for fp, p in prior.by_fingerprint().items()}
    notes = []
    for decision in prior.decisions:
        node = titles.get(decision.fingerprint)
        what = f"{node.priority.value} “{node.title}”" if node else decision.fingerprint
        said = f": {decision.event.reason[:200]}" if decision.event.reason else ""
        verb = "confirmed" if decision.event.action is Action.CONFIRM else "dismissed"
        notes.append(f"`{decision.login}` {verb} {what}{said}")
    if prior.ignored:
        reasons: dict[str, list[str]] = {}
        for command in prior.ignored:
            reasons.setdefault(command.why, []).append(f"`{command.login}`")
        why = "; ".join(
            f"{len(logins)} by an account that {why} ({', '.join(dict.fromkeys(logins))})"
            for why, logins in reasons.items()
        )
        notes.append(f"Ignored {len(prior.ignored)} /confirm or /dismiss: {why}.")
    return notes


def _could_resolve(report: Report) -> bool:
    """Whether this run could find anything again: every reviewer ran to a normal end."""
    reviewers = [agent for agent in report.agents if agent.role == Role.REVIEWER]
    return (
        bool(reviewers)
        and all(agent.stop_reason.completed for agent in reviewers)
        and report.coverage is not None
    )


def _resolvable(report: Report, vanished: Sequence[PriorNode]) -> tuple[list[PriorNode], list[str]]:
    """The vanished findings that count as fixed, and notes on those that stay open.

    Per file: a finding resolves only when this run saw where it was (`Coverage.covers`),
    so padding one file past the context budget resolves nothing in that file.
    """
    if not vanished:
        return [], []
    coverage = report.coverage
    if coverage is None or not _could_resolve(report):
        return [], [
            f"{len(vanished)} earlier finding(s) were not reported again, but this run did not "
            "review the whole PR to a normal end, so none is marked resolved."
        ]
    seen: list[PriorNode] = []
    unseen: list[PriorNode] = []
    for prior in vanished:
        path = prior.node.anchor.path if prior.node.anchor else None
        (seen if coverage.covers(path) else unseen).append(prior)
    if not unseen:
        return seen, []
    return seen, [
        f"{len(unseen)} earlier finding(s) were not reported again, but they are in files (or "
        "about parts of the PR) this run did not see, so they stay open."
    ]


def _vanished(report: Report, prior: PriorState, head_sha: str) -> list[PriorNode]:
    """Earlier findings absent from this run, on a NEW head (the same head proves nothing fixed)."""
    current = {node.fingerprint for node in report.nodes}
    out = []
    for fingerprint, found in prior.by_fingerprint().items():
        node = found.node
        same_head = node.commit_sha is not None and head_sha.startswith(node.commit_sha)
        if fingerprint not in current and node.status in _OPEN and not same_head:
            out.append(found)
    return out


def _web_url(snapshot: PRSnapshot) -> str:
    parts = urlsplit(snapshot.url or "")
    if parts.scheme and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return "https://github.com"


_S = TypeVar("_S", bound=_Shape)


def _shapes(items: list[Any], shape: type[_S]) -> list[_S]:
    """Items of a listing as `shape`; an item GitHub sent malformed is skipped, not fatal."""
    out = []
    for item in items:
        try:
            out.append(shape.model_validate(item))
        except ValidationError:
            continue
    return out


def _record_of_review_comment(c: _ReviewComment) -> CommentRecord:
    return CommentRecord(
        id=c.id,
        where=Where.INLINE,
        author=c.user.login if c.user else None,
        body=c.body or "",
        in_reply_to=c.in_reply_to_id,
        path=c.path,
        line=c.line,
        start_line=c.start_line,
    )


def _record_of_review(r: _Review) -> CommentRecord:
    return CommentRecord(
        id=r.id,
        where=Where.REVIEW,
        author=r.user.login if r.user else None,
        body=r.body or "",
        state=r.state,
    )


def _record_of_issue_comment(c: _IssueComment) -> CommentRecord:
    return CommentRecord(
        id=c.id,
        where=Where.ISSUE,
        author=c.user.login if c.user else None,
        body=c.body or "",
    )
