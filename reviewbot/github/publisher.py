"""The write side of GitHub: one review, one summary comment, one check run per run.

Written against the `GitHubClient` Protocol (reviewbot/github/rest.py; github/client.py owns
PyGithub, retries and the error mapping), with exact, explicit requests, so the calls
a run makes are the ones listed here:

    reads  GET  /pulls/{n}/comments, /pulls/{n}/reviews, /issues/{n}/comments  (paginated,
                github/reader.py `fetch_comment_records`)
    0      POST /graphql, PATCH /pulls/comments/{id}
                                                   returning findings reopened in their own comment:
                                                   its thread unresolved, then the comment edited
                                                   back to open (github/edits.py; only when one is)
    1      POST /pulls/{n}/reviews                 the review: body, event, every NEW inline comment
           (skipped when nothing is new and the verdict equals the prior summary's)
    2      PUT /pulls/{n}/reviews/{id}/dismissals  reviewbot's own earlier approvals, when this
                                                   head is not a Ship (github/approval.py)
           PATCH /pulls/comments/{id}, PUT /pulls/{n}/reviews/{id}
                                                   vanished findings marked resolved (≤ 10 edits a
                                                   run with the reopens, github/edits.py)
    3      PATCH /issues/comments/{id} or POST /issues/{n}/comments    the summary, edited in place
           POST /graphql                           their threads resolved (a person's reply keeps one
                                                   open: github/threads.py)
    4      POST /check-runs  (403 → POST /statuses/{sha})             the verdict for branch protection,
                                                   with the first 50 findings as annotations
    5      PATCH /check-runs/{id}                  the next annotations, 50 a request (≤ 2 PATCHes:
                                                   ≤ 150 a run, see publish/annotations.py)

The check's conclusion is publish/conclusion.py's; which vanished findings resolve is
review/resolution.py's, which returning ones are reopened publish/placement.py's. A Ship with
partial coverage is posted as COMMENT, never APPROVE.

A finding is never posted twice, and has one open thread: a resolved finding found again is
reopened in its earlier inline comment while the head's diff shows that comment on the
finding's lines, and posted anew otherwise (its old thread then stays resolved, as history).

Every write happens once. The client never retries a POST blindly; when a write's
answer is lost (GitHub may or may not have stored it), `write_once` reads back what
carries this write's identity — the review's `reviewbot:review` marker (head and a
key of its content), the summary's marker, the check run's `external_id`, the
status's context and text, the bot's PENDING probe — and posts again only when it is
absent. A write that cannot be confirmed ends the run with one line (exit 5). PUT,
PATCH and DELETE are idempotent and retried as they are; a DELETE answered 404 was
already done. The exception is the PATCH that appends annotations (GitHub adds what
each one carries): it is never repeated by the client (`GitHubClient.append`); after a
lost answer the check run's `output.annotations_count` is read back and only the
annotations GitHub does not hold are sent again. A commit status (the fallback)
carries no annotations: the publisher's notes say so.

Failure paths add calls that do not grow with the findings either: an approval
GitHub refuses is re-posted as COMMENT; a 422 for the review (GitHub does not say
which comment) bisects the inline comments with PENDING reviews that are deleted
again, then posts the rest and moves the refused ones into the body.

Must not: decide placement (`publish/placement.py`), write markdown (`publish/body.py`), or import PyGithub.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from reviewbot.config.file import PublishConfig
from reviewbot.errors import HeadMoved
from reviewbot.github.answers import IssueComment, ReviewComment, shapes
from reviewbot.github.approval import (
    Dismissal,
    approvable,
    dismiss_approvals,
    own_approvals,
    unverified_approvals,
)
from reviewbot.github.edits import CommentEditor
from reviewbot.github.reader import fetch_comment_records
from reviewbot.github.rest import GitHubClient, GitHubRefusal, GitHubUnreachable, api_path
from reviewbot.github.review_write import Posted, ReviewWriter
from reviewbot.github.shapes import CheckRun, Created, RepoApi, StatusShape, key
from reviewbot.github.threads import ThreadChanges, settle_threads
from reviewbot.memory.markers import (
    NODE_TAG,
    SummaryMarker,
    find_markers,
    seal_body,
    summary_marker,
)
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import PriorState, Trust, prior_notes
from reviewbot.memory.read import Memory, read_memory
from reviewbot.memory.seal import Sealer
from reviewbot.nodes.boundary import read_boundary
from reviewbot.nodes.model import ReviewNode
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
    finish,
    inert_for,
    summary_body,
)
from reviewbot.publish.conclusion import (
    Conclusion,
    check_title,
    conclusion_and_qualifier,
    status_description,
)
from reviewbot.publish.inert import plain
from reviewbot.publish.learned import suppressed_by_learnings
from reviewbot.publish.placement import (
    LinkBuilder,
    Placement,
    inline_rules,
    place_nodes,
    web_url_of,
)
from reviewbot.publish.resolution import Edit, edits_left, resolution_edits, resolved_here
from reviewbot.redact import Redactor
from reviewbot.results.report import Published, PublishedComment, Report
from reviewbot.review.resolution import Resolution, owed_note, resolution
from reviewbot.sources.ci import CHECK_NAME
from reviewbot.sources.comments import Where, location
from reviewbot.sources.snapshot import PRSnapshot

APPEND_ATTEMPTS = 3  # lost answers in a row to an annotations PATCH before the run gives up


class GitHubPublisher:
    """Publishes one finished review to one PR. Constructing it makes no request."""

    def __init__(
        self,
        client: GitHubClient,
        repo: str,
        number: int,
        *,
        bot_login: str,
        config: PublishConfig,
        redactor: Redactor,
        sealer: Sealer | None = None,
        pr_author: str | None = None,
        is_writer: Callable[[str], bool] = lambda login: False,
        still_head: Callable[[], None] = lambda: None,
    ) -> None:
        """`still_head` raises `HeadMoved` when the PR's head is no longer the reviewed one:
        asked after the review is posted, before the summary, resolutions and check run."""
        self._api = RepoApi(client, repo)
        self._still_head = still_head
        self.repo = repo
        self.number = number
        self.bot_login = bot_login
        self.config = config
        self.redact = redactor
        # Who may /confirm and /dismiss, and how reviewbot recognises its own comments.
        self.trust = Trust(
            bot_login=bot_login, sealer=sealer, pr_author=pr_author, is_writer=is_writer
        )
        self._reviews = ReviewWriter(
            self._api,
            number,
            config=config,
            redactor=redactor,
            sealer=sealer,
            bot_login=bot_login,
        )
        self._edits = CommentEditor(self._api, number, sealer=sealer, redactor=redactor)
        self._memory: Memory | None = None

    # -- reading -------------------------------------------------------------------------------

    def remember(self) -> Memory:
        """What earlier runs and people left on the PR, read once, then cached.

        A run reads it before the review (`memory.read.read_memory`) and hands it to
        `publish`; this is for callers that publish without reading first.
        """
        if self._memory is None:
            records = fetch_comment_records(self._api.client, self.repo, self.number)
            self._memory = read_memory(records, self.trust)
        return self._memory

    def load_prior_state(self) -> PriorState:
        return self.remember().prior

    # -- writing -------------------------------------------------------------------------------

    def publish(
        self, report: Report, snapshot: PRSnapshot, memory: Memory | None = None
    ) -> Published:
        """Post the review, resolve vanished findings, update the summary, set the check."""
        self._memory = memory or self.remember()  # what the run read before its review
        prior = self._memory.prior
        link_of = LinkBuilder(
            web_url=web_url_of(snapshot.url), repo=self.repo, head_sha=snapshot.head_sha
        )
        settled = resolution(
            report.nodes, report.coverage, report.agents, prior=prior, head_sha=snapshot.head_sha
        )
        # All or nothing in effect: what this report makes (the summary's marker and text, the
        # check run's, the annotations, the resolutions) is built before the first write, so
        # nothing can fail between them and leave a review without its summary and check run.
        edits = resolution_edits(settled.now, snapshot.head_sha, redactor=self.redact)
        plan = self._plan(report, snapshot, prior, edits=edits_left(edits))
        annotations = self._annotations(report, snapshot, link_of)
        marker = self._marker(report, snapshot.head_sha, prior, edits)
        self._summary_text(report, plan, [p.node for p in settled.now], marker, link_of, ())
        self._check_output(report, plan, link_of, annotations, Dismissal())
        notes = prior_notes(prior)
        # Before the review: a comment it cannot edit is posted there instead.
        plan, reopened = self._edits.reopen(plan, self._settle)
        posted = self._post_review(report, plan, snapshot, prior, link_of)
        comments = self._read_back(posted)
        self._still_head_after(posted, report, snapshot.head_sha)
        notes.extend(posted.notes)
        dismissal = self._dismiss_approvals(report, snapshot.head_sha)
        notes.extend(dismissal.notes())
        gone, threads = self._resolve(report, settled, edits, notes, reopened)
        summary_id = self._upsert_summary(
            report, posted.plan, [p.node for p in gone], marker, link_of, notes, prior
        )
        check_id, status, conclusion, annotated = self._set_check(
            report, snapshot.head_sha, posted.plan, link_of, annotations, dismissal
        )
        notes.extend(_status_notes(status, annotations))
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
            resolved=tuple(p.node.id for p in gone),
            reopened=tuple(item.node.id for item in plan.reopened),
            **threads.published(),
            annotated=annotated,
            dismissed_approvals=dismissal.dismissed,
            standing_approvals=tuple(review_id for review_id, _ in dismissal.standing),
            notes=tuple(notes),
        )

    def _marker(
        self, report: Report, head_sha: str, prior: PriorState, edits: Sequence[Edit]
    ) -> SummaryMarker:
        """What the summary records for the next run, the findings it resolves itself too."""
        marker = SummaryMarker.of(
            report, head_sha=head_sha, redactor=self.redact, posted_at=prior.posted_at()
        )
        here = resolved_here(prior, edits)
        return marker.model_copy(update={"resolved_here": here})

    def _plan(
        self, report: Report, snapshot: PRSnapshot, prior: PriorState, *, edits: int
    ) -> Placement:
        """Where each finding goes: inline, in the body, its earlier comment reopened (at most
        `edits`), or nowhere (posted already)."""
        # A re-review: a later push of a PR reviewbot reviewed before (not a re-run of that head).
        rereview = prior.reviewed_head() not in (None, snapshot.head_sha)
        return place_nodes(
            report.nodes,
            snapshot.diff,
            max_inline=inline_rules(self.config, rereview=rereview),
            posted=prior.posted(),
            suppressed=suppressed_by_learnings(report),
            reopen=prior.reopenable(),
            edits=edits,
        )

    def _annotations(
        self, report: Report, snapshot: PRSnapshot, link_of: LinkBuilder
    ) -> Annotations:
        return plan_annotations(
            report.nodes,
            snapshot.diff,
            head_sha=snapshot.head_sha,
            inert=inert_for(self.redact, link_of),
            rebased=frozenset(report.review.carried_ids if report.review else ()),
        )

    def _post_review(
        self,
        report: Report,
        plan: Placement,
        snapshot: PRSnapshot,
        prior: PriorState,
        link_of: LinkBuilder,
    ) -> Posted:
        """The run's one review (skipped when it would say nothing new), after a crash's leftovers."""
        for review_id in prior.pending_reviews:  # a crashed run's PENDING review blocks new ones
            self._api.delete(f"/pulls/{self.number}/reviews/{review_id}")
        if not self._review_needed(report, plan, prior):
            return Posted(review=None, plan=plan, event=None, notes=())
        return self._reviews.post(report, plan, snapshot, link_of)

    def _still_head_after(self, posted: Posted, report: Report, head_sha: str) -> None:
        """A push since: HeadMoved, and nothing more that belongs to the PR now. An approval
        this run just posted is of a head that is no longer the PR's: it stops counting."""
        try:
            self._still_head()
        except HeadMoved:
            if posted.review is not None and posted.event == "APPROVE":
                ids = [posted.review.id]
                dismiss_approvals(
                    self._api, self.number, ids, head_sha=head_sha, verdict=report.verdict
                )
            raise

    def _dismiss_approvals(self, report: Report, head_sha: str) -> Dismissal:
        """reviewbot's own earlier approvals stop counting once a head is not a clean Ship;
        an approval by its account that it cannot verify as its own stands (the check fails)."""
        if approvable(report):
            return Dismissal()
        login, sealer = self.bot_login, self.trust.sealer
        done = dismiss_approvals(
            self._api,
            self.number,
            own_approvals(self.remember().comments, bot_login=login, sealer=sealer),
            head_sha=head_sha,
            verdict=report.verdict,
        )
        unverified = unverified_approvals(self.remember().comments, bot_login=login, sealer=sealer)
        return replace(done, standing=done.standing + unverified)

    def _review_needed(self, report: Report, plan: Placement, prior: PriorState) -> bool:
        """Skip the review when it would say nothing new: no new finding, same verdict as before."""
        if plan.new_count:
            return True
        marker = prior.summary.marker if prior.summary else None
        return marker is None or marker.verdict != report.verdict.label

    def _read_back(self, posted: Posted) -> tuple[PublishedComment, ...]:
        """Each inline comment as GitHub stored it: `landed` when found on its planned line."""
        if posted.review is None or not posted.plan.inline:
            return ()
        path = f"/pulls/{self.number}/reviews/{posted.review.id}/comments"
        stored: dict[str, ReviewComment] = {}
        for comment in shapes(self._api.pages(path), ReviewComment):
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

    def _resolve(
        self,
        report: Report,
        settled: Resolution,
        edits: Sequence[Edit],
        notes: list[str],
        reopened: ThreadChanges,
    ) -> tuple[list[PriorNode], ThreadChanges]:
        """Mark this run's resolutions (`resolution.resolution`) and resolve their review threads
        (github/threads.py); what it marked and what it did to threads with what the reopens did
        (`reopened`), notes added."""
        notes.extend(settled.notes)
        if report.review is not None and report.review.resolve_later:  # (this run kept them)
            notes.append(owed_note(len(report.review.resolve_later)))
        gone, marked = self._edits.mark_resolved(edits)
        notes.extend(marked)
        threads = reopened + self._settle(
            [p.comment_id for p in gone if p.where is Where.INLINE], ()
        )
        notes.extend(threads.notes)
        return gone, threads

    def _settle(
        self, resolve: Collection[int], reopen: Collection[int], *, undo: Collection[int] = ()
    ) -> ThreadChanges:
        """Resolve, unresolve and resolve again review threads by root comment id
        (github/threads.py)."""
        return settle_threads(
            self._api.client, self.repo, self.number, resolve=resolve, reopen=reopen,
            bot_login=self.bot_login, undo=undo,
        )  # fmt: skip

    def _upsert_summary(
        self,
        report: Report,
        plan: Placement,
        resolved: Sequence[ReviewNode],
        marker: SummaryMarker,
        link_of: LinkBuilder,
        notes: Sequence[str],
        prior: PriorState,
    ) -> int:
        body = self._summary_text(report, plan, resolved, marker, link_of, notes)
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
            listing = shapes(self._api.pages(f"/issues/{self.number}/comments"), IssueComment)
            found = (c for c in listing if self._reviews.mine(c.user) and mark in (c.body or ""))
            return next((c.model_dump() for c in found), None)

        data = self._api.write_once(f"/issues/{self.number}/comments", {"body": body}, find=find)
        return Created.model_validate(data).id

    def _summary_text(
        self,
        report: Report,
        plan: Placement,
        resolved: Sequence[ReviewNode],
        marker: SummaryMarker,
        link_of: LinkBuilder,
        notes: Sequence[str],
    ) -> str:
        return summary_body(
            report,
            plan=plan,
            resolved=resolved,
            marker=marker,
            link_of=link_of,
            notes=notes,
            redactor=self.redact,
        )

    def _check_output(
        self,
        report: Report,
        plan: Placement,
        link_of: LinkBuilder,
        annotations: Annotations,
        dismissal: Dismissal,
    ) -> tuple[Conclusion, str, dict[str, Any]]:
        """The check run's conclusion, qualifier and output (title and summary)."""
        conclusion, qualifier = conclusion_and_qualifier(
            report,
            advisory_hold=self.config.advisory_hold,
            approval_stands=bool(dismissal.standing),
        )
        # GitHub shows the title as plain text: untrusted reasons only lose invisibles and newlines.
        title = finish(plain(check_title(report, qualifier)), self.redact, limit=1_000)
        summary = summary_body(
            report,
            plan=plan,
            link_of=link_of,
            redactor=self.redact,
            limit=MAX_CHECK_TEXT,
            pointer=TRUNCATED_CHECK,
            notes=annotations.notes(),
        )
        return conclusion, qualifier, {"title": title, "summary": summary}

    def _set_check(
        self,
        report: Report,
        head_sha: str,
        plan: Placement,
        link_of: LinkBuilder,
        annotations: Annotations,
        dismissal: Dismissal,
    ) -> tuple[int | None, bool, Conclusion, tuple[str, ...]]:
        """A check run carrying the verdict and the annotations; a commit status when check runs
        are not permitted. Also returns the ids of the nodes annotated."""
        conclusion, qualifier, output = self._check_output(
            report, plan, link_of, annotations, dismissal
        )
        first = annotations.items[:PER_REQUEST]
        payload: dict[str, Any] = {
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": {**output, **({"annotations": _payloads(first)} if first else {})},
        }
        external_id = payload["external_id"] = f"{CHECK_NAME}:{head_sha[:12]}:{key(payload)}"
        try:
            data = self._api.write_once(
                "/check-runs", payload, find=lambda: self._find_check_run(head_sha, external_id)
            )
        except GitHubRefusal as exc:
            if exc.status != 403:
                raise
            self._set_status(report, head_sha, conclusion, qualifier)
            return None, True, conclusion, ()
        run = CheckRun.model_validate(data)
        stored = self._annotate(run, output, annotations.items, sent=len(first))
        return run.id, False, conclusion, tuple(a.node_id for a in annotations.items[:stored])

    def _find_check_run(self, head_sha: str, external_id: str) -> Any | None:
        params = {"check_name": CHECK_NAME, "filter": "all", "per_page": 100}
        data = self._api.get(api_path("commits", head_sha, "check-runs"), params)
        runs = data.get("check_runs") if isinstance(data, dict) else None
        found = [r for r in runs or () if isinstance(r, dict) and isinstance(r.get("id"), int)]
        # Only the newest `reviewbot` run counts: it is the one a required check reads.
        newest = max(found, key=lambda r: int(r["id"]), default=None)
        return newest if newest is not None and newest.get("external_id") == external_id else None

    def _set_status(
        self, report: Report, head_sha: str, conclusion: Conclusion, qualifier: str
    ) -> None:
        """The commit status standing in for a check run GitHub did not permit (a 403)."""
        # No neutral for statuses: the status passes exactly when the check run would
        # (an advisory Hold → success, every other Hold → failure); see the docstring.
        status = {
            "state": "failure" if conclusion == "failure" else "success",
            "context": CHECK_NAME,
            "description": status_description(report, qualifier, self.redact),
        }
        self._api.write_once(
            api_path("statuses", head_sha), status, find=lambda: self._find_status(head_sha, status)
        )

    def _annotate(
        self, run: CheckRun, output: dict[str, Any], items: Sequence[Annotation], *, sent: int
    ) -> int:
        """Append the annotations `run` does not hold yet, 50 a PATCH; how many it holds.

        GitHub appends what each PATCH carries, so after a lost answer the count GitHub
        reports is read back and only the annotations it lacks are sent again.
        """
        path = f"/check-runs/{run.id}"
        # The created (or read-back) run is the one whose external_id covers the first batch.
        stored = max(run.annotations or 0, sent)
        misses = 0  # lost answers in a row whose batch the read-back did not find
        for _ in range(len(remaining(items, stored)) * APPEND_ATTEMPTS):
            batches = remaining(items, stored)
            if not batches:
                break
            body = {"output": {**output, "annotations": _payloads(batches[0])}}
            try:
                answer = CheckRun.model_validate(self._api.append(path, body))
            except GitHubUnreachable:
                found = CheckRun.model_validate(self._api.get(path, {})).annotations or 0
                misses = misses + 1 if found <= stored else 0
                if misses >= APPEND_ATTEMPTS:
                    raise
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
        listing = self._api.get(api_path("commits", head_sha, "statuses"), {"per_page": 100})
        for item in shapes(listing if isinstance(listing, list) else [], StatusShape):
            if item.context == status["context"] and self._reviews.mine(item.creator):
                same = (item.state, item.description) == (status["state"], status["description"])
                return item.model_dump() if same else None
        return None


def _status_notes(status: bool, annotations: Annotations) -> list[str]:
    if not (status and annotations.items):
        return []
    return [
        f"Check runs are not permitted for this token: the verdict is a commit status, "
        f"which carries no annotations ({len(annotations.items)} finding(s) were not "
        "annotated; they are in the review and the summary)."
    ]


def _payloads(batch: Sequence[Annotation]) -> list[dict[str, Any]]:
    return [annotation.payload() for annotation in batch]
