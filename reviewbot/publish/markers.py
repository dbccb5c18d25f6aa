"""Hidden markers: how a run finds what earlier runs posted on the PR, and what humans said.

Owns the markers reviewbot writes into its GitHub comments and the reading of
them back into review nodes:

    <!-- reviewbot:node {"id":"review-1","kind":"bug",…,"fingerprint":"…"} -->
    <!-- reviewbot:summary {"head_sha":"…","verdict":"hold","axes":[…],"coverage":{…},"nodes":[…]} -->
    <!-- reviewbot:seal {"v":1,"mac":"…"} -->     last in every body reviewbot posts (seal.py)

A node marker is a compact `ReviewNode` (without body, suggestion and quote), so a
later run can rebuild the node state — id, fingerprint, status, priority, kind,
title, anchor — and re-fold a verdict without a model call; the summary marker
keeps the verdict, the axes and the coverage counts of the last review for the
same purpose. Every string of a marker passes through the run's `Redactor` BEFORE
it is escaped (an escaped secret no longer looks like itself, so redacting the
finished comment would miss it). Then every character that could end an HTML
comment early or start another one (`<`, `>`, `&`, `-`) is written as a JSON
`\\u` escape, so the marker stays one hidden HTML comment through GitHub's
markdown rendering whatever the title says.

Trust — how reviewbot recognises what it wrote (the account is not enough: in
Actions every workflow posts as `github-actions[bot]`, and any of them can post a
verbatim copy of a marker):

- A marker counts only in a comment by reviewbot's account whose body carries a
  valid seal (seal.py: a keyed MAC over the whole body, so a copy with other visible
  text or one marker changed fails). Everything else is counted, noted in the
  summary and ignored, whatever account posted it. Without a key nothing is sealed
  and nothing earlier is trusted.
- No marker sets a status on its own. A prior node's status is rebuilt through the
  lifecycle (`apply`): its peers' confirmations (stricter only), and `resolved` only
  from reviewbot's resolution record — a seal bound to the very comment it was
  edited into, which no copy can carry. `dismissed` comes only from a `/dismiss`
  reply to a sealed inline comment by a person the adapter's permission lookup says
  has write access, never the PR's author on their own PR (nor the bot's account).
- The summary is the sealed summary comment edited in place (else the oldest sealed
  one); what it recorded for the axes and the agents' proposal holds only for the
  head it names: a re-fold of another head takes nothing from it.

What a seal cannot stop: a verbatim copy of a whole sealed body re-asserts what
reviewbot said when it posted it (open findings and their confirmations: never
looser), and a workflow that misuses the same token to edit or delete reviewbot's
comments can remove evidence (never forge it); it could as well post a `reviewbot`
check itself, so the defence there is a dedicated account (a GitHub App). Every node
a marker carries also passes through the read boundary (`read_boundary` with
`ReviewNode`); a malformed one is a discard. Nothing untrusted may carry a marker
into reviewbot's own comments: every untrusted text a comment shows is made inert
first (inert.py turns `<` into `&lt;` and breaks `<!--` in code), and `inert.neutralize`
holds it again for a whole inline comment and for diff blocks (body.py, suggestion.py).

Must not: call GitHub (the adapter hands it plain `CommentRecord`s and a permission
lookup), or decide what to post.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.errors import LifecycleError
from reviewbot.nodes.boundary import Discarded, admit, read_boundary
from reviewbot.nodes.lifecycle import Action, Event, apply
from reviewbot.nodes.model import Priority, ReviewNode, Status
from reviewbot.publish.seal import Sealer
from reviewbot.redact import Redactor
from reviewbot.report import AxisReport, Report, ReviewKind, ReviewRun
from reviewbot.run import Coverage, UnseenFile
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.fold import Source
from reviewbot.verdict.lattice import Label, Verdict

NODE_TAG = "reviewbot:node"
SUMMARY_TAG = "reviewbot:summary"
SEAL_TAG = "reviewbot:seal"
FULL_COMMAND = ["/review", "full"]  # asks the next review to be full, not incremental
# Marker bodies are one line of JSON; `.*?` stops at the first `-->`, which escaped JSON never contains.
_MARKER = re.compile(r"<!--\s*(reviewbot:(?:node|summary|seal))\s+(.*?)\s*-->")
_SEAL = re.compile(r"\s*<!--\s*reviewbot:seal\s+(.*?)\s*-->")
_ESCAPES = {c: f"\\u{ord(c):04x}" for c in "<>&-"}
_OPEN_STATUSES = frozenset({Status.OPEN, Status.CONSENSUS_READY})
MAX_AXIS_DETAIL = 300  # the summary marker stays small; the full detail is in the summary text
MAX_UNSEEN_MARKED = 20  # unseen files the summary marker names (all of them, or none)
MAX_UNSEEN_TEXT = 300
MAX_AXIS_NODES = 100  # node states one axis records for a re-fold; more: the outcome is kept as is
# Token shapes only: the default for callers without the run's redactor (tests, tooling).
# Publishing always passes the run's own `Redactor`, which also knows its secret values.
SHAPES_ONLY = Redactor()


class Sealed(StrEnum):
    """How a body carries reviewbot's seal (see seal.py)."""

    POSTED = "posted"  # sealed when it was posted: valid wherever the same body appears
    EDITED = "edited"  # sealed when reviewbot edited it in place: valid in that comment only


class Where(StrEnum):
    """Where a comment lives on the PR."""

    INLINE = "inline"  # a review comment on a line
    REVIEW = "review"  # the body of a review
    ISSUE = "issue"  # a discussion (issue) comment


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentRecord:
    """One comment read from GitHub, reduced to what marker reading needs."""

    id: int
    where: Where
    author: str | None  # None for deleted ("ghost") accounts
    body: str
    in_reply_to: int | None = None
    path: str | None = None
    line: int | None = None
    start_line: int | None = None
    state: str | None = None  # reviews only: PENDING, COMMENTED, APPROVED, …

    @property
    def location(self) -> str:
        """Where this comment is, as a bound seal names it (`inline:123`)."""
        return location(self.where, self.id)


def location(where: Where, comment_id: int) -> str:
    return f"{where.value}:{comment_id}"


class _Marker(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AxisMarker(_Marker):
    """One axis as the last review judged it, so a re-fold can reuse it without a model call."""

    name: str = Field(min_length=1, max_length=100)
    gated: bool
    outcome: Outcome
    detail: str = Field(default="", max_length=MAX_AXIS_DETAIL)

    @classmethod
    def of(cls, axis: AxisReport, *, redactor: Redactor = SHAPES_ONLY) -> AxisMarker:
        # Redacted before the cut: a secret cut in half no longer matches the redactor.
        return cls(
            name=axis.name,
            gated=axis.gated,
            outcome=axis.outcome,
            detail=redactor(axis.detail)[:MAX_AXIS_DETAIL],
        )


class UnseenMarker(_Marker):
    """A file the last review did not see, so a re-fold's summary still names it."""

    path: str = Field(max_length=MAX_UNSEEN_TEXT)
    old_path: str | None = Field(default=None, max_length=MAX_UNSEEN_TEXT)
    reason: str = Field(max_length=MAX_UNSEEN_TEXT)
    remedy: str = Field(max_length=MAX_UNSEEN_TEXT)


class CoverageMarker(_Marker):
    """The coverage counts of the last review (the listed files stay in the summary text).

    The unseen files are kept only when all of them fit (`MAX_UNSEEN_MARKED`): a partial
    list would let a re-fold believe the others were seen.
    """

    files_total: int = Field(ge=0)
    files_in_context: int = Field(ge=0)
    files_listed: int = Field(ge=0)
    partial: bool
    files_unseen: int = Field(default=0, ge=0)
    unseen: tuple[UnseenMarker, ...] = Field(default=(), max_length=MAX_UNSEEN_MARKED)
    files_unlisted: int = Field(default=0, ge=0)

    @classmethod
    def of(cls, coverage: Coverage, *, redactor: Redactor = SHAPES_ONLY) -> CoverageMarker:
        unseen: tuple[UnseenMarker, ...] = ()
        if len(coverage.unseen) <= MAX_UNSEEN_MARKED:
            unseen = tuple(
                UnseenMarker(
                    path=_cut(f.path, redactor),
                    old_path=_cut(f.old_path, redactor) if f.old_path else None,
                    reason=_cut(f.reason, redactor),
                    remedy=_cut(f.remedy, redactor),
                )
                for f in coverage.unseen
            )
        return cls(
            files_total=coverage.files_total,
            files_in_context=coverage.files_in_context,
            files_listed=len(coverage.files_listed),
            partial=coverage.partial,
            files_unseen=len(coverage.unseen),
            unseen=unseen,
            files_unlisted=coverage.files_unlisted,
        )


def _cut(text: str, redactor: Redactor) -> str:
    # Redacted before the cut: a secret cut in half no longer matches the redactor.
    return redactor(text)[:MAX_UNSEEN_TEXT]


class NodeState(_Marker):
    """A node's state as the last review folded it, so a re-fold can judge its axis again.

    A finding already on the PR is not posted again, so its inline marker keeps the
    assessment of the head it was first posted on: what this head's review judged
    (priority, confidence, raisers) is recorded here and overlays it (`as_judged`).
    """

    fingerprint: str = Field(pattern=r"^[0-9a-f]{16}$")
    # Every agent that raised it, the author first: whose axes it counted for.
    raisers: tuple[str, ...] = Field(min_length=1, max_length=20)
    status: Status
    confirmed_by: tuple[str, ...] = ()
    # None: a summary written before they were recorded (the marker's own then stand).
    priority: Priority | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    # The anchored lines in THIS head (the inline marker keeps the head it was posted on),
    # so an incremental review can map them through the next push.
    lines: tuple[int, int] | None = None

    @classmethod
    def of(cls, node: ReviewNode) -> NodeState:
        anchor = node.anchor
        return cls(
            fingerprint=node.fingerprint,
            raisers=node.raisers,
            status=node.status,
            confirmed_by=node.confirmed_by,
            priority=node.priority,
            confidence=node.confidence,
            lines=(anchor.start_line, anchor.end_line) if anchor else None,
        )

    def as_judged(self, node: ReviewNode) -> ReviewNode:
        """`node` (from its inline marker) with the assessment this review folded."""
        update: dict[str, object] = {
            "author": self.raisers[0],
            "also_raised_by": self.raisers[1:],
        }
        if self.priority is not None:
            update["priority"] = self.priority
        if self.confidence is not None:
            update["confidence"] = self.confidence
        if self.lines is not None and node.anchor is not None and self.lines[0] <= self.lines[1]:
            start, end = self.lines
            update["anchor"] = node.anchor.model_copy(update={"start_line": start, "end_line": end})
        return node.model_copy(update=update)


class SealMarker(_Marker):
    """The seal at the end of a body reviewbot wrote (see seal.py)."""

    v: Literal[1]
    at: str | None = Field(default=None, pattern=r"^(inline|review|issue):[0-9]{1,20}$")
    mac: str = Field(pattern=r"^[0-9a-f]{32}$")


class SummaryMarker(_Marker):
    """What the summary comment remembers between runs."""

    # extra="ignore" here only: summaries written before `review_id` was dropped still carry
    # it, and an unreadable summary marker would make a re-fold forget the last axes.
    # Nothing is lost by ignoring a field: the marker is trusted only from the bot's account.
    model_config = ConfigDict(frozen=True, extra="ignore")

    head_sha: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    verdict: Label
    axes: tuple[AxisMarker, ...] = ()
    coverage: CoverageMarker | None = None
    # The agents' own proposal: a re-fold without a model must not fall below it.
    proposed: Label | None = None
    # The nodes as this review folded them (None: too many to record, the axes are kept as is).
    nodes: tuple[NodeState, ...] | None = None
    # Which kind of review this was (incremental.py decides the next one from these).
    kind: ReviewKind | None = None
    since: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,64}$")
    config_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    last_comment: int | None = Field(default=None, ge=0)

    @classmethod
    def of(
        cls, report: Report, *, head_sha: str, redactor: Redactor = SHAPES_ONLY
    ) -> SummaryMarker:
        proposals = [r.verdict for r in report.reasons if r.source is Source.PROPOSAL]
        run = report.review
        return cls(
            kind=run.kind if run else None,
            since=run.since if run else None,
            config_digest=run.config_digest if run else None,
            last_comment=run.last_comment if run else None,
            head_sha=head_sha,
            verdict=report.verdict.label,
            axes=tuple(AxisMarker.of(axis, redactor=redactor) for axis in report.axes),
            coverage=(
                CoverageMarker.of(report.coverage, redactor=redactor) if report.coverage else None
            ),
            proposed=max(proposals).label if proposals else None,
            nodes=tuple(map(NodeState.of, report.nodes))
            if len(report.nodes) <= MAX_AXIS_NODES
            else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorNode:
    """A node found in a sealed marker, with the comment that carries it."""

    node: ReviewNode  # its status rebuilt through the lifecycle, never copied from the marker
    comment_id: int
    where: Where
    body: str  # the comment's full body, to edit it in place when the node is resolved


@dataclass(frozen=True, slots=True, kw_only=True)
class HumanDecision:
    """A `/confirm` or `/dismiss` reply by a person with write access in a node's thread."""

    fingerprint: str
    event: Event
    comment_id: int
    login: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IgnoredCommand:
    """A `/confirm` or `/dismiss` that changed nothing, and why."""

    login: str
    comment_id: int
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorSummary:
    comment_id: int
    marker: SummaryMarker | None  # None when unreadable or unsealed: the comment is still edited


@dataclass(frozen=True, slots=True, kw_only=True)
class Trust:
    """What reading the PR's comments needs to tell reviewbot's own words and people's rights.

    `sealer` None: the run has no key, so no earlier comment can be recognised as
    reviewbot's. `is_writer` answers from the repository permission API (the adapter
    asks once per account); the default trusts nobody.
    """

    bot_login: str
    sealer: Sealer | None
    pr_author: str | None = None
    is_writer: Callable[[str], bool] = field(default=lambda login: False)


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorState:
    """Everything earlier runs (and people) left on the PR that this run builds on."""

    nodes: tuple[PriorNode, ...] = ()  # every sealed posting, in the order GitHub listed them
    decisions: tuple[HumanDecision, ...] = ()
    summary: PriorSummary | None = None
    pending_reviews: tuple[
        int, ...
    ] = ()  # the bot's own PENDING reviews (a crashed run's leftovers)
    discarded: tuple[Discarded, ...] = ()
    untrusted_markers: int = 0  # markers found in comments by other accounts, ignored
    unsealed_markers: int = 0  # markers in the bot account's comments without a valid seal
    ignored: tuple[IgnoredCommand, ...] = ()
    sealed: bool = True  # False: the run had no key, nothing earlier could be recognised
    # `/review full` issue comments by people entitled to decide (as for /confirm), by id.
    full_requests: tuple[int, ...] = ()
    newest_comment: int | None = None  # the newest discussion comment id read

    def recorded_run(self, head_sha: str) -> ReviewRun | None:
        """What the review of `head_sha` recorded about its kind (a re-fold keeps it)."""
        marker = self._of_head(head_sha)
        if marker is None or marker.kind is None:
            return None
        return ReviewRun(
            kind=marker.kind,
            since=marker.since,
            reason="as recorded by the review of this head",
            config_digest=marker.config_digest,
            last_comment=marker.last_comment,
        )

    def summary_marker(self) -> SummaryMarker | None:
        """The last recorded review's summary marker, whatever head it names."""
        return self.summary.marker if self.summary else None

    @property
    def ignored_commands(self) -> int:
        return len(self.ignored)

    def by_fingerprint(self) -> dict[str, PriorNode]:
        """One prior node per fingerprint, its status folded through the lifecycle.

        Its peers are everyone who confirmed any posting of it; it is `resolved` only
        when every posting carries reviewbot's resolution record (a finding found again
        after it was resolved is posted again, and that posting stands). The comment
        kept is the latest standing posting, the one a resolution would edit.
        """
        groups: dict[str, list[PriorNode]] = {}
        for prior in self.nodes:
            groups.setdefault(prior.node.fingerprint, []).append(prior)
        out = {}
        for fingerprint, postings in groups.items():
            standing = [p for p in postings if p.node.status is not Status.RESOLVED]
            kept = (standing or postings)[-1]
            peers = dict.fromkeys(peer for p in postings for peer in p.node.confirmed_by)
            events = [Event(action=Action.CONFIRM, by=peer) for peer in peers]
            if not standing:
                events.append(Event(action=Action.RESOLVE, by="reviewbot"))
            out[fingerprint] = replace(kept, node=_apply_all(_fresh(kept.node), events))
        return out

    def posted(self) -> frozenset[str]:
        """Fingerprints already on the PR and still standing (a resolved one may be posted again)."""
        return frozenset(
            fp for fp, prior in self.by_fingerprint().items() if prior.node.status in _OPEN_STATUSES
        )

    def reviewed_head(self) -> str | None:
        """The head the last recorded review was of."""
        marker = self.summary.marker if self.summary else None
        return marker.head_sha if marker else None

    def _of_head(self, head_sha: str) -> SummaryMarker | None:
        """The summary marker, only when it recorded a review of `head_sha` (never another head's)."""
        marker = self.summary.marker if self.summary else None
        return marker if marker is not None and marker.head_sha == head_sha else None

    def proposed(self, head_sha: str) -> Verdict | None:
        """The agents' proposal for `head_sha`, for a re-fold: it can only add strictness."""
        marker = self._of_head(head_sha)
        return Verdict.parse(marker.proposed) if marker and marker.proposed else None

    def axes(self, head_sha: str) -> tuple[AxisResult, ...]:
        """The axes the last summary recorded for `head_sha`; empty for another head or none."""
        marker = self._of_head(head_sha)
        if marker is None:
            return ()
        return tuple(
            AxisResult(name=a.name, gated=a.gated, outcome=a.outcome, detail=a.detail)
            for a in marker.axes
        )

    def axis_nodes(self, head_sha: str, reviewer: str) -> tuple[ReviewNode, ...] | None:
        """The nodes `reviewer` raised, as the review of `head_sha` folded them, with today's
        human decisions.

        None when that review recorded no node states (or a node's content is not on the
        PR any more): the recorded outcome must then stand as it is.
        """
        marker = self._of_head(head_sha)
        if marker is None or marker.nodes is None:
            return None
        earlier = self.by_fingerprint()
        rebuilt = []
        for state in marker.nodes:
            if reviewer not in state.raisers:
                continue
            prior = earlier.get(state.fingerprint)
            if prior is None:
                return None
            peers = [Event(action=Action.CONFIRM, by=peer) for peer in state.confirmed_by]
            rebuilt.append(_apply_all(_fresh(state.as_judged(prior.node)), peers))
        return carry_over(rebuilt, self)

    def coverage(self, head_sha: str) -> Coverage | None:
        """The coverage the review of `head_sha` recorded; None for another head (never full)."""
        marker = self._of_head(head_sha)
        if marker is None or marker.coverage is None:
            return None
        recorded = marker.coverage
        notes = [
            f"as recorded by the review of {marker.head_sha[:12]}; "
            f"{recorded.files_listed} file(s) were not in the reviewer's context"
        ]
        if recorded.files_unseen > len(recorded.unseen):
            notes.append(
                f"{recorded.files_unseen} file(s) were not seen by any reviewer (the JSON report "
                "of that review lists them)"
            )
        return Coverage(
            files_total=recorded.files_total,
            files_in_context=recorded.files_in_context,
            unseen=tuple(
                UnseenFile(path=f.path, old_path=f.old_path, reason=f.reason, remedy=f.remedy)
                for f in recorded.unseen
            ),
            files_unlisted=recorded.files_unlisted,
            partial=recorded.partial,
            notes=tuple(notes),
        )

    def review_nodes(self, head_sha: str | None = None) -> tuple[ReviewNode, ...]:
        """The prior nodes with human decisions applied: the input of a re-fold without a model.

        Nodes recorded for other heads still count (they can only make it stricter); for
        `head_sha` the assessment and confirmations the last review folded are applied.
        """
        marker = self._of_head(head_sha) if head_sha else None
        recorded = {s.fingerprint: s for s in (marker.nodes or ())} if marker else {}
        latest = [
            recorded[fp].as_judged(prior.node) if fp in recorded else prior.node
            for fp, prior in self.by_fingerprint().items()
        ]
        out = []
        for node in carry_over(latest, self, keep_status=True):
            state = recorded.get(node.fingerprint)
            peers = state.confirmed_by if state else ()
            out.append(_apply_all(node, [Event(action=Action.CONFIRM, by=p) for p in peers]))
        return tuple(out)


def dumps_marker(tag: str, payload: dict[str, Any], *, redactor: Redactor = SHAPES_ONLY) -> str:
    """`<!-- tag {json} -->` on one line, redacted then escaped (see the module docstring)."""
    # json.dumps escapes newlines and other control characters itself: the marker is one line.
    text = json.dumps(
        _redacted(payload, redactor), separators=(",", ":"), ensure_ascii=False, sort_keys=False
    )
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return f"<!-- {tag} {text} -->"


def _redacted(value: object, redactor: Redactor) -> object:
    """`value` with every string in it redacted (keys are ours and stay as they are)."""
    match value:
        case str():
            return redactor(value)
        case dict():
            return {key: _redacted(item, redactor) for key, item in value.items()}
        case list() | tuple():
            return [_redacted(item, redactor) for item in value]
    return value


def node_marker(node: ReviewNode, *, redactor: Redactor = SHAPES_ONLY) -> str:
    """The hidden marker for `node`: enough to rebuild its state, none of its prose."""
    payload = node.model_dump(
        mode="json", exclude={"body", "suggestion", "disputes", "notes"}, exclude_defaults=True
    )
    if node.anchor is not None:
        payload["anchor"] = {
            "path": node.anchor.path,
            "start_line": node.anchor.start_line,
            "end_line": node.anchor.end_line,
            "quote": "",
        }
        if node.anchor.side != "RIGHT":  # the default is left out: old readers read it as RIGHT
            payload["anchor"]["side"] = node.anchor.side
    payload["status"] = node.status.value  # always explicit, even when it is the default
    return dumps_marker(NODE_TAG, payload, redactor=redactor)


def summary_marker(marker: SummaryMarker, *, redactor: Redactor = SHAPES_ONLY) -> str:
    return dumps_marker(SUMMARY_TAG, marker.model_dump(mode="json"), redactor=redactor)


def rewrite_status(
    body: str,
    fingerprints: Collection[str],
    status: Status,
    *,
    banner: str = "",
    redactor: Redactor = SHAPES_ONLY,
) -> str:
    """`body` with the node markers of `fingerprints` set to `status`, `banner` shown before each.

    Used to mark an earlier comment's findings resolved in place. Each marker is
    re-admitted through the read boundary before it is re-written; one that does not
    pass is left untouched.
    """

    def replace(match: re.Match[str]) -> str:
        if match.group(1) != NODE_TAG:
            return match.group(0)
        try:
            raw = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        node = admit(raw, ReviewNode, origin="rewrite")
        if isinstance(node, Discarded) or node.fingerprint not in fingerprints:
            return match.group(0)
        new = node_marker(node.model_copy(update={"status": status}), redactor=redactor)
        return f"{banner} {new}" if banner else new

    return _MARKER.sub(replace, body)


def find_markers(text: str, tag: str) -> list[object]:
    """The decoded payloads of every `tag` marker in `text`; undecodable JSON stays a string."""
    found: list[object] = []
    for match in _MARKER.finditer(text or ""):
        if match.group(1) != tag:
            continue
        try:
            found.append(json.loads(match.group(2)))
        except ValueError:
            found.append(match.group(2))  # the boundary turns it into a discard with a reason
    return found


def seal_body(body: str, sealer: Sealer | None, *, at: str | None = None) -> str:
    """`body` ending in reviewbot's seal (see seal.py); `at` binds it to the comment edited in place.

    Without a key the body goes out unsealed, and no later run will trust it.
    """
    if sealer is None:
        return body
    plain = unsealed(body).rstrip()
    payload: dict[str, Any] = {"v": 1} | ({"at": at} if at else {})
    payload["mac"] = sealer.mac(plain, at=at)
    return f"{plain}\n\n{dumps_marker(SEAL_TAG, payload)}\n"


def unsealed(body: str) -> str:
    """`body` without its seal: what the seal's MAC covers."""
    return _SEAL.sub("", body)


def sealed_by(record: CommentRecord, sealer: Sealer | None) -> Sealed | None:
    """Whether reviewbot wrote `record` (posted it, or edited it in place here); None: not ours."""
    if sealer is None:
        return None
    seals = find_markers(record.body, SEAL_TAG)
    if len(seals) != 1:
        return None
    try:
        seal = SealMarker.model_validate(seals[0])
    except ValidationError:
        return None
    # A seal bound to another comment is a copy of an edit: not ours here.
    if seal.at is not None and seal.at != record.location:
        return None
    if not sealer.verify(unsealed(record.body).rstrip(), seal.mac, at=seal.at):
        return None
    return Sealed.EDITED if seal.at else Sealed.POSTED


def by_bot(record: CommentRecord, bot_login: str) -> bool:
    """Whether `record` was posted by the account reviewbot posts as (necessary, not sufficient)."""
    return record.author is not None and record.author.casefold() == bot_login.casefold()


def read_prior(records: Iterable[CommentRecord], trust: Trust) -> PriorState:
    """Turn the PR's comments into the prior state; never raises on hostile content."""
    records = list(records)
    nodes: list[PriorNode] = []
    discarded: list[Discarded] = []
    untrusted = unsealed_count = 0
    summaries: list[tuple[bool, PriorSummary]] = []  # (edited in place, summary)
    fallback: PriorSummary | None = None  # the oldest summary comment: edited, never believed
    pending: list[int] = []
    for record in records:
        has_marker = any(find_markers(record.body, tag) for tag in (NODE_TAG, SUMMARY_TAG))
        if not by_bot(record, trust.bot_login):
            untrusted += has_marker
            continue
        if record.where is Where.REVIEW and record.state == "PENDING":
            pending.append(record.id)
            continue
        sealed = sealed_by(record, trust.sealer)
        is_summary = record.where is Where.ISSUE and bool(find_markers(record.body, SUMMARY_TAG))
        if sealed is None:
            unsealed_count += has_marker
            if is_summary and fallback is None:
                fallback = PriorSummary(comment_id=record.id, marker=None)
            continue
        origin = f"marker in {record.where.value} comment {record.id}"
        result = read_boundary(find_markers(record.body, NODE_TAG), ReviewNode, origin=origin)
        discarded.extend(result.discarded)
        nodes.extend(
            PriorNode(
                node=_recorded(node, edited=sealed is Sealed.EDITED),
                comment_id=record.id,
                where=record.where,
                body=record.body,
            )
            for node in result.valid
        )
        if is_summary:
            summaries.append((sealed is Sealed.EDITED, _summary_of(record)))
    # The summary reviewbot keeps editing (bound to its comment) beats a copy of its first version.
    summary = min(summaries, key=lambda s: (not s[0], s[1].comment_id))[1] if summaries else None
    decisions, ignored = _decisions(records, nodes, trust)
    discussion = [r.id for r in records if r.where is Where.ISSUE]
    return PriorState(
        full_requests=_full_requests(records, trust),
        newest_comment=max(discussion, default=None),
        nodes=tuple(nodes),
        decisions=decisions,
        summary=summary or fallback,
        pending_reviews=tuple(pending),
        discarded=tuple(discarded),
        untrusted_markers=untrusted,
        unsealed_markers=unsealed_count,
        ignored=ignored,
        sealed=trust.sealer is not None,
    )


def _recorded(node: ReviewNode, *, edited: bool) -> ReviewNode:
    """A marker's node as the lifecycle allows it: the status is rebuilt, never copied.

    Peers' confirmations count (they only add strictness); `resolved` only in reviewbot's
    resolution record (a seal bound to this comment); `dismissed` never from a marker.
    """
    events = [Event(action=Action.CONFIRM, by=peer) for peer in node.confirmed_by]
    if node.status is Status.RESOLVED and edited:
        events.append(Event(action=Action.RESOLVE, by="reviewbot"))
    return _apply_all(_fresh(node), events)


def _fresh(node: ReviewNode) -> ReviewNode:
    return node.model_copy(update={"status": Status.OPEN, "confirmed_by": ()})


def _summary_of(record: CommentRecord) -> PriorSummary:
    payloads = find_markers(record.body, SUMMARY_TAG)
    try:
        marker: SummaryMarker | None = SummaryMarker.model_validate(payloads[0])
    except ValidationError:
        marker = None
    return PriorSummary(comment_id=record.id, marker=marker)


def _decisions(
    records: Sequence[CommentRecord], nodes: Sequence[PriorNode], trust: Trust
) -> tuple[tuple[HumanDecision, ...], tuple[IgnoredCommand, ...]]:
    """`/confirm` and `/dismiss` replies to reviewbot's sealed inline comments, in the order written."""
    inline = {p.comment_id: p.node.fingerprint for p in nodes if p.where is Where.INLINE}
    decisions: list[HumanDecision] = []
    ignored: list[IgnoredCommand] = []
    for record in records:
        if record.in_reply_to not in inline or not record.author:
            continue
        command = _command(record.body)
        if command is None:
            continue
        why = _not_entitled(record.author, trust)
        if why is not None:
            ignored.append(IgnoredCommand(login=record.author, comment_id=record.id, why=why))
            continue
        action, reason = command
        event = Event(action=action, by=f"human:{record.author}", reason=reason)
        decisions.append(
            HumanDecision(
                fingerprint=inline[record.in_reply_to],
                event=event,
                comment_id=record.id,
                login=record.author,
            )
        )
    return tuple(decisions), tuple(ignored)


def _full_requests(records: Sequence[CommentRecord], trust: Trust) -> tuple[int, ...]:
    """`/review full` discussion comments by people who may decide findings (not the author)."""
    out = []
    for record in records:
        words = record.body.strip().partition("\n")[0].split()
        if record.where is not Where.ISSUE or [w.casefold() for w in words[:2]] != FULL_COMMAND:
            continue
        if record.author and _not_entitled(record.author, trust) is None:
            out.append(record.id)
    return tuple(out)


def _not_entitled(login: str, trust: Trust) -> str | None:
    """Why `login` may not decide a finding (None: they may)."""
    if login.casefold() == trust.bot_login.casefold():
        return "is the account reviewbot posts as"  # every workflow can post as it
    if trust.pr_author is not None and login.casefold() == trust.pr_author.casefold():
        return "is the PR's author"  # nobody judges their own PR, write access or not
    if not trust.is_writer(login):
        return "has no write access"
    return None


def _command(body: str) -> tuple[Action, str] | None:
    first, _, rest = body.strip().partition("\n")
    word, _, reason = first.strip().partition(" ")
    action = {"/confirm": Action.CONFIRM, "/dismiss": Action.DISMISS}.get(word.casefold())
    return None if action is None else (action, reason.strip() or rest.strip()[:500])


def carry_over(
    nodes: Iterable[ReviewNode], prior: PriorState, *, keep_status: bool = False
) -> tuple[ReviewNode, ...]:
    """Apply what earlier runs and people decided to this run's nodes, matched by fingerprint.

    Peers who confirmed a node earlier (the verifier or a human) still count; `/confirm`
    and `/dismiss` replies are applied in the order they were written. Illegal moves
    (confirming a dismissed node) are skipped: a stale reply must not end the run. With
    `keep_status`, the prior node's own status (e.g. resolved) is kept as well (used when
    re-folding prior nodes).
    """
    earlier = prior.by_fingerprint()
    decided: dict[str, list[Event]] = {}
    for decision in prior.decisions:
        decided.setdefault(decision.fingerprint, []).append(decision.event)
    out = []
    for node in nodes:
        before = earlier.get(node.fingerprint)
        events = list(_prior_events(before.node, keep_status) if before else ())
        events.extend(decided.get(node.fingerprint, ()))
        if keep_status and before is not None:
            node = _fresh(node)
        out.append(_apply_all(node, events))
    return tuple(out)


def _prior_events(node: ReviewNode, keep_status: bool) -> list[Event]:
    events = [Event(action=Action.CONFIRM, by=peer) for peer in node.confirmed_by]
    if keep_status and node.status is Status.RESOLVED:
        events.append(Event(action=Action.RESOLVE, by="prior"))
    return events


def _apply_all(node: ReviewNode, events: Iterable[Event]) -> ReviewNode:
    for event in events:
        try:
            node = apply(node, event)
        except LifecycleError:
            continue  # e.g. /confirm after /dismiss: dismissed is final, the reply is moot
    return node
